"""Sharded studies without Slurm: N shards as separate processes merge into
exactly a single run's rows (matrix, kernel, threads, status), none missing,
none twice; a shard killed midway and resumed still merges exactly; merging
a shard twice is refused; the split is stable when the list grows at its end.

usage: e2e_shard.py SPBENCH SOURCE_DIR
"""
import json
import os
import shutil
import signal
import subprocess
import time

from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
MATRICES = [BUNDLED, "gen:lap2d:40"]
OPTIONS = ["--kernels", "csr.*,hll.serial.*", "--threads", "1,2", "--reps", "2", "--min-time",
           "0", "--quiet"]


def keys(rows):
    return sorted((r["matrix"], r["kernel"], r["threads"], r["status"]) for r in rows)


def run_shards(tmp, n, extra=()):
    procs = [subprocess.Popen([SPBENCH, "run", *OPTIONS, *extra, "--shard", "%d/%d" % (i, n),
                               "--csv", os.path.join(tmp, "s%d.csv" % i),
                               "--json", os.path.join(tmp, "s%d.json" % i), *MATRICES],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for i in range(1, n + 1)]
    return [p.wait(timeout=600) for p in procs]


def merge(tmp, n, out="all"):
    csvs = [os.path.join(tmp, "s%d.csv" % i) for i in range(1, n + 1)]
    jsons = [os.path.join(tmp, "s%d.json" % i) for i in range(1, n + 1)]
    return spbench("merge", os.path.join(tmp, out + ".csv"), *csvs,
                   "--json", os.path.join(tmp, out + ".json"), *jsons)


def test_shards_merge(tmp):
    single = os.path.join(tmp, "single.csv")
    spbench("run", *OPTIONS, "--csv", single, "--json", os.path.join(tmp, "single.json"),
            *MATRICES)
    codes = run_shards(tmp, 3)
    check(all(c == 0 for c in codes), "three shards run: %s" % codes)
    r = merge(tmp, 3)
    check(r.returncode == 0, "spbench merge: %s" % r.stderr)
    merged = read_rows(os.path.join(tmp, "all.csv"))
    check(keys(merged) == keys(read_rows(single)),
          "the merged rows are a single run's (%d vs %d)" % (len(merged), len(read_rows(single))))
    check(all(row["host"] for row in merged), "every row names its host")
    doc = json.load(open(os.path.join(tmp, "all.json")))
    check(len(doc["rows"]) == len(merged) and len(doc["shards"]) == 3
          and all("machine" in s and "spbench" in s for s in doc["shards"]),
          "the merged JSON keeps every shard's header and all rows")
    r = spbench("compare", os.path.join(tmp, "single.json"), os.path.join(tmp, "all.json"),
                "--strict")
    check(r.returncode == 0 and "studies differ" not in r.stdout + r.stderr,
          "the merged study is the single run's to compare --strict (its shards agree): %d %s"
          % (r.returncode, (r.stdout + r.stderr)[-400:]))
    doc["shards"][1]["spbench"]["git_commit"] = "another"
    mixed = os.path.join(tmp, "mixed.json")
    with open(mixed, "w") as f:
        json.dump(doc, f)
    r = spbench("compare", os.path.join(tmp, "single.json"), mixed, "--strict")
    check(r.returncode == 1 and "commit" in r.stderr and "another" in r.stderr,
          "a shard of another commit is a difference: %d %s" % (r.returncode, r.stderr[-300:]))
    if shutil.which("gnuplot"):
        r = spbench("plot", os.path.join(tmp, "all.csv"), os.path.join(tmp, "charts"))
        check(r.returncode == 0, "plot draws the merged file: %s" % r.stderr[-300:])
    else:
        skip("no gnuplot: plot of the merged file (apt-get install gnuplot-nox)", "gnuplot")

    s1 = os.path.join(tmp, "s1.csv")
    r = spbench("merge", os.path.join(tmp, "twice.csv"), s1, os.path.join(tmp, "s2.csv"), s1)
    check(r.returncode == 2 and "measured twice" in r.stderr and "s1.csv" in r.stderr,
          "a shard merged twice is refused, the rows named: %s" % r.stderr.strip())
    return single


def test_killed_shard(tmp, shards_merge):
    single = shards_merge
    # shard 2 runs slowly so that it can be killed part-way, then is resumed
    slow = ["--reps", "40", "--min-time", "0.02"]
    out = os.path.join(tmp, "s2.csv")
    os.remove(out)
    proc = subprocess.Popen([SPBENCH, "run", *OPTIONS, *slow, "--force", "--shard", "2/3",
                             "--csv", out,
                             "--json", os.path.join(tmp, "s2.json"), *MATRICES],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if os.path.exists(out) and sum(1 for _ in open(out)) > 3:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(read_rows(out))
    r = spbench("run", *OPTIONS, *slow, "--shard", "2/3", "--resume", "--csv", out,
                "--json", os.path.join(tmp, "s2.json"), *MATRICES)
    check(r.returncode == 0, "the killed shard resumes: %s" % r.stderr[-200:])
    for i in (1, 3):  # the study's other shards, measured as shard 2 was (merge checks)
        spbench("run", *OPTIONS, *slow, "--force", "--shard", "%d/3" % i, "--csv",
                os.path.join(tmp, "s%d.csv" % i), "--json", os.path.join(tmp, "s%d.json" % i),
                *MATRICES)
    r = merge(tmp, 3, "again")
    merged = read_rows(os.path.join(tmp, "again.csv"))
    check(r.returncode == 0 and keys(merged) == keys(read_rows(single)),
          "killed after %d rows and resumed, the shard still merges exactly" % partial)


def test_stable_split(tmp):
    """Adding a matrix at the end of the list leaves the others where they were."""
    files = sorted(os.path.join(BUNDLED, f) for f in os.listdir(BUNDLED) if f.endswith(".mtx.gz"))
    before, after = {}, {}
    for label, items, into in (("a", files[:-1], before), ("b", files, after)):
        for i in (1, 2, 3):
            out = os.path.join(tmp, "%s%d.csv" % (label, i))
            spbench("run", "--kernels", "csr.serial", "--reps", "1", "--min-time", "0", "--quiet",
                    "--shard", "%d/3" % i, "--csv", out, *items)
            into[i] = {row["matrix"] for row in read_rows(out)}
    added = os.path.basename(files[-1]).replace(".mtx.gz", "")
    check(all(before[i] == after[i] - {added} for i in (1, 2, 3)),
          "the split is stable as the list grows: %s vs %s" % (before, after))
    check(all(before[i] for i in (1, 2, 3)), "every shard gets matrices: %s" % before)
    r = spbench("run", "--shard", "4/3", files[0])
    check(r.returncode == 2 and "I/N" in r.stderr, "--shard 4/3 is refused")


def main():
    run_tests([test_shards_merge, test_killed_shard, test_stable_split],
              "spb_e2e_shard_", globals())


main()
