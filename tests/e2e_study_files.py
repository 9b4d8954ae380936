"""End-to-end tests of a study's files across the commands around it: the
samples that compare lives on survive --resume and kill -9 (the CSV keeps
them), a JSON is replaced only by a whole one (a full disk, a kill), merge
and compare never write over an input or an existing file without --force
and leave no temporary file on a signal, merge refuses a JSON shard that
is not its CSV's, a run's JSON reads as its CSV in the development
scripts, compare's gate cannot pass by accident and its reader
refuses malformed rows in one line, fp32 rows of a matrix beyond fp32's
range are skipped (not wrong), and a stop during the bandwidth passes is
heard at once.

usage: e2e_study_files.py SPBENCH SOURCE_DIR
"""
import csv
import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

from spbtest import SOURCE, SPBENCH, check, read_rows, run_tests, skip, spbench

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--kernels", "csr.serial,hll.serial.row", "--threads", "1", "--reps", "5",
        "--min-time", "0", "--warmup", "0", "--energy-s", "0", "--quiet"]
TWO = [os.path.join(BUNDLED, n) for n in ("cage4.mtx.gz", "west0479.mtx.gz")]


def json_doc(path):
    with open(path) as f:
        return json.load(f)


def samples_of(path):
    """{(matrix, kernel): samples} of a results JSON's ok rows."""
    return {(r["matrix"], r["kernel"]): r.get("samples_ms") for r in json_doc(path)["rows"]
            if r["status"] == "ok"}


def limited(limit):
    """A preexec_fn capping the files a child writes at `limit` bytes: a
    write past it fails (EFBIG), as on a full disk."""
    def cap():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return cap


def spbench_limited(limit, *args):
    return subprocess.run([SPBENCH, *args], capture_output=True, text=True, timeout=900,
                          preexec_fn=limited(limit))


def test_resume_keeps_samples(tmp):
    """Every ok row keeps its samples through --resume (the CSV holds them:
    the rows are rebuilt from it), and compare gates on the resumed JSON."""
    csv_path, json_path = os.path.join(tmp, "s.csv"), os.path.join(tmp, "s.json")
    r = spbench("run", *FAST, "--csv", csv_path, "--json", json_path, *TWO)
    check(r.returncode == 0, "the study: %s" % r.stderr)
    before = samples_of(json_path)
    check(len(before) == 4 and all(len(s or []) == 5 for s in before.values()),
          "4 ok rows with 5 samples each: %s" % before)
    rows = read_rows(csv_path)
    check(all(len(x.get("samples_ms", "").split()) == 5 for x in rows),
          "the CSV holds each row's samples: %s" % [x.get("samples_ms") for x in rows])
    r = spbench("run", *FAST, "--resume", "--csv", csv_path, "--json", json_path, *TWO)
    after = samples_of(json_path)
    check(r.returncode == 0 and after == before,
          "--resume keeps every row's samples: %s against %s" % (after, before))
    slow = os.path.join(tmp, "slow.json")
    doc = json_doc(json_path)
    for row in doc["rows"]:
        row["samples_ms"] = [5 * v for v in row.get("samples_ms", [])]
        row["time_ms_median"] *= 5
    with open(slow, "w") as f:
        json.dump(doc, f)
    r = spbench("compare", json_path, slow, "--fail-if-slower", "5")
    check(r.returncode == 1 and "slower by more than 5%" in r.stderr,
          "the gate on the resumed study fails a 5x slower one: %d %s" % (r.returncode,
                                                                          r.stderr))
    return csv_path, json_path


def test_kill_leaves_no_cut_json(tmp):
    """kill -9 of a plain run leaves no --json (never an empty or cut one);
    --resume then writes the JSON whole, every ok row with its samples."""
    csv_path, json_path = os.path.join(tmp, "k.csv"), os.path.join(tmp, "k.json")
    items = TWO + ["gen:lap2d:200", "gen:lap2d:210", "gen:lap2d:220"]
    args = [SPBENCH, "run", *FAST[:-5], "--reps", "20", "--min-time", "0.2", "--energy-s", "0",
            "--quiet", "--csv", csv_path, "--json", json_path, *items]
    job = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and job.poll() is None:
        time.sleep(0.1)
        if os.path.exists(csv_path) and len(read_rows(csv_path)) >= 1:
            break
    job.kill()
    job.wait()
    check(len(read_rows(csv_path)) >= 1, "the study was killed after a row")
    check(not os.path.exists(json_path), "no --json after kill -9 (it had none before): %s"
          % (os.path.getsize(json_path) if os.path.exists(json_path) else ""))
    r = spbench("run", *FAST[:-5], "--reps", "20", "--min-time", "0.2", "--energy-s", "0",
                "--quiet", "--resume", "--csv", csv_path, "--json", json_path, *items)
    rows = json_doc(json_path)["rows"] if os.path.exists(json_path) else []
    check(r.returncode == 0 and len(rows) == 2 * len(items) and
          all(x.get("samples_ms") for x in rows if x["status"] == "ok"),
          "the resumed JSON holds every row, each ok one with samples: %d rows %s" %
          (len(rows), r.stderr[-300:]))
    check(not [n for n in os.listdir(tmp) if n.startswith("k.json.tmp.")],
          "the killed run's temporary JSON is swept: %s" % os.listdir(tmp))


def test_json_write_failure(tmp, resume_keeps_samples):
    """A JSON whose writing fails (a full disk: here a file-size limit)
    never replaces --json: a resume keeps the whole JSON it had, a new
    study leaves none, and the run says the write failed."""
    csv_path, json_path = resume_keeps_samples
    csv_copy, json_copy = os.path.join(tmp, "d.csv"), os.path.join(tmp, "d.json")
    shutil.copy(csv_path, csv_copy)
    shutil.copy(json_path, json_copy)
    whole = open(json_copy, "rb").read()
    limit = max(len(whole) // 2, os.path.getsize(csv_copy) + 1024)
    check(limit < len(whole), "the limit (%d) is below the JSON's size (%d)" % (limit, len(whole)))
    r = spbench_limited(limit, "run", *FAST, "--resume", "--csv", csv_copy, "--json", json_copy,
                        *TWO)
    check(r.returncode != 0 and "write failed" in r.stderr and
          open(json_copy, "rb").read() == whole,
          "a resume whose JSON write fails keeps the JSON whole: exit %d, %s, %d bytes" %
          (r.returncode, r.stderr.strip()[-200:], os.path.getsize(json_copy)))
    fresh_csv, fresh_json = os.path.join(tmp, "e.csv"), os.path.join(tmp, "e.json")
    r = spbench_limited(limit, "run", *FAST, "--csv", fresh_csv, "--json", fresh_json, *TWO)
    check(r.returncode != 0 and not os.path.exists(fresh_json),
          "a new study whose JSON write fails leaves no JSON: exit %d, %s" %
          (r.returncode, r.stderr.strip()[-200:]))
    check(not [n for n in os.listdir(tmp) if ".json.tmp." in n],
          "no temporary JSON is left: %s" % os.listdir(tmp))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def shards_of(tmp, csv_path, json_path, name):
    """The study cut in two shards (its rows split), CSV and JSON each."""
    rows = read_rows(csv_path)
    with open(csv_path) as f:
        header = next(csv.reader(f))
    doc = json_doc(json_path)
    paths = []
    for k, part in enumerate((rows[:2], rows[2:])):
        c, j = os.path.join(tmp, "%s%d.csv" % (name, k)), os.path.join(tmp, "%s%d.json" % (name, k))
        write_csv(c, header, part)
        mine = {(x["matrix"], x["kernel"]) for x in part}
        with open(j, "w") as f:
            json.dump(dict(doc, rows=[x for x in doc["rows"]
                                      if (x["matrix"], x["kernel"]) in mine]), f)
        paths.append((c, j))
    return paths


def test_merge_outputs(tmp, resume_keeps_samples):
    """merge refuses an output that is an input (OUT forgotten, as a glob
    gives it; a JSON output over a shard) and an existing output without
    --force; the merged JSON keeps every row's samples."""
    csv_path, json_path = resume_keeps_samples
    (c0, j0), (c1, j1) = shards_of(tmp, csv_path, json_path, "x")
    before = open(c0, "rb").read()
    r = spbench("merge", c0, c1)
    check(r.returncode != 0 and open(c0, "rb").read() == before,
          "merge x0.csv x1.csv (no OUT) is refused, x0.csv untouched: %s" % r.stderr.strip())
    r = spbench("merge", os.path.join(tmp, "o.csv"), c0, c1, "--json", j0, j0, j1)
    check(r.returncode != 0 and "input" in r.stderr and not os.path.exists(
        os.path.join(tmp, "o.csv")), "a JSON output over a shard is refused: %s" % r.stderr.strip())
    out_csv, out_json = os.path.join(tmp, "m.csv"), os.path.join(tmp, "m.json")
    r = spbench("merge", out_csv, c0, c1, "--json", out_json, j0, j1)
    check(r.returncode == 0, "two shards merge: %s" % r.stderr)
    merged = samples_of(out_json) if os.path.exists(out_json) else {}
    check(merged == samples_of(json_path), "the merged JSON keeps every row's samples")
    check(os.path.exists(out_csv) and all(x.get("samples_ms") for x in read_rows(out_csv)),
          "so does the merged CSV")
    if not os.path.exists(out_csv):
        return
    stamp = open(out_csv, "rb").read()
    r = spbench("merge", out_csv, c0, c1)
    check(r.returncode != 0 and "--force" in r.stderr and open(out_csv, "rb").read() == stamp,
          "an existing output is kept without --force: %s" % r.stderr.strip())
    r = spbench("merge", "--force", out_csv, c0, c1)
    check(r.returncode == 0, "--force replaces it: %s" % r.stderr.strip())


def test_merge_json_checked(tmp, resume_keeps_samples):
    """A JSON shard is the CSV shard's: another study's (other
    measured_under, times x50) is refused, naming the difference."""
    csv_path, json_path = resume_keeps_samples
    (c0, j0), (c1, j1) = shards_of(tmp, csv_path, json_path, "y")
    doc = json_doc(j1)
    for row in doc["rows"]:
        row["measured_under"] = "tol=1e-10 warmup=9"
        row["time_ms_median"] *= 50
    with open(j1, "w") as f:
        json.dump(doc, f)
    out = os.path.join(tmp, "y.csv")
    r = spbench("merge", out, c0, c1, "--json", os.path.join(tmp, "y.json"), j0, j1)
    check(r.returncode == 2 and "differ" in r.stderr and not os.path.exists(out),
          "a JSON shard unlike its CSV is refused: %s" % r.stderr.strip())


def test_merge_signal(tmp, resume_keeps_samples):
    """SIGTERM at any moment of a merge of large shards: no traceback, no
    temporary file left, exit 128 + 15 (-15 before the merge could catch
    it, 0 when it had finished), and the output whole or absent."""
    csv_path, json_path = resume_keeps_samples
    rows = read_rows(csv_path)
    with open(csv_path) as f:
        header = next(csv.reader(f))
    shards = []
    for k in range(2):
        path = os.path.join(tmp, "big%d.csv" % k)
        many = []
        for n in range(20000):
            for x in rows:
                many.append(dict(x, matrix="m%d_%d_%s" % (k, n, x["matrix"])))
        write_csv(path, header, many)
        shards.append(path)
    out = os.path.join(tmp, "bigout.csv")

    def merge_and_stop(delay=None):
        """A merge stopped by SIGTERM after `delay` seconds, or once its
        temporary output appears (its write under way): exit status, stderr."""
        if os.path.exists(out):
            os.remove(out)
        job = subprocess.Popen([SPBENCH, "merge", out, *shards], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.time() + (delay if delay is not None else 300)
        while time.time() < deadline and job.poll() is None and (delay is not None or not [
                n for n in os.listdir(tmp) if n.startswith("bigout.csv.tmp")]):
            time.sleep(0.002)
        job.send_signal(signal.SIGTERM)
        _, err = job.communicate(timeout=300)
        left = [n for n in os.listdir(tmp) if n.startswith("bigout.csv.tmp")]
        return job.returncode, err, left

    code, err, left = merge_and_stop()
    check(code == 128 + 15 and "Traceback" not in err and not left and not os.path.exists(out),
          "SIGTERM during the write: exit 143, no temporary file, no output: %d %s %s" %
          (code, left, err[-300:]))
    for delay in (0.3, 1.5, 4.0):  # at any other moment: never a traceback or a leftover
        code, err, left = merge_and_stop(delay)
        check("Traceback" not in err and not left and code in (0, 128 + 15, -15),
              "SIGTERM after %.1f s: exit %d, temporaries %s, %s" % (delay, code, left,
                                                                     err[-300:]))
        if os.path.exists(out):
            check(len(read_rows(out)) == 2 * 20000 * len(rows), "the output is whole")


def test_compare_outputs(tmp, resume_keeps_samples):
    """compare never writes over BASE or NEW, nor over an existing file
    without --force; a write that fails (a full disk) names the file and
    leaves nothing."""
    csv_path, json_path = resume_keeps_samples
    base = os.path.join(tmp, "b.json")
    shutil.copy(json_path, base)
    stamp = open(base, "rb").read()
    r = spbench("compare", base, json_path, "--csv", base)
    check(r.returncode != 0 and open(base, "rb").read() == stamp and "input" in r.stderr,
          "--csv naming BASE is refused: %s" % r.stderr.strip())
    out = os.path.join(tmp, "cmp.csv")
    r = spbench("compare", base, json_path, "--csv", out)
    check(r.returncode == 0 and os.path.exists(out), "compare --csv writes: %s" % r.stderr)
    pairs = read_rows(out) if os.path.exists(out) else []
    check(pairs and all(abs(float(p["median_ratio"]) - float(p["new_ms"]) / float(p["base_ms"]))
                        < 1e-9 for p in pairs),
          "median_ratio is new_ms / base_ms: %s" % [(p["new_ms"], p["base_ms"],
                                                     p["median_ratio"]) for p in pairs])
    r = spbench("compare", base, json_path, "--csv", out)
    check(r.returncode != 0 and "--force" in r.stderr, "an existing --csv needs --force: %s"
          % r.stderr.strip())
    full = os.path.join(tmp, "full.json")
    r = spbench_limited(512, "compare", base, json_path, "--json", full)
    check(r.returncode == 1 and "full.json" in r.stderr and not os.path.exists(full) and
          not [n for n in os.listdir(tmp) if n.startswith("full.json.tmp")],
          "a failed write names the file and leaves nothing: %s" % r.stderr.strip())


def synthetic(path, rows, fmt="json"):
    """A study of the given rows (each a dict of the fields that differ), as
    a JSON, a CSV, or a CSV of an older spbench (fmt "old": no samples)."""
    full = []
    for k, extra in enumerate(rows):
        row = {"matrix": "m%d" % k, "kernel": "csr.a", "operation": "spmv",
               "precision": "fp64", "threads": 1, "ranks": 1, "settings": "s",
               "source_id": "size=%d" % k, "status": "ok", "time_ms_median": 1.0,
               "noisy": 0, "host": "h", "measured_under": "u",
               "samples_ms": [1.0 + 0.01 * i for i in range(12)]}
        row.update(extra)
        full.append(row)
    if fmt == "json":
        with open(path, "w") as f:
            json.dump({"format": "spbench-results", "format_version": 1, "rows": full}, f)
        return
    for row in full:
        samples = row.pop("samples_ms")
        if fmt == "csv":
            row["samples_ms"] = " ".join(str(v) for v in samples)
    write_csv(path, list(full[0]), full)


def test_gate(tmp):
    """--fail-if-slower cannot pass by accident: CSVs (with samples) gate
    like JSONs; CSVs without samples, non-finite or negative percentages,
    and NEW rows without a sound time are refused; too few samples are
    judged by their best times; a row broken in NEW fails it."""
    base, new = os.path.join(tmp, "g_base.csv"), os.path.join(tmp, "g_new.csv")
    synthetic(base, [{}, {}], "csv")
    synthetic(new, [{"time_ms_median": 10.0, "samples_ms": [10.0 + 0.1 * i for i in range(12)]},
                    {}], "csv")
    r = spbench("compare", base, new, "--fail-if-slower", "5")
    check(r.returncode == 1 and "m0" in r.stderr, "two CSVs, one row 10x slower: the gate fails: "
          "%d %s" % (r.returncode, r.stderr.strip()))
    old_base, old_new = os.path.join(tmp, "o_base.csv"), os.path.join(tmp, "o_new.csv")
    synthetic(old_base, [{}, {}], "old")
    synthetic(old_new, [{"time_ms_median": 10.0}, {}], "old")
    r = spbench("compare", old_base, old_new, "--fail-if-slower", "5")
    check(r.returncode == 1 and "cannot judge" in r.stderr,
          "CSVs without samples: the gate refuses to judge: %d %s" % (r.returncode, r.stderr))
    r = spbench("compare", old_base, old_new)
    check(r.returncode == 0 and "keeps no samples" in r.stdout, "without a gate: ratios only")
    for pct in ("nan", "inf", "-50", "-inf"):
        r = spbench("compare", base, base, "--fail-if-slower", pct)
        check(r.returncode == 2 and "percentage" in r.stderr,
              "--fail-if-slower %s is refused: %d %s" % (pct, r.returncode, r.stderr.strip()))
    for bad in (-1.0, float("nan"), float("inf")):
        path = os.path.join(tmp, "bad.json")
        synthetic(path, [{"time_ms_median": bad}, {}])
        base_json = os.path.join(tmp, "g_base.json")
        synthetic(base_json, [{}, {}])
        r = spbench("compare", base_json, path, "--fail-if-slower", "5")
        check(r.returncode == 2 and "row 1" in r.stderr and "Traceback" not in r.stderr,
              "a NEW row timed %r is refused, naming it: %d %s" % (bad, r.returncode,
                                                                    r.stderr.strip()))
    few_base, few_new = os.path.join(tmp, "f_base.json"), os.path.join(tmp, "f_new.json")
    synthetic(few_base, [{"samples_ms": [1.0]}])
    synthetic(few_new, [{"samples_ms": [3.0], "time_ms_median": 3.0}])
    r = spbench("compare", few_base, few_new, "--fail-if-slower", "5")
    check(r.returncode == 1 and "best new/base 3.000" in r.stderr,
          "one sample a side, 3x slower: judged by the best times, the gate fails: %d %s"
          % (r.returncode, r.stderr.strip()))
    broken = os.path.join(tmp, "broken.json")
    synthetic(broken, [{"status": "wrong"}, {}])
    r = spbench("compare", base_json, broken, "--fail-if-slower", "5")
    check(r.returncode == 1 and "wrong in NEW" in r.stderr,
          "a row ok in BASE and wrong in NEW fails the gate: %d %s" % (r.returncode, r.stderr))


def test_compare_malformed(tmp):
    """Malformed rows are refused in one line naming the file and the row
    (no traceback); a row twice is 'row measured twice'."""
    good = os.path.join(tmp, "ok.json")
    synthetic(good, [{}, {}])
    cases = {"twice": ([{}, {"matrix": "m0", "source_id": "size=0"}], "measured twice"),
             "samples": ([{"samples_ms": [None, "x"]}], "samples_ms"),
             "median": ([{"time_ms_median": "fast"}], "time_ms_median"),
             "bool": ([{"samples_ms": [True, 1.0]}], "samples_ms")}
    for name, (rows, needle) in cases.items():
        path = os.path.join(tmp, "mal_%s.json" % name)
        synthetic(path, rows)
        r = spbench("compare", good, path)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and needle in lines[0] and
              "mal_%s.json" % name in lines[0], "%s: one line naming the file: %s"
              % (name, r.stderr.strip()))
    path = os.path.join(tmp, "mal_dict.json")
    with open(path, "w") as f:
        json.dump({"format": "spbench-results", "format_version": 1, "rows": {"a": 1}}, f)
    r = spbench("compare", good, path)
    check(r.returncode == 2 and "Traceback" not in r.stderr and "not a list" in r.stderr,
          "rows as an object: %s" % r.stderr.strip())


def test_one_reader(tmp):
    """Every command that reads a results file reads it through the
    package's one reader (spbench.results): a JSON of a later format_version,
    one without a format_version, and one that is not a results file are
    refused by compare, report and merge alike, in one line naming the file;
    plot, which draws a CSV, says so of a JSON. No module of the package
    edits sys.path: they import each other as spbench.NAME."""
    good, good_csv = os.path.join(tmp, "good.json"), os.path.join(tmp, "good.csv")
    r = spbench("run", *FAST, "--csv", good_csv, "--json", good, TWO[0])
    check(r.returncode == 0, "a study to spoil: %s" % r.stderr[-300:])
    doc = json_doc(good)
    spoiled = {"later": ({**doc, "format_version": 2}, "format_version 2, written by a later"),
               "unversioned": ({k: v for k, v in doc.items() if k != "format_version"},
                               "format_version is None"),
               "foreign": ({"format": "other", "rows": []}, "not a spbench results JSON")}
    for name, (content, needle) in spoiled.items():
        path = os.path.join(tmp, "%s.json" % name)
        with open(path, "w") as f:
            json.dump(content, f)
        for command in (["compare", good, path],
                        ["report", path, "-o", os.path.join(tmp, "%s.html" % name)],
                        ["merge", os.path.join(tmp, "read_m.csv"), good_csv,
                         "--json", os.path.join(tmp, "read_m.json"), path]):
            r = spbench(*command)
            lines = r.stderr.strip().splitlines()
            check(r.returncode == 2 and len(lines) == 1 and needle in lines[0] and
                  "%s.json" % name in lines[0], "%s refuses the %s JSON in one line: %s"
                  % (command[0], name, r.stderr.strip()))
    r = spbench("plot", good, os.path.join(tmp, "charts"))
    check(r.returncode == 2 and "is a JSON; this command reads a results CSV" in r.stderr,
          "plot names what it reads: %s" % r.stderr.strip())
    edits = []
    for folder, _, names in os.walk(os.path.join(SOURCE, "python", "spbench")):
        for name in names:
            if name.endswith(".py") and "sys.path" in open(os.path.join(folder, name)).read():
                edits.append(name)
    check(not edits, "no module of the package edits sys.path: %s" % edits)


def test_json_reads_as_csv(tmp):
    """A run kept as its JSON alone (docs/results keeps no CSV copy) reads
    as its CSV does in the scripts that quote figures from it: the same
    SpGEMM targets from the CSV, the JSON and the JSON gzip-compressed."""
    csv_path, json_path = os.path.join(tmp, "sp.csv"), os.path.join(tmp, "sp.json")
    r = spbench("run", "--op", "spgemm", "--kernels", "spgemm.gustavson,spgemm.hash",
                "--threads", "1", "--reps", "3", "--min-time", "0", "--energy-s", "0", "--quiet",
                "--csv", csv_path, "--json", json_path, *TWO)
    check(r.returncode == 0, "the SpGEMM study: %s" % r.stderr[-300:])
    with open(json_path, "rb") as f, gzip.open(json_path + ".gz", "wb") as g:
        g.write(f.read())
    script = os.path.join(SOURCE, "scripts", "dev", "spgemm_targets.py")
    out = {}
    for path in (csv_path, json_path, json_path + ".gz"):
        p = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
        check(p.returncode == 0, "spgemm_targets.py %s: %s" % (path, p.stderr[-300:]))
        out[path] = p.stdout
    check("spgemm.gustavson vs spgemm.hash" in out[csv_path] and "over 2" in out[csv_path],
          "the targets of 2 products from the CSV: %s" % out[csv_path])
    check(out[json_path] == out[csv_path] == out[json_path + ".gz"],
          "the JSON reads as the CSV: %s against %s" % (out[json_path], out[csv_path]))


def test_compare_messages(tmp):
    """compare says what is wrong: an option without its value; no row
    matching because the keys differ (named); --kernels naming a kernel
    the file lacks; a long kernel name printed whole."""
    base, new = os.path.join(tmp, "k_base.json"), os.path.join(tmp, "k_new.json")
    synthetic(base, [{}, {}])
    synthetic(new, [{"settings": "s max_kernel_ms=1000"}, {"settings": "s max_kernel_ms=1000"}])
    r = spbench("compare", base, new, "--fail-if-slower")
    check(r.returncode == 2 and "--fail-if-slower needs a value" in r.stderr,
          "an option without its value: %s" % r.stderr.strip())
    r = spbench("compare", base, new)
    check(r.returncode == 2 and "settings: s in BASE, s max_kernel_ms=1000 in NEW" in r.stderr,
          "no match: the differing key named: %s" % r.stderr.strip())
    r = spbench("compare", base, "--kernels", "csr.a,auto.cuda")
    check(r.returncode == 2 and "no ok row of kernel auto.cuda" in r.stderr,
          "--kernels naming a kernel the file lacks: %s" % r.stderr.strip())
    longer = os.path.join(tmp, "k_long.json")
    name = "csr.cuda.stream.rcm.pattern.longest"
    synthetic(longer, [{"kernel": name}])
    r = spbench("compare", longer, longer)
    check(r.returncode == 0 and name in r.stdout, "a long kernel name whole: %s" % r.stdout)


def test_compare_chart(tmp):
    """compare --chart draws every kernel (seven here; it once kept six), on
    a log axis, its labels telling rows of one matrix apart (t2) and noisy
    pairs marked."""
    if not shutil.which("gnuplot"):
        skip("no gnuplot: the compare chart", "gnuplot")
        return
    rows = [{"matrix": "m%d" % m, "kernel": "kern.%d" % k, "threads": t,
             "source_id": "size=%d" % m, "noisy": int(k == 3)}
            for k in range(7) for m in range(2) for t in (1, 2)]
    base, new = os.path.join(tmp, "c_base.json"), os.path.join(tmp, "c_new.json")
    synthetic(base, [dict(r) for r in rows])
    synthetic(new, [dict(r, time_ms_median=1.1, samples_ms=[1.1 + 0.01 * i for i in range(12)])
                    for r in rows])
    outdir = os.path.join(tmp, "cmp")
    r = spbench("compare", base, new, "--chart", outdir)
    svg = open(os.path.join(outdir, "compare.svg")).read() if r.returncode == 0 else ""
    check(all("kern.%d" % k in svg for k in range(7)) and "m0 t2" in svg and "m1 *" in svg,
          "every kernel drawn, threads in the labels, noisy marked: %d %s" % (r.returncode,
                                                                             r.stderr[-200:]))


def test_fp32_underflow(tmp):
    """A matrix whose values leave fp32's range at the small end (1e-320
    on the diagonal): its fp32 rows are skipped with the reason, never
    called wrong; the fp64 rows are ok."""
    path = os.path.join(tmp, "tiny.mtx")
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n20 20 20\n")
        for i in range(20):
            f.write("%d %d 1e-320\n" % (i + 1, i + 1))
    out = os.path.join(tmp, "tiny.csv")
    r = spbench("run", *FAST, "--precision", "both", "--csv", out, path)
    rows = read_rows(out) if os.path.exists(out) else []
    fp32 = [x for x in rows if x["precision"] == "fp32"]
    check(r.returncode == 0 and fp32 and all(x["status"] == "skipped" and "range" in x["message"]
                                             for x in fp32) and
          all(x["status"] == "ok" for x in rows if x["precision"] == "fp64"),
          "fp32 rows skipped for the input's range, fp64 ok: exit %d %s" %
          (r.returncode, [(x["precision"], x["status"], x["message"]) for x in rows]))


def test_complex64_underflow(tmp):
    """A complex matrix whose products leave fp32's range at the small end:
    its complex64 rows (SpMV and SpGEMM) are skipped for the input's range,
    as fp32 rows are, never called wrong; complex128 ok."""
    spmv_path, spgemm_path = os.path.join(tmp, "ctiny.mtx"), os.path.join(tmp, "ctiny2.mtx")
    with open(spmv_path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate complex general\n20 20 20\n")
        for i in range(20):
            f.write("%d %d 1e-320 2e-320\n" % (i + 1, i + 1))
    with open(spgemm_path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate complex general\n20 20 40\n")
        for i in range(20):
            f.write("%d %d 1e-25 -2e-25\n%d %d 3e-25 1e-25\n" % (i + 1, i + 1, i + 1,
                                                                   (i + 3) % 20 + 1))
    for op, kernels, path in (("spmv", "csr.serial,csr.omp.nnz", spmv_path),
                              ("spgemm", "spgemm.gustavson,spgemm.omp", spgemm_path)):
        out = os.path.join(tmp, "ctiny-%s.csv" % op)
        r = spbench("run", *FAST, "--op", op, "--kernels", kernels, "--threads", "1",
                    "--precision", "both", "--csv", out, path)
        rows = read_rows(out) if os.path.exists(out) else []
        single = [x for x in rows if x["precision"] == "complex64"]
        check(r.returncode == 0 and len(single) == 2 and
              all(x["status"] == "skipped" and "range" in x["message"] for x in single) and
              all(x["status"] == "ok" for x in rows if x["precision"] == "complex128"),
              "%s: complex64 rows skipped for the input's range, complex128 ok: exit %d %s" %
              (op, r.returncode, [(x["precision"], x["status"], x["message"][:60]) for x in rows]))


def test_impossible_speedup_not_plotted(tmp, resume_keeps_samples):
    """A speedup above the thread count (a one-thread time that cannot be
    right) is left out of the scaling chart, which says so."""
    csv_path, json_path = resume_keeps_samples
    rows = read_rows(csv_path)
    with open(csv_path) as f:
        header = next(csv.reader(f))
    made = []
    for x in rows[:2]:
        for threads, scale in ((1, 20.0), (2, 1.0)):
            made.append(dict(x, kernel="csr.omp.nnz", backend="openmp", threads=str(threads),
                             time_ms_median=repr(float(x["time_ms_median"]) * scale)))
    path = os.path.join(tmp, "fast2.csv")
    write_csv(path, header, made)
    outdir = os.path.join(tmp, "charts")
    r = spbench("plot", path, outdir)
    check(r.returncode == 0 and "left out" in r.stderr and "20.0x at 2" in r.stderr,
          "the 20x speedup at 2 threads is left out, and said: %d %s" % (r.returncode,
                                                                        r.stderr[-400:]))


def test_stop_during_bandwidth(tmp):
    """SIGTERM while the bandwidth passes run (the first second of a run)
    ends the run within a few seconds, well inside Slurm's grace."""
    out = os.path.join(tmp, "bw.csv")
    job = subprocess.Popen([SPBENCH, "run", *FAST, "--threads", "1,2", "--bandwidth", "measure",
                            "--csv", out, TWO[0]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    time.sleep(0.5)
    start = time.time()
    job.send_signal(signal.SIGTERM)
    job.communicate(timeout=120)
    took = time.time() - start
    check(took < 3.0 and job.returncode != 0, "stopped %.2f s after SIGTERM (exit %d)"
          % (took, job.returncode))


def test_stages_of_one_study(tmp):
    """A study made in stages (SpMV, then SpGEMM resumed into the same CSV,
    as the main job does): the second stage's table and summary speak of
    its own rows only, in one line for the rest; its JSON holds every row
    of the CSV, totalled; its exit status is its own rows'."""
    csv_path, json_path = os.path.join(tmp, "st.csv"), os.path.join(tmp, "st.json")
    spmv = FAST[:1] + ["csr.serial,csr.omp.static", "--threads", "1,2"] + FAST[4:]
    r = spbench("run", *spmv, "--csv", csv_path, "--json", json_path, *TWO)
    check(r.returncode == 0, "the SpMV stage: %s" % r.stderr)
    rows = read_rows(csv_path)
    rows[0]["status"], rows[0]["message"] = "wrong", "made wrong by the test"
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    second = os.path.join(tmp, "st2.json")
    spgemm = FAST[:1] + ["spgemm.gustavson,spgemm.hash"] + FAST[2:-1]  # its table shown
    r = spbench("run", "--op", "spgemm", *spgemm, "--resume", "--csv", csv_path, "--json", second,
                *TWO)
    check(r.returncode == 0, "the SpGEMM stage's own rows are ok (exit %d): %s"
          % (r.returncode, r.stderr[-300:]))
    shown = [line for line in r.stdout.splitlines() if "csr.serial" in line or
             "hll.serial.row" in line]
    check(not shown, "the SpGEMM stage shows no SpMV row: %s" % shown[:3])
    check("6 rows of %s this run did not select" % csv_path in r.stdout,
          "one line counts the rows kept: %s" % r.stdout[-600:])
    check("# 4 rows: 4 ok" in r.stdout, "the stage's totals are its own: %s" % r.stdout[-400:])
    doc = json_doc(second)
    ops = sorted(x.get("operation") for x in doc["rows"])
    check(ops == ["spgemm"] * 4 + ["spmv"] * 6, "the JSON holds every row: %s" % ops)
    check(doc["totals"]["rows"] == 10 and doc["totals"]["wrong"] == 1 and
          doc["totals"]["cores_used_max"] == 2,
          "the JSON's totals are its rows' (the most cores a row used: the kept 2-thread rows): "
          "%s" % doc["totals"])


def main():
    run_tests([test_resume_keeps_samples, test_kill_leaves_no_cut_json, test_json_write_failure,
               test_merge_outputs, test_merge_json_checked, test_merge_signal,
               test_compare_outputs, test_gate, test_compare_malformed, test_one_reader,
               test_json_reads_as_csv,
               test_compare_messages,
               test_compare_chart, test_fp32_underflow, test_complex64_underflow,
               test_impossible_speedup_not_plotted,
               test_stop_during_bandwidth, test_stages_of_one_study],
              "spb_e2e_files_", globals())


main()
