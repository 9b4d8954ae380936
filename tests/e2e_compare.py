#!/usr/bin/env python3
"""spbench compare on synthetic studies whose truth is known (no timing):
the interval of the ratio covers the true ratio at about its stated rate
over a few hundred seeds, the verdicts follow (5% apart: slower; the same:
no difference shown; very noisy: no difference shown), too few samples
give no verdict, the studies' differences are named (--strict refuses
them), the gate's exit codes, two CSVs compare by their samples as JSONs do, and
--kernels A,B compares two kernels of one file; then one real pair of
runs (JSON samples kept by run). Then run --processes N: the runs'
rows combined (middle median, spread, noisy, worst status, a missing row
refused), compared by Welch's interval on the process medians (its
coverage on synthetic medians), a stop and --resume."""
import csv
import json
import math
import os
import random
import shutil
import signal
import sys
import subprocess
import time

from spbtest import SPBENCH, SOURCE, check, read_rows, skip, spbench, run_tests

from spbench import compare, stats  # the package spbtest put on the path


def draws(rng, n, scale, sigma):
    return [scale * math.exp(rng.gauss(0, sigma)) for _ in range(n)]


def test_coverage():
    """The 95% interval covers the true ratio in 92-99.5% of 400 studies,
    at 5% apart and at none; the verdicts at both and under heavy noise."""
    for truth, sigma, expect in ((1.05, 0.03, "slower"), (1.0, 0.03, "no difference shown"),
                                 (1.05, 0.5, "no difference shown")):
        rng = random.Random(20261126)
        covered, verdicts, trials = 0, {}, 400
        for _ in range(trials):
            base, new = draws(rng, 12, 1.0, sigma), draws(rng, 12, truth, sigma)
            ratio, low, high = compare.shift(base, new)
            covered += low <= truth <= high
            v = compare.verdict(ratio, low, high, True)
            verdicts[v] = verdicts.get(v, 0) + 1
        rate = covered / float(trials)
        check(0.92 <= rate <= 0.995, "ratio %.2f, sigma %.2f: the interval covers the truth in "
              "%.1f%% of studies" % (truth, sigma, 100 * rate))
        check(verdicts.get(expect, 0) >= 0.85 * trials,
              "ratio %.2f, sigma %.2f: mostly '%s': %s" % (truth, sigma, expect, verdicts))
    ratio, low, high = compare.shift([1.0, 1.1, 0.9], [2.0, 2.1, 1.9])
    check(low is None and compare.verdict(ratio, low, high, True) == "too few samples",
          "three samples a side are too few for a 95% interval")
    check(abs(compare.shift([1.0] * 30 + [50.0], [2.0] * 30 + [2.1])[0] - 2.0) < 1e-9,
          "one stalled sample does not move the estimate")
    big = compare.shift(draws(random.Random(3), 200, 1.0, 0.02), draws(random.Random(4), 200,
                                                                       1.10, 0.02))
    check(abs(big[0] - 1.10) < 0.02 and big[2] - big[1] < 0.02,
          "200 samples a side (the normal approximation): a narrow interval near 1.10: %s"
          % (big,))


def verdicts(stdout, word):
    """Rows of compare's table whose verdict is `word`."""
    return sum(1 for ln in stdout.splitlines()
               if not ln.startswith("#") and " %s" % word in ln)


def study(path, commit, scale, sigma, seed, kernels=("csr.a", "csr.b"), matrices=4):
    rng = random.Random(seed)
    rows = []
    for m in range(matrices):
        for k, kernel in enumerate(kernels):
            s = draws(rng, 15, (1 + m) * (1 + k) * scale, sigma)
            rows.append({"matrix": "m%d" % m, "kernel": kernel, "operation": "spmv",
                         "precision": "fp64", "threads": 1, "ranks": 1,
                         "settings": "hack_size=32", "source_id": "size=%d crc=1" % m,
                         "status": "ok", "time_ms_median": sorted(s)[7], "noisy": 0,
                         "host": "h", "measured_under": "tol=1e-10", "samples_ms": s})
    doc = {"format": "spbench-results", "format_version": 1,
           "spbench": {"git_commit": commit, "build": "Release"},
           "machine": {"cpu_model": "cpu"}, "settings": {"row_key": "hack_size=32"},
           "rows": rows}
    with open(path, "w") as f:
        json.dump(doc, f)
    return rows


def test_command(tmp):
    base, slow, fast = (os.path.join(tmp, n + ".json") for n in ("base", "slow", "fast"))
    study(base, "aaa", 1.0, 0.01, 1)
    study(slow, "aaa", 1.10, 0.01, 2)
    study(fast, "bbb", 0.80, 0.01, 3)
    r = spbench("compare", base, slow)
    check(r.returncode == 0 and verdicts(r.stdout, "slower") == 8 and "the studies differ" not in
          r.stdout, "10%% slower on every row: eight 'slower' verdicts: %s" % r.stdout[-800:])
    r = spbench("compare", base, slow, "--fail-if-slower", "5")
    check(r.returncode == 1 and "slower by more than 5%" in r.stderr, "the gate fails at 5%%: %s"
          % r.stderr)
    r = spbench("compare", base, slow, "--fail-if-slower", "20")
    check(r.returncode == 0, "the gate passes at 20%%: %s" % r.stderr)
    r = spbench("compare", base, fast, "--fail-if-slower", "0")
    check(r.returncode == 0 and verdicts(r.stdout, "faster") == 8 and "commit: aaa against bbb" in
          r.stdout, "faster everywhere, the commits named: %s" % r.stdout[:300])
    r = spbench("compare", base, fast, "--strict")
    check(r.returncode == 1 and "commit" in r.stderr, "--strict refuses other commits: %s" %
          r.stderr)
    out_json, out_csv = os.path.join(tmp, "cmp.json"), os.path.join(tmp, "cmp.csv")
    r = spbench("compare", base, slow, "--json", out_json, "--csv", out_csv)
    doc = json.load(open(out_json))
    geo = doc["geomean"]["all"]
    check(r.returncode == 0 and geo["low"] < 1.10 < geo["high"] and len(doc["pairs"]) == 8 and
          open(out_csv).readline().startswith("matrix,kernel"),
          "the geometric mean's interval covers 1.10; JSON and CSV written: %s" % geo)
    out_md = os.path.join(tmp, "cmp.md")
    r = spbench("compare", base, slow, "--markdown", out_md)
    md = open(out_md).read().splitlines() if os.path.exists(out_md) else []
    table = [l for l in md if l.startswith("| m") and "slower" in l]
    check(r.returncode == 0 and md and md[0].startswith("| matrix | kernel |") and
          len(table) == 8 and any(l.startswith("| all | 1.1") for l in md),
          "--markdown: a table row per pair (8, each slower) and the geometric means: %s" % md[:4])
    r = spbench("compare", base, slow, "--markdown", out_md)
    check(r.returncode == 2 and "--force" in r.stderr, "--markdown does not replace a file "
          "without --force: %s" % r.stderr)
    r = spbench("compare", base, slow, "--markdown", slow, "--force")
    check(r.returncode == 2 and "is an input" in r.stderr, "--markdown never names an input: %s"
          % r.stderr)
    if shutil.which("gnuplot"):
        charts = os.path.join(tmp, "charts")
        r = spbench("compare", base, slow, "--chart", charts)
        check(r.returncode == 0 and os.path.getsize(os.path.join(charts, "compare.png")) > 0,
              "--chart draws the ratios with their intervals: %s" % r.stderr)
    else:
        skip("no gnuplot: compare --chart (apt-get install gnuplot-nox)", "gnuplot")
    r = spbench("compare", base, slow)
    check("A/A comparison" in r.stdout, "two runs compared carry the caveat of between-run spread")
    words = [ln for ln in spbench("compare", base, slow).stdout.splitlines()
             if "x slower than base (95%: " in ln]
    check(len(words) == 8 and all(" new 1.1" in ln or " new 1.0" in ln for ln in words),
          "each pair's verdict in words, hyperfine's form ('new 1.10x slower than base (95%%: "
          "...)'): %s" % words[:2])
    doc = json.load(open(slow))
    for row in doc["rows"]:  # medians that say slower, samples that say faster
        row["samples_ms"] = [v / 2 for v in row["samples_ms"]]
    both = os.path.join(tmp, "both_ways.json")
    with open(both, "w") as f:
        json.dump(doc, f)
    r = spbench("compare", base, both)
    check(verdicts(r.stdout, "faster than base") == 8 and
          r.stdout.count("points the other way") == 8,
          "new/base and est pointing opposite ways are said to: %s" % r.stdout[-600:])
    r = spbench("compare", base, "--kernels", "csr.a,csr.b")
    check(r.returncode == 0 and "csr.b/csr.a" in r.stdout and verdicts(r.stdout, "slower") == 4 and
          r.stdout.count("x slower than csr.a (95%: ") == 4 and
          "A/A comparison" not in r.stdout,
          "--kernels A,B: B twice A's time on each matrix: %s" % r.stdout[-500:])
    one = os.path.join(tmp, "one.json")
    study(one, "aaa", 1.0, 0.01, 5, matrices=2)
    r = spbench("compare", base, one)
    check(r.returncode == 0 and "only in BASE" in r.stdout, "rows in one file only are listed")
    r = spbench("compare", base)
    check(r.returncode == 2, "one file without --kernels is a usage error")


def test_real_runs(tmp):
    """Two runs of the suite itself: JSON rows keep their samples; compare
    pairs every row; CSVs give ratios only and say so."""
    paths = []
    for k in range(2):
        csv_path, json_path = (os.path.join(tmp, "run%d.%s" % (k, e)) for e in ("csv", "json"))
        spbench("run", "--kernels", "csr.serial,csr.omp.nnz", "--threads", "1", "--reps", "12",
                "--min-time", "0", "--quiet", "--csv", csv_path, "--json", json_path,
                os.path.join(SOURCE, "matrices", "cage4.mtx.gz"))
        paths.append((csv_path, json_path))
    rows = json.load(open(paths[0][1]))["rows"]
    check(all(len(r["samples_ms"]) == int(r["reps"]) for r in rows if r["status"] == "ok"),
          "each JSON row keeps its samples")
    r = spbench("compare", paths[0][1], paths[1][1])
    check(r.returncode == 0 and "# 2 pairs" in r.stdout, "two runs compare: %s" % r.stdout)
    r = spbench("compare", paths[0][0], paths[1][0])
    check(r.returncode == 0 and "# 2 pairs" in r.stdout and "keeps no samples" not in r.stdout
          and "too few samples" not in r.stdout,
          "the CSVs keep the samples: they compare as the JSONs do: %s" % r.stdout)


def test_welch():
    """Student's t quantiles against the table; Welch's interval on three
    process medians a side covers the truth in 92-99.5% of 400 studies; a
    10% change is found, none is not invented."""
    for df, t in ((1, 12.706), (2, 4.303), (4, 2.776), (10, 2.228), (30, 2.042)):
        check(abs(stats.t_quantile(0.975, df) - t) < 1e-3, "t(0.975, %d) = %.3f" % (df, t))
    for truth, expect in ((1.10, "slower"), (1.0, "no difference shown")):
        rng = random.Random(7)
        covered, hits, trials = 0, 0, 400
        for _ in range(trials):
            ratio, low, high = compare.welch(draws(rng, 3, 1.0, 0.02), draws(rng, 3, truth, 0.02))
            covered += low <= truth <= high
            hits += compare.verdict(ratio, low, high, True) == expect
        check(0.92 <= covered / float(trials) <= 0.995, "Welch, ratio %.2f: the interval covers "
              "the truth in %.1f%% of studies" % (truth, 100.0 * covered / trials))
        check(hits >= 0.85 * trials, "Welch, ratio %.2f: '%s' in %d of %d" % (truth, expect, hits,
                                                                           trials))
    check(compare.welch([1.0], [1.1, 1.2])[1] is None, "one process a side gives no interval")


def write_runs(tmp, name, template, medians, statuses=None, drop=None):
    """Runs of one study as run --processes leaves them (NAME.process-K.csv
    and .json), made from a real run's files: row r of run k timed
    medians[k][r], its status statuses[(k, r)], row `drop` (k, r) left out."""
    header = open(template + ".csv").readline().strip().split(",")
    doc = json.load(open(template + ".json"))
    paths = ([], [])
    for k, times in enumerate(medians):
        rows = []
        for r, t in enumerate(times):
            if drop != (k, r):
                rows.append(dict(doc["rows"][r], time_ms_median=t, noisy=0,  # the runs' own spread
                                 status=(statuses or {}).get((k, r), "ok")))
        base = os.path.join(tmp, "%s.process-%d" % (name, k + 1))
        with open(base + ".csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore", lineterminator="\n")
            w.writeheader()  # the CSV's samples are a cell of times separated by spaces
            w.writerows(dict(x, samples_ms=" ".join(str(v) for v in x.get("samples_ms", [])))
                        for x in rows)
        with open(base + ".json", "w") as f:
            json.dump(dict(doc, rows=rows), f)
        paths[0].append(base + ".csv")
        paths[1].append(base + ".json")
    return paths


def test_combine(tmp):
    """merge --processes: each row is the middle run's, the JSON keeps every
    run's median and their spread, a spread over 10% is noisy, a row wrong
    in one run is wrong, a run missing a row is refused."""
    template = os.path.join(tmp, "template")
    spbench("run", "--kernels", "csr.serial,csr.omp.nnz", "--threads", "1", "--reps", "3",
            "--min-time", "0", "--quiet", "--csv", template + ".csv", "--json",
            template + ".json", os.path.join(SOURCE, "matrices", "cage4.mtx.gz"))
    csvs, jsons = write_runs(tmp, "c", template, [[1.0, 2.0], [1.2, 2.02], [1.1, 2.01]],
                             statuses={(2, 1): "wrong"})
    out_csv, out_json = os.path.join(tmp, "c.csv"), os.path.join(tmp, "c.json")
    r = spbench("merge", "--processes", out_csv, *csvs, "--json", out_json, *jsons)
    rows = json.load(open(out_json))["rows"] if r.returncode == 0 else []
    check(r.returncode == 0 and len(rows) == 2 and "spread" in r.stdout,
          "three runs combine: %s %s" % (r.stdout, r.stderr))
    if len(rows) == 2:
        check(rows[0]["time_ms_median"] == 1.1 and rows[0]["process_medians_ms"] == [1.0, 1.2, 1.1]
              and abs(rows[0]["process_spread"] - 0.2 / 1.1) < 1e-6 and rows[0]["noisy"] == 1,
              "the middle median kept, every run's median listed, 18%% apart is noisy: %s"
              % rows[0])
        check(rows[1]["status"] == "wrong", "a row wrong in one run is wrong: %s" % rows[1])
    check([r_["noisy"] for r_ in read_rows(out_csv)] == ["1", "0"], "the CSV marks it too")
    csvs, jsons = write_runs(tmp, "d", template, [[1.0, 2.0], [1.0, 2.0]], drop=(1, 1))
    r = spbench("merge", "--processes", os.path.join(tmp, "d.csv"), *csvs)
    check(r.returncode == 2 and "resume it first" in r.stderr and
          not os.path.exists(os.path.join(tmp, "d.csv")),
          "a run without one of the rows is refused, nothing written: %s" % r.stderr)


def test_processes(tmp):
    """run --processes 3 on a bundled matrix: one row per key, three runs'
    medians, compare uses them; a stop in the second run and --resume."""
    cage = os.path.join(SOURCE, "matrices", "cage4.mtx.gz")
    common = ["--kernels", "csr.serial,csr.omp.nnz", "--threads", "1", "--reps", "5",
              "--min-time", "0", "--quiet"]
    r = spbench("run", "--processes", "3", *common, cage)
    check(r.returncode == 2 and "give --csv" in r.stderr, "--processes needs --csv: %s" % r.stderr)
    docs = []
    for k in range(2):
        out = os.path.join(tmp, "p%d" % k)
        r = spbench("run", "--processes", "3", *common, "--csv", out + ".csv", "--json",
                    out + ".json", cage)
        rows = read_rows(out + ".csv")
        doc = json.load(open(out + ".json")) if r.returncode == 0 else {"rows": []}
        docs.append(out + ".json")
        check(r.returncode == 0 and len(rows) == 2 and len({(x["kernel"]) for x in rows}) == 2
              and all(len(x["process_medians_ms"]) == 3 for x in doc["rows"]) and
              os.path.exists(out + ".process-3.json") and "between the 3 runs" in r.stdout,
              "three processes, one row per kernel with three medians: %s %s" % (r.stdout[-300:],
                                                                               r.stderr))
    r = spbench("compare", *docs)
    check(r.returncode == 0 and "2 of 2 pairs: intervals from the spread between processes" in
          r.stdout, "compare uses the process medians: %s" % r.stdout)


def test_processes_stop(tmp):
    """A stop in the second of three processes: nothing combined, the
    launcher's resume line, which finishes and combines each row once."""
    out = os.path.join(tmp, "stop.csv")
    args = [SPBENCH, "run", "--processes", "3", "--kernels", "csr.serial", "--reps", "3",
            "--min-time", "0.25", "--quiet", "--csv", out] + \
        ["gen:lap2d:%d" % n for n in (100, 101, 102, 103)]
    job = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    second = os.path.join(tmp, "stop.process-2.csv")
    deadline = time.time() + 120
    while time.time() < deadline and job.poll() is None and \
            not (os.path.exists(second) and len(open(second).readlines()) >= 2):
        time.sleep(0.05)
    os.killpg(job.pid, signal.SIGINT)  # Ctrl-C reaches the terminal's process group
    stdout, stderr = job.communicate(timeout=120)
    hint = [ln.strip() for ln in stderr.splitlines() if " run --processes" in ln]
    check(job.returncode == 130 and "stopped" in stderr and hint and "--processes 3" in hint[-1]
          and hint[-1].endswith("--resume") and not os.path.exists(out),
          "a stop in the second run: 130, nothing combined, the launcher's resume line: %s"
          % stderr)
    if hint:
        r = subprocess.run(hint[-1].split(), capture_output=True, text=True, timeout=300)
        rows = read_rows(out) if os.path.exists(out) else []
        check(r.returncode == 0 and len(rows) == 4 and len({x["matrix"] for x in rows}) == 4,
              "--resume finishes the runs and combines each row once: %s" % r.stderr)


def main():
    run_tests([test_coverage, test_command, test_real_runs, test_welch, test_combine,
               test_processes, test_processes_stop],
              "spb_e2e_compare_", globals())


main()
