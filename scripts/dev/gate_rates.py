"""The gate's false-alarm and miss rates on studies of one binary (A/A):
every ordered pair of the files is compared as `compare --fail-if-slower
PCT` compares them, and, for each row in turn, NEW's row made twice as
slow (its samples, process medians and fastest samples doubled) to see
whether the gate catches it. Optionally only the rows at some thread
counts, and only each row's first K processes (a study of K).

usage: python3 scripts/dev/gate_rates.py [--pct P] [--processes K] [--threads T,...]
           STUDY.json[.gz]...
"""
import copy
import gzip
import itertools
import json
import os
import sys

# the tree's results package (a development script: not installed with it)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from spbench import compare  # noqa: E402

PROCESS_LISTS = ("process_medians_ms", "process_minima_ms")


def load(path, processes, threads):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    rows = [r for r in doc["rows"] if not threads or str(r.get("threads")) in threads]
    for r in rows:
        for name in PROCESS_LISTS:
            if processes and r.get(name):
                r[name] = r[name][:processes]
        if processes and any(r.get("process_minima_ms") or []):  # the fastest of the first K
            r["time_ms_min"] = min(v for v in r["process_minima_ms"] if v is not None)
    return compare.check_rows(path, rows)


def slowed(row):
    r = copy.deepcopy(row)
    for name in ("time_ms_median", "time_ms_min"):
        if r.get(name):
            r[name] = 2 * float(r[name])
    for name in ("samples_ms",) + PROCESS_LISTS:
        if r.get(name):
            r[name] = [2 * v for v in r[name]]
    return r


def judged(base, new, pct):
    pairs = compare.pair_rows(base, new, True)[0]
    spread = compare.run_spread(pairs)
    if spread:
        compare.widen(pairs, spread)
    compare.judge(pairs, pct)
    return {compare.key_of(p["new_row"]): p for p in pairs}


def main(argv):
    pct, processes, threads, files = 5.0, None, None, []
    while argv:
        a = argv.pop(0)
        if a == "--pct":
            pct = float(argv.pop(0))
        elif a == "--processes":
            processes = int(argv.pop(0))
        elif a == "--threads":
            threads = set(argv.pop(0).split(","))
        else:
            files.append(a)
    studies = {f: load(f, processes, threads) for f in files}
    totals = {"pairs": 0, "passed": 0, "rows": 0, "slower": 0, "unjudgeable": 0, "slowed": 0,
              "caught": 0, "slowed_unjudgeable": 0}
    for a, b in itertools.permutations(files, 2):
        verdicts = judged(studies[a], studies[b], pct)
        gates = [p["gate"] for p in verdicts.values()]
        totals["pairs"] += 1
        totals["passed"] += all(g == "ok" for g in gates)
        totals["rows"] += len(gates)
        totals["slower"] += gates.count("slower")
        totals["unjudgeable"] += gates.count("unjudgeable")
        for k, new in enumerate(studies[b]):
            key = compare.key_of(new)
            if key not in verdicts:
                continue
            changed = studies[b][:k] + [slowed(new)] + studies[b][k + 1:]
            gate = judged(studies[a], changed, pct)[key]["gate"]
            totals["slowed"] += 1
            totals["caught"] += gate == "slower"
            totals["slowed_unjudgeable"] += gate == "unjudgeable"
        print("%s -> %s: %d rows, %d slower, %d unjudgeable" % (
            os.path.basename(a), os.path.basename(b), len(gates), gates.count("slower"),
            gates.count("unjudgeable")))
    t = totals
    print("A/A: %d of %d ordered pairs pass; %d of %d rows judged slower (false alarms), %d "
          "unjudgeable" % (t["passed"], t["pairs"], t["slower"], t["rows"], t["unjudgeable"]))
    print("one row 2x slower: %d of %d caught (%.1f%%), %d unjudgeable, %d missed" % (
        t["caught"], t["slowed"], 100.0 * t["caught"] / max(1, t["slowed"]),
        t["slowed_unjudgeable"], t["slowed"] - t["caught"] - t["slowed_unjudgeable"]))


if __name__ == "__main__":
    main(sys.argv[1:])
