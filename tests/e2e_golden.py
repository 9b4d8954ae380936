"""The run's output as a skeleton against a reference (as Ginkgo's
benchmark/test/reference/): the header's lines by their keys, the table's
heading, each row's matrix, kernel, threads and status, the best-kernel
table's heading, the totals line, and the JSON document's keys, columns
and roles, numbers masked. A change to what a run prints shows here as a
diff; when it is meant, SPB_UPDATE_REFERENCE=1 writes the reference anew
(tests/reference/run_skeleton.txt) and the diff is reviewed with the
change.

usage: e2e_golden.py SPBENCH SOURCE_DIR
"""
import difflib
import json
import os
import re

from spbtest import SOURCE, check, spbench, run_tests

REFERENCE = os.path.join(SOURCE, "tests", "reference", "run_skeleton.txt")


def masked(text):
    return re.sub(r"\d+(\.\d+)?", "N", text)


def console_skeleton(stdout):
    """The console output's structure, numbers and measured figures left out."""
    out, part = [], "header"
    for line in stdout.splitlines():
        if part == "header" and line.startswith("matrix "):
            out.append("table: " + " ".join(line.split()))
            part = "rows"
        elif part == "header" and line.startswith("# "):
            out.append("header: " + masked(line.split(":", 1)[0]))
        elif part == "rows" and not line.strip():
            part = "after"
        elif part == "rows":
            matrix, kernel, threads, *rest = line.split()
            status = rest[-1] if rest[-1] in ("ok", "wrong", "skipped", "error") else rest[7]
            out.append("row: %s %s %s %s" % (matrix, kernel, threads,
                                             "ok" if status.startswith("noisy") else status))
        elif part == "after" and (line.startswith("# best kernel") or line.startswith("matrix ")):
            out.append("best: " + " ".join(line.split()))
        elif part == "after" and re.match(r"# \d+ rows:", line):
            out.append("totals: " + masked(line))
    return out


def json_skeleton(doc):
    out = ["json: " + " ".join(sorted(doc))]
    for key in ("settings", "machine", "roles", "totals", "energy"):
        if isinstance(doc.get(key), dict):
            out.append("json %s: %s" % (key, " ".join(sorted(doc[key]))))
    columns = doc.get("columns", [])
    out.append("json columns: " + " ".join(columns.split(",") if isinstance(columns, str)
                                           else columns))
    rows = doc.get("rows", [])
    out.append("json rows: %d, each %s" % (len(rows), "an array" if rows and
                                            isinstance(rows[0], list) else "an object"))
    return out


def test_run_skeleton(tmp):
    out_json = os.path.join(tmp, "run.json")
    r = spbench("run", "--kernels", "csr.serial,csr.omp.static,hll.serial.row", "--threads", "1,2",
                "--reps", "2", "--min-time", "0", "--warmup", "0", "--energy-s", "0",
                "--bandwidth", "none", "--seed", "1", "--json", out_json, "gen:lap2d:8",
                "gen:random:300:5")
    check(r.returncode == 0, "the run exits 0: %s" % r.stderr[-300:])
    if r.returncode != 0:
        return
    with open(out_json) as f:
        skeleton = console_skeleton(r.stdout) + json_skeleton(json.load(f))
    text = "\n".join(skeleton) + "\n"
    if os.environ.get("SPB_UPDATE_REFERENCE"):
        with open(REFERENCE, "w") as f:
            f.write(text)
    with open(REFERENCE) as f:
        want = f.read()
    diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), "reference", "this run",
                                     lineterm="", n=1))
    check(not diff, "the run's output keeps its skeleton (tests/reference/run_skeleton.txt; "
          "SPB_UPDATE_REFERENCE=1 writes it anew when the change is meant):\n%s"
          % "\n".join(diff[:40]))


def main():
    run_tests([test_run_skeleton], "spb_e2e_golden_", globals())


main()
