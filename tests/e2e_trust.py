"""End-to-end tests of what makes a results file trustworthy: resume after
a cut, distinct keys for distinct files, a batch that survives a matrix too
large for memory, one writer per results file, outputs checked before any
is truncated, Ctrl-C, speedups after a resume, and the noise flag.

usage: e2e_trust.py SPBENCH SOURCE_DIR
"""
import gzip
import json
import re
import os
import resource
import shutil
import signal
import subprocess
import threading
import time

from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "1", "--min-time", "0", "--warmup", "0", "--quiet", "--threads", "1"]
THREE = [os.path.join(BUNDLED, name) for name in ("cage4.mtx.gz", "west0479.mtx.gz",
                                                  "1138_bus.mtx.gz")]
KERNELS = "csr.serial,hll.serial.row,hll.serial.col"


def keys(rows):
    return sorted(tuple(str(r[k]) for k in ("matrix", "kernel", "precision", "threads")) for r in rows)


def json_rows(path):
    with open(path) as f:
        return json.load(f)["rows"]


def test_resume_after_cut(tmp):
    """A results file cut anywhere in its last row (or at a row's end) is
    resumed into every row exactly once, in the CSV and in the JSON."""
    base = os.path.join(tmp, "base.csv")
    two = THREE[:2]  # few enough rows that the file fits in one stdio buffer (4 KiB)
    r = spbench("run", *FAST, "--kernels", KERNELS, "--csv", base, *two)
    check(r.returncode == 0, "the reference run: %s" % r.stderr)
    whole = open(base, "rb").read()
    expected = keys(read_rows(base))
    check(len(expected) == 6 and len(whole) < 4096,
          "6 rows in a file under 4 KiB: %d bytes" % len(whole))
    for cut in (0, 1, 4, 40, 100):
        csv_path = os.path.join(tmp, "cut%d.csv" % cut)
        json_path = os.path.join(tmp, "cut%d.json" % cut)
        with open(csv_path, "wb") as f:
            f.write(whole[:len(whole) - cut])
        r = spbench("run", *FAST, "--kernels", KERNELS, "--resume", "--csv", csv_path, "--json",
                    json_path, *two)
        check(r.returncode == 0, "resume after a cut of %d bytes: %s" % (cut, r.stderr.strip()))
        check(keys(read_rows(csv_path)) == expected,
              "cut %d: the CSV holds every row once: %s" % (cut, keys(read_rows(csv_path))))
        check(os.path.exists(json_path) and keys(json_rows(json_path)) == expected,
              "cut %d: the JSON holds every row once" % cut)


def test_resume_edge_files(tmp):
    """A header-only CSV resumes (UBSan once aborted here); a device that is
    not a regular file is refused by name, not read as a long line."""
    header_only = os.path.join(tmp, "header.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", header_only,
                "--shard", "2/2", THREE[0])
    check(r.returncode == 0 and len(read_rows(header_only)) == 0,
          "an empty shard leaves a header-only CSV: %s" % r.stderr)
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--resume", "--csv", header_only,
                THREE[0])
    check(r.returncode == 0 and len(read_rows(header_only)) == 1,
          "a header-only CSV resumes: %s" % r.stderr)
    if os.path.exists("/dev/full"):
        r = spbench("run", *FAST, "--resume", "--csv", "/dev/full", THREE[0])
        check(r.returncode != 0 and "not a regular file" in r.stderr,
              "--resume from /dev/full is refused by name: %s" % r.stderr.strip())
    else:
        skip("no /dev/full: resume from a device", "/dev/full")
    empty = os.path.join(tmp, "empty_dir")
    os.mkdir(empty)
    r = spbench("info", empty)
    check("runtime error" not in r.stderr, "info on an empty directory: %s" % r.stderr.strip())


def test_fifo_sources(tmp):
    """A FIFO named like a matrix inside a directory argument is skipped (it
    blocked the run); a FIFO named on its own is read whole with --cache
    (fingerprinting it consumed its first bytes)."""
    folder = os.path.join(tmp, "with_fifo")
    os.mkdir(folder)
    shutil.copy(THREE[0], folder)
    os.mkfifo(os.path.join(folder, "blocked.mtx"))
    try:
        r = spbench("run", *FAST, "--kernels", "csr.serial", folder, timeout=60)
        check(r.returncode == 0 and "cage4" in r.stdout and "blocked" not in r.stdout,
              "the FIFO in a directory is skipped: %s" % r.stderr.strip())
    except subprocess.TimeoutExpired:
        check(False, "a FIFO inside a directory blocks the run")
    fifo = os.path.join(tmp, "piped.mtx")
    os.mkfifo(fifo)
    text = gzip.open(THREE[1], "rb").read()

    def writer():
        try:
            with open(fifo, "wb") as f:
                f.write(text)
        except BrokenPipeError:
            pass

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    try:
        r = spbench("run", *FAST, "--kernels", "csr.serial", "--cache",
                    os.path.join(tmp, "cache"), fifo, timeout=60)
        check(r.returncode == 0 and "piped" in r.stdout and " ok" in r.stdout,
              "a FIFO with --cache is read whole: %s %s" % (r.stdout[-300:], r.stderr.strip()))
    except subprocess.TimeoutExpired:
        check(False, "a FIFO with --cache was fingerprinted, then waited for again")


def test_one_writer(tmp):
    """Two runs resuming one CSV: the second is refused at once, naming the
    first; the first ends with a valid CSV and JSON. A run killed outright
    leaves no lock behind."""
    csv_path, json_path = os.path.join(tmp, "shared.csv"), os.path.join(tmp, "shared.json")
    args = ["run", "--reps", "3", "--min-time", "0.3", "--warmup", "0", "--quiet", "--threads",
            "1", "--kernels", KERNELS, "--resume", "--csv", csv_path, "--json", json_path, *THREE]
    first = subprocess.Popen([SPBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(0.5)
    second = spbench(*args)
    out, err = first.communicate(timeout=600)
    check(second.returncode == 2 and "is writing this file" in second.stderr and
          "pid %d" % first.pid in second.stderr,
          "the second run is refused, naming the first: %s" % second.stderr.strip())
    check(first.returncode == 0, "the first run ends well: %s" % err)
    check(keys(read_rows(csv_path)) == sorted(set(keys(read_rows(csv_path)))) and
          len(read_rows(csv_path)) == 9, "9 distinct rows in the CSV")
    check(len(json_rows(json_path)) == 9, "the JSON is valid with its 9 rows")
    killed = subprocess.Popen([SPBENCH, *args[:-3], "--force", "gen:lap2d:300"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    killed.kill()
    killed.wait()
    r = spbench(*args)
    check(r.returncode == 0, "a killed run leaves no lock: %s" % r.stderr.strip())


def test_outputs_checked_first(tmp):
    """Every output is checked before any is emptied: a bad --json keeps the
    CSV whole; one path for both outputs is refused; --resume does not
    replace a JSON that is not spbench's; gen and spgemm leave no partial
    file when the disk fills."""
    csv_path = os.path.join(tmp, "kept.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, THREE[0])
    before = open(csv_path).read()
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--force", "--csv", csv_path, "--json",
                os.path.join(tmp, "no", "such", "x.json"), THREE[0])
    check(r.returncode == 2 and "x.json" in r.stderr, "a bad --json is refused: %s" % r.stderr)
    check(open(csv_path).read() == before, "the CSV is untouched by a refused run")
    same = os.path.join(tmp, "same.out")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", same, "--json", same, THREE[0])
    check(r.returncode == 2 and "one file" in r.stderr, "--csv X --json X is refused: %s"
          % r.stderr.strip())
    check(not os.path.exists(same), "and leaves no file behind")
    notes = os.path.join(tmp, "notes.json")
    with open(notes, "w") as f:
        f.write('{"my": "notes"}\n')
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--resume", "--csv", csv_path,
                "--json", notes, THREE[0])
    check(r.returncode == 2 and "not a spbench results JSON" in r.stderr,
          "--resume does not replace a foreign JSON: %s" % r.stderr.strip())
    check(open(notes).read() == '{"my": "notes"}\n', "the foreign JSON is untouched")

    def small_disk():  # writes beyond 20 KB fail as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))

    for cmd in (["gen", "gen:lap2d:100", "-o"],
                ["spgemm", THREE[2], "--kernel", "spgemm.gustavson", "-o"]):
        out = os.path.join(tmp, "partial_%s.mtx" % cmd[0])
        r = spbench(*cmd, out, preexec_fn=small_disk)
        check(r.returncode != 0 and "write failed" in r.stderr,
              "%s on a full disk fails: %s" % (cmd[0], r.stderr.strip()))
        left = [name for name in os.listdir(tmp) if name.startswith("partial_%s" % cmd[0])]
        check(left == [], "%s leaves no partial file: %s" % (cmd[0], left))


def test_speedup_after_resume(tmp):
    """Rows measured by a resume with other kernels take their speedup from
    the baseline row already in the file."""
    csv_path = os.path.join(tmp, "speedup.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, *THREE[:2])
    r = spbench("run", *FAST, "--kernels", "hll.serial.col", "--resume", "--csv", csv_path,
                *THREE[:2])
    check(r.returncode == 0, "the resume with other kernels: %s" % r.stderr.strip())
    rows = read_rows(csv_path)
    for name in ("cage4", "west0479"):
        base = [x for x in rows if x["matrix"] == name and x["kernel"] == "csr.serial"]
        new = [x for x in rows if x["matrix"] == name and x["kernel"] == "hll.serial.col"]
        if not base or not new:
            check(False, "%s: both rows present" % name)
            continue
        want = float(base[0]["time_ms_median"]) / float(new[0]["time_ms_median"])
        got = float(new[0]["speedup"] or "nan")
        check(abs(got - want) <= 1e-3 * want,
              "%s: the new row's speedup is over the stored baseline: %s vs %.4g"
              % (name, new[0]["speedup"], want))


def test_distinct_keys(tmp):
    """Two files with one base name get distinct names; a resume never
    replays one file's rows for another, nor for a file that changed; a file
    named twice is measured once."""
    for folder, source in (("a", THREE[0]), ("b", THREE[1])):
        os.mkdir(os.path.join(tmp, folder))
        shutil.copy(source, os.path.join(tmp, folder, "m.mtx.gz"))
    a_m, b_m = os.path.join(tmp, "a", "m.mtx.gz"), os.path.join(tmp, "b", "m.mtx.gz")
    both = os.path.join(tmp, "both.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", both, a_m, b_m, a_m,
                os.path.join(tmp, "a", ".", "m.mtx.gz"))
    rows = read_rows(both)
    check(sorted(x["matrix"] for x in rows) == ["a/m", "b/m"],
          "two files, two names, each measured once: %s" % [x["matrix"] for x in rows])
    check(len({x["source_id"] for x in rows}) == 2, "each row says which file it measured")
    merged = os.path.join(tmp, "merged.csv")
    r = spbench("merge", merged, both)
    check(r.returncode == 0, "merge accepts them: %s" % r.stderr.strip())
    only_a = os.path.join(tmp, "only_a.csv")
    spbench("run", *FAST, "--kernels", "csr.serial", "--csv", only_a, a_m)
    before = open(only_a).read()
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--resume", "--csv", only_a, b_m)
    check(r.returncode == 2 and "another file" in r.stderr and "m.mtx.gz" in r.stderr,
          "a resume does not replay a's rows for b: %s" % r.stderr.strip())
    check(open(only_a).read() == before, "the CSV is left as it was")
    shutil.copy(THREE[2], a_m)  # the file a's rows were measured from changes
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--resume", "--csv", only_a, a_m)
    check(r.returncode == 2 and "before it changed" in r.stderr,
          "a changed file is refused, not replayed: %s" % r.stderr.strip())


def test_merge_checks(tmp):
    """merge refuses a broken shard with file:line and writes nothing, and
    refuses one matrix name measured from two different files."""
    good_csv, good_json = os.path.join(tmp, "good.csv"), os.path.join(tmp, "good.json")
    spbench("run", *FAST, "--kernels", KERNELS, "--csv", good_csv, "--json", good_json, *THREE)
    lines = open(good_csv, "rb").read().split(b"\n")
    fields = lines[2].split(b",")
    broken = {
        "cut": b"\n".join(lines)[:-30],
        "short": b"\n".join(lines[:2] + [b",".join(fields[:10])] + lines[3:]),
        "extra": b"\n".join(lines[:2] + [lines[2] + b",1,2"] + lines[3:]),
        "latin1": b"\n".join(lines[:2] + [lines[2].replace(b"cage4", b"cag\xe94")] + lines[3:]),
        "number": b"\n".join(lines[:2] + [lines[2].replace(b",1,", b",one,", 1)] + lines[3:]),
    }
    for name, data in broken.items():
        shard = os.path.join(tmp, "broken_%s.csv" % name)
        with open(shard, "wb") as f:
            f.write(data)
        out = os.path.join(tmp, "merged_%s.csv" % name)
        r = spbench("merge", out, shard)
        check(r.returncode == 2 and "broken_%s.csv:" % name in r.stderr and
              "Traceback" not in r.stderr,
              "merge refuses the %s shard with file:line: %s" % (name, r.stderr.strip()[-300:]))
        check(not os.path.exists(out), "a refused merge writes no CSV (%s)" % name)
    bad_json = os.path.join(tmp, "bad.json")
    doc = json.load(open(good_json))
    doc["rows"] = {"not": "a list"}
    json.dump(doc, open(bad_json, "w"))
    out_csv, out_json = os.path.join(tmp, "m.csv"), os.path.join(tmp, "m.json")
    r = spbench("merge", out_csv, good_csv, "--json", out_json, bad_json)
    check(r.returncode == 2 and "not a list" in r.stderr and "Traceback" not in r.stderr,
          "a JSON whose rows are not a list is refused: %s" % r.stderr.strip()[-300:])
    check(not os.path.exists(out_csv) and not os.path.exists(out_json),
          "the merged CSV is not left behind when the JSON merge fails")
    other = os.path.join(tmp, "other")
    os.mkdir(other)
    shutil.copy(THREE[1], os.path.join(other, "cage4.mtx.gz"))  # another file, same name
    other_csv = os.path.join(tmp, "other.csv")
    spbench("run", *FAST, "--kernels", "csr.omp.nnz", "--csv", other_csv,
            os.path.join(other, "cage4.mtx.gz"))
    r = spbench("merge", os.path.join(tmp, "mixed.csv"), good_csv, other_csv)
    check(r.returncode == 2 and "different files" in r.stderr,
          "one name from two files is refused: %s" % r.stderr.strip())


def test_too_large_for_memory(tmp):
    """A 67-byte file whose product needs tens of GiB gets an error row that
    names the estimate, before anything is allocated, and the batch goes
    on; gen and spgemm refuse alike. spbench is told it has 6 GiB
    (SPB_MEMORY_LIMIT), and outside ASan builds the address space is
    limited to that too, so a regression fails here instead of waking the
    OOM killer."""
    tiny = os.path.join(tmp, "tiny.mtx")
    with open(tiny, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n1 2147483647 1\n1 1 1\n")

    asan = b"__asan_init" in open(SPBENCH, "rb").read()  # ASan maps terabytes of shadow

    def limited():
        if not asan:
            resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
        os.environ["SPB_MEMORY_LIMIT"] = str(6 << 30)

    out = os.path.join(tmp, "tiny.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial,csr.omp.nnz", "--csv", out, tiny,
                THREE[0], preexec_fn=limited)
    rows = read_rows(out)
    tiny_rows = [x for x in rows if x["matrix"] == "tiny"]
    check(r.returncode == 1 and len(tiny_rows) == 1 and tiny_rows[0]["status"] == "error",
          "one error row for the matrix too large: %s" % r.stderr.strip())
    check(tiny_rows and "needs about" in tiny_rows[0]["message"] and
          " available (" in tiny_rows[0]["message"],
          "the row names the estimate and the room: %s" % (tiny_rows and tiny_rows[0]["message"]))
    check(len([x for x in rows if x["matrix"] == "cage4" and x["status"] == "ok"]) == 2,
          "the batch goes on to the next matrix")
    r = spbench("gen", "gen:random:100000000:10", "-o", os.path.join(tmp, "huge.mtx"),
                preexec_fn=limited)
    check(r.returncode != 0 and "needs about" in r.stderr,
          "gen refuses a matrix beyond memory: %s" % r.stderr.strip())
    r = spbench("spgemm", tiny, "--kernel", "spgemm.gustavson", "-o",
                os.path.join(tmp, "c.mtx"), preexec_fn=limited)
    check(r.returncode != 0 and "needs about" in r.stderr,
          "spgemm refuses a product beyond memory: %s" % r.stderr.strip())


def test_interrupt(tmp):
    """Ctrl-C drops the rows being timed, keeps those written, closes the
    JSON validly with a trailer that says so, exits 130 and prints the
    command that resumes; that command then completes the study with every
    row once."""
    csv_path, json_path = os.path.join(tmp, "int.csv"), os.path.join(tmp, "int.json")
    args = ["run", "--reps", "2", "--min-time", "0.2", "--warmup", "0", "--threads", "1",
            "--kernels", KERNELS, "--csv", csv_path, "--json", json_path, *THREE]
    p = subprocess.Popen([SPBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.time() + 120  # a matrix's rows are written together: wait for the first
    while time.time() < deadline and p.poll() is None and (
            not os.path.exists(csv_path) or sum(1 for _ in open(csv_path)) < 2):
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 130, "exit status 130 after SIGINT (got %d)" % p.returncode)
    rows = read_rows(csv_path)
    check(0 < len(rows) < 9 and all(r["status"] == "ok" for r in rows),
          "the rows before the signal are whole: %d" % len(rows))
    try:
        doc = json.load(open(json_path))
        check(doc["interrupted"]["signal"] == signal.SIGINT and len(doc["rows"]) == len(rows),
              "the JSON is valid, says interrupted, and holds the same rows")
    except (ValueError, KeyError, TypeError) as e:
        check(False, "the JSON after SIGINT: %s" % e)
    # the program's own path first, so that the line can be pasted
    hint = [line.strip() for line in err.splitlines()
            if line.strip().startswith(os.path.realpath(SPBENCH) + " run")]
    check(hint and hint[0].endswith("--resume"), "the command that resumes is printed: %s" % err)
    if hint:
        r = spbench(*hint[0].split()[1:])
        check(r.returncode == 0, "the printed command resumes: %s" % r.stderr.strip())
        check(keys(read_rows(csv_path)) == sorted(set(keys(read_rows(csv_path)))) and
              len(read_rows(csv_path)) == 9, "then every row is there once")
        check(json.load(open(json_path))["interrupted"] is False, "and the JSON is whole")


READER_REFUSES = {
    "both_triangles.mtx": ("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n"
                           "2 1 1\n1 2 1\n", ":5: entry (1, 2) is above the diagonal"),
    "skew_diagonal.mtx": ("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n"
                          "2 1 3\n2 2 1\n", ":4: entry (2, 2) is on the diagonal"),
    "dup_overflow.mtx": ("%%MatrixMarket matrix coordinate real general\n2 2 3\n"
                         "1 1 1.5e308\n1 1 1.5e308\n2 2 1\n", "sum beyond the double range"),
    "integer_half.mtx": ("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n"
                         "2 2 1.5\n", ":4: value 1.5 is not a whole number"),
}


def test_reader_refuses(tmp):
    """Malformed files the reader once accepted are refused with file:line;
    a symmetric file holding only its upper triangle is still read."""
    folder = os.path.join(tmp, "reader")
    os.mkdir(folder)
    for name, (text, _) in READER_REFUSES.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    with open(os.path.join(folder, "upper_only.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n1 2 1\n"
                "2 3 2\n")
    out = os.path.join(tmp, "reader.csv")
    spbench("run", *FAST, "--kernels", "csr.serial", "--csv", out, folder)
    rows = {x["matrix"]: x for x in read_rows(out)}
    for name, (_, cause) in READER_REFUSES.items():
        row = rows.get(name[:-4])
        check(row is not None and row["status"] == "error" and name in row["message"] and
              cause in row["message"],
              "%s is refused naming the cause: %s" % (name, row and row["message"]))
    upper = rows.get("upper_only")
    check(upper is not None and upper["status"] == "ok" and upper["nnz"] == "5",
          "a symmetric file of its upper triangle is read (5 entries): %s" % upper)


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def test_provenance(tmp):
    """The JSON records the commit the binary was built from; the capture
    runs at every build: a new commit, a change and a tree without git each
    show in the header it writes (it was once taken at configure only)."""
    json_path = os.path.join(tmp, "prov.json")
    out = spbench("run", *FAST, "--kernels", "csr.serial", "--json", json_path, THREE[0])
    header = json.load(open(json_path))["spbench"]
    recorded = header["git_commit"]
    # the build type and C flags the kernels were compiled with, as the
    # binary's own build directory configured them (-O2 and -O3 time some
    # kernels 30% apart)
    cache = os.path.join(os.path.dirname(SPBENCH), "CMakeCache.txt")
    if os.path.exists(cache):
        settings = open(cache).read()
        build_type = re.search(r"^CMAKE_BUILD_TYPE:STRING=(.*)$", settings, re.M)
        build_type = build_type.group(1) if build_type else ""
        opt = re.search(r"^CMAKE_C_FLAGS_%s:STRING=(.*)$" % build_type.upper(), settings, re.M)
        built = header.get("build", "")
        check(built.startswith(build_type + " (") and opt and opt.group(1).strip() in built,
              "the JSON names the build type %s and its flags: %r" % (build_type, built))
        check(("# build: %s (" % build_type) in out.stdout and
              (("not a Release build" in out.stdout) == (build_type != "Release")),
              "the table's header names the build, and says when it is not Release: %s" %
              [l for l in out.stdout.splitlines() if l.startswith("# build")])
    head = git("rev-parse", "--short=12", "HEAD", cwd=SOURCE)
    if head.returncode != 0:
        check(recorded == "unknown", "outside git the commit is unknown: %s" % recorded)
    else:  # HEAD, unless HEAD was committed after this binary was built
        committed = int(git("log", "-1", "--format=%ct", "HEAD", cwd=SOURCE).stdout.strip() or 0)
        check(recorded.split("-")[0] == head.stdout.strip() or
              committed > os.path.getmtime(SPBENCH),
              "the JSON names HEAD, %s: %s" % (head.stdout.strip(), recorded))
    if shutil.which("cmake") is None or shutil.which("git") is None:
        skip("cmake or git missing: the build-time capture")
        return
    repo, header = os.path.join(tmp, "repo"), os.path.join(tmp, "spb_commit.h")
    os.mkdir(repo)
    script = os.path.join(SOURCE, "scripts", "git_commit.cmake")

    def capture():
        subprocess.run(["cmake", "-DSOURCE_DIR=" + repo, "-DOUTPUT=" + header, "-P", script],
                       check=True, capture_output=True)
        return open(header).read().split('"')[1]

    check(capture() == "unknown", "no git tree: unknown")
    git("init", "-q", cwd=repo)
    with open(os.path.join(repo, "f.txt"), "w") as f:
        f.write("one\n")
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    git(*identity, "add", "f.txt", cwd=repo)
    git(*identity, "commit", "-qm", "one", cwd=repo)
    first = git("rev-parse", "--short=12", "HEAD", cwd=repo).stdout.strip()
    check(capture() == first, "a clean tree: its commit")
    with open(os.path.join(repo, "f.txt"), "w") as f:
        f.write("two\n")
    check(capture() == first + "-dirty", "a changed tree: marked dirty")
    git(*identity, "commit", "-qam", "two", cwd=repo)
    # what an evidence run writes beside the code (results, notes) is not a code change
    os.makedirs(os.path.join(repo, "docs"))
    for name in ("results.csv", os.path.join("docs", "notes.md")):
        with open(os.path.join(repo, name), "w") as f:
            f.write("written by a run\n")
    second = git("rev-parse", "--short=12", "HEAD", cwd=repo).stdout.strip()
    check(capture() == second, "results and notes beside the code leave it clean: %s" % capture())
    second = git("rev-parse", "--short=12", "HEAD", cwd=repo).stdout.strip()
    check(capture() == second and second != first, "a new commit is seen at the next build")


def test_noise_under_load(tmp):
    """Busy loops on every core, started and stopped here: the rows say they
    are noisy (CSV, table), the JSON and the closing lines say the machine
    was busy, and the best-kernel table marks what it ranked among noise."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
             for _ in range(2 * (os.cpu_count() or 1))]
    try:
        time.sleep(3)
        csv_path, json_path = os.path.join(tmp, "load.csv"), os.path.join(tmp, "load.json")
        r = spbench("run", "--reps", "5", "--min-time", "0.05", "--warmup", "1", "--quiet",
                    "--kernels", "csr.serial,csr.omp.*", "--csv", csv_path, "--json", json_path,
                    *THREE)
    finally:
        for p in loops:
            p.kill()
            p.wait()
    rows = [x for x in read_rows(csv_path) if x["status"] == "ok"]
    noisy = [x for x in rows if x["noisy"] == "1"]
    check(noisy, "rows measured under load are flagged noisy (%d of %d)" % (len(noisy), len(rows)))
    check(all(x["spread"] != "" and x["attempts"] in ("1", "2", "3") for x in rows),
          "every row carries its spread and attempts")
    # a group (a matrix's rows at one thread count) left at one attempt with
    # noisy rows: none of them could rank first among its precision's rows
    # (csr.serial, the baseline, always counts), or the study had stopped
    # measuring again for the machine's noise, and said so
    stopped = "not measured again for their noise" in r.stdout

    def could_rank_first(x):
        mine = [y for y in rows if (y["matrix"], y["threads"], y["precision"]) ==
                (x["matrix"], x["threads"], x["precision"])]
        fastest = min(mine, key=lambda y: float(y["time_ms_median"]))
        margin = max(0.10, float(fastest["spread"]))
        return x["kernel"] == "csr.serial" or \
            float(x["time_ms_min"]) <= float(fastest["time_ms_median"]) * (1 + margin) * 1.0001
    once = [x for x in noisy if x["attempts"] == "1"]
    check(stopped or not any(could_rank_first(x) for x in once),
          "a noisy row that could change the ranking was measured again before it was "
          "reported noisy, unless the study said re-measurement had stopped helping: %s" %
          [(x["matrix"], x["kernel"], x["threads"]) for x in once if could_rank_first(x)][:4])
    check("  noisy: ok, spread" in r.stdout, "the table says which rows are noisy")
    check(" *" in r.stdout and "ranked among noisy rows" in r.stdout,
          "the best-kernel table marks rankings made among noisy rows")
    summary = [line for line in r.stdout.splitlines() if "rows noisy" in line]
    check(summary and "raise --reps" in summary[0], "the closing summary says so: %s" % summary)
    noise = json.load(open(json_path))["noise"]
    check(noise["noisy_rows"] == len(noisy), "the JSON counts the noisy rows: %s" % noise)
    if os.path.exists("/proc/pressure/cpu"):
        check(noise["busy"] and "waited for a CPU" in noise["why"],
              "the JSON says the machine was busy, and why: %s" % noise)
        check(summary and "the machine was busy" in summary[0], "and so does the summary")
    else:
        skip("no CPU pressure (PSI) here: the busy verdict under load")
    if shutil.which("gnuplot") is None:
        skip("no gnuplot: the charts' noise marks", "gnuplot")
        return
    charts = os.path.join(tmp, "load_charts")
    r = spbench("plot", csv_path, charts)
    svg = open(os.path.join(charts, "gflops.svg")).read() if r.returncode == 0 else ""
    check("noisy row(s) among the data" in svg and re.search(r"[a-z0-9_]\*<", svg),
          "the GFLOPS chart marks the matrices drawn from noisy rows: %s" % r.stderr.strip())


def main():
    run_tests([test_resume_after_cut, test_resume_edge_files, test_fifo_sources, test_one_writer,
               test_outputs_checked_first, test_speedup_after_resume, test_distinct_keys,
               test_merge_checks, test_too_large_for_memory, test_interrupt, test_reader_refuses,
               test_provenance, test_noise_under_load],
              "spb_e2e_trust_", globals())


main()
