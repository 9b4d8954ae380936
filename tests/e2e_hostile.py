"""End-to-end tests of the second hostile trial's findings: each case lost,
duplicated, mixed or garbled results, called a wrong answer right, or
crashed a batch; each test fails on the code before its fix.

usage: e2e_hostile.py SPBENCH SOURCE_DIR
"""
import gzip
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "1", "--min-time", "0", "--warmup", "0", "--quiet", "--threads", "1"]
CAGE4 = os.path.join(BUNDLED, "cage4.mtx.gz")
WEST = os.path.join(BUNDLED, "west0479.mtx.gz")


def json_doc(path):
    """The parsed JSON file, or None when it does not parse."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_mtx(path, rows, cols, entries):
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" %
                (rows, cols, len(entries)))
        for i, j, v in entries:
            f.write("%d %d %r\n" % (i, j, v))


def test_cache_unreadable_source(tmp):
    """Item 3: with --cache, a matrix that cannot be read is an error row
    and the batch goes on (it once freed an uninitialised matrix and
    crashed); a missing file is refused before anything is measured."""
    csv_path, json_path = os.path.join(tmp, "c3.csv"), os.path.join(tmp, "c3.json")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--cache", os.path.join(tmp, "cache"),
                "--csv", csv_path, "--json", json_path, os.path.join(tmp, "missing.mtx"), CAGE4)
    check(r.returncode == 2 and "missing.mtx" in r.stderr and not os.path.exists(csv_path),
          "a missing matrix is refused before any measuring: %d %s" %
          (r.returncode, r.stderr.strip()[-300:]))
    broken = os.path.join(tmp, "broken.mtx")
    with open(broken, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--cache", os.path.join(tmp, "cache"),
                "--csv", csv_path, "--json", json_path, broken, CAGE4)
    rows = read_rows(csv_path) if os.path.exists(csv_path) else []
    check(r.returncode == 1, "an unreadable matrix under --cache exits 1, not a crash: %d %s" %
          (r.returncode, r.stderr.strip()[-300:]))
    check([(x["matrix"], x["status"]) for x in rows] == [("broken", "error"), ("cage4", "ok")],
          "the unreadable matrix is an error row and cage4 is measured: %s" %
          [(x["matrix"], x["status"]) for x in rows])
    doc = json_doc(json_path)
    check(doc is not None and len(doc["rows"]) == 2, "the JSON is whole, with both rows")


def test_huge_values(tmp):
    """Item 8: entries near 1e200 validate with finite norms (they once
    overflowed, and every row was ok with abs_l2_err inf); a product whose
    exact result overflows is an error saying so, never ok."""
    big = os.path.join(tmp, "big200.mtx")
    write_mtx(big, 3, 3, [(1, 1, 1e200), (2, 2, 2e200), (3, 1, 1e200), (3, 3, -1e200)])
    over = os.path.join(tmp, "over.mtx")
    write_mtx(over, 2, 20, [(1, 1, 1.0)] + [(2, j, 1.7e308) for j in range(1, 21)])
    csv_path = os.path.join(tmp, "c8.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial,csr.omp.nnz", "--csv", csv_path, big, over)
    rows = {(x["matrix"], x["kernel"]): x for x in read_rows(csv_path)}
    for kernel in ("csr.serial", "csr.omp.nnz"):
        b = rows.get(("big200", kernel), {})
        finite = all(b.get(k, "") not in ("", "inf", "nan", "-nan") for k in
                     ("abs_l2_err", "rel_l2_err"))
        check(b.get("status") == "ok" and finite and float(b["rel_l2_err"]) < 1e-12,
              "%s on entries near 1e200: ok with finite errors: %s" %
              (kernel, [b.get(k) for k in ("status", "abs_l2_err", "rel_l2_err")]))
        o = rows.get(("over", kernel), {})
        check(o.get("status") == "error" and "overflows" in o.get("message", ""),
              "%s on a product that overflows: an error saying so: %s" %
              (kernel, [o.get("status"), o.get("message")]))
    check(r.returncode == 1, "the run with an overflowing product exits 1: %d" % r.returncode)
    x_path = os.path.join(tmp, "x308.mtx")
    with open(x_path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n3 1\n1e308\n1e308\n1\n")
    r = spbench("spmv", big, "--kernel", "csr.serial", "--x", x_path, "-o",
                os.path.join(tmp, "y.mtx"))
    check(r.returncode != 0 and "overflows" in r.stderr and ", ok" not in r.stderr,
          "spmv with x near 1e308: refused as overflowing, not ok: %s" % r.stderr.strip())


def test_option_ranges(tmp):
    """Items 9, 10 and 18: every integer option is range-checked against
    what it is stored in (values past it once wrapped: --reps 4294967297
    took 1 sample), --threads has one cap in every command, and a malformed
    SPB_MEMORY_LIMIT or generator size is refused, never read as another."""
    out = os.path.join(tmp, "o9.csv")
    run = ["run", *FAST, "--kernels", "csr.serial", "--csv", out, "--force"]
    for option, value in (("--reps", "2147483648"), ("--reps", "4294967297"),
                          ("--warmup", "4294967296"), ("--hack-size", "2147483648"),
                          ("--reps", "99999999999999999999999"), ("--block-size", "1e3")):
        r = spbench(*run, option, value, "gen:lap2d:4")
        check(r.returncode == 2 and option in r.stderr and "from" in r.stderr,
              "%s %s is a usage error naming the range: %d %s" %
              (option, value, r.returncode, r.stderr.strip()))
    for command, flag in (("spmv", "--kernel"), ("spgemm", "--kernel")):
        kernel = "csr.omp.nnz" if command == "spmv" else "spgemm.omp"
        r = spbench(command, "gen:lap2d:10", flag, kernel, "--threads", "100000", "-o",
                    os.path.join(tmp, "p.mtx"))
        check(r.returncode == 2 and "--threads" in r.stderr and "4096" in r.stderr,
              "%s --threads 100000 is refused with run's cap: %d %s" %
              (command, r.returncode, r.stderr.strip()))
    for limit in ("abc", "-5", "0"):
        env = dict(os.environ, SPB_MEMORY_LIMIT=limit)
        r = spbench(*run, "gen:lap2d:4", env=env)
        check(r.returncode == 2 and "SPB_MEMORY_LIMIT" in r.stderr,
              "SPB_MEMORY_LIMIT=%s is refused: %d %s" % (limit, r.returncode, r.stderr.strip()))
    for spec in ("gen:lap2d:+10", "gen:lap2d: 10", "gen:lap2d:99999999999999999999999"):
        if os.path.exists(out):
            os.remove(out)
        r = spbench(*run, spec)
        rows = read_rows(out) if os.path.exists(out) else []
        check(r.returncode == 2 and not rows and spec in r.stderr,
              "%r is not a spec (refused, named, nothing measured), not gen:lap2d:10 under another "
              "name: %s" %
              (spec, [(x["matrix"], x["status"]) for x in rows]))


def test_output_is_an_input(tmp):
    """Item 12: --csv or --json naming an input matrix is refused as such,
    with --force too (it once overwrote the matrix), and the matrix is kept."""
    matrix = os.path.join(tmp, "in.mtx")
    write_mtx(matrix, 2, 2, [(1, 1, 2.0), (2, 2, 3.0)])
    before = open(matrix, "rb").read()
    for option in ("--csv", "--json"):
        for force in ([], ["--force"]):
            r = spbench("run", *FAST, "--kernels", "csr.serial", option, matrix, *force, matrix)
            check(r.returncode == 2 and "one of the input matrices" in r.stderr,
                  "run %s %s on its own input%s: refused as an input: %s" %
                  (option, matrix, " --force" if force else "", r.stderr.strip()))
    check(open(matrix, "rb").read() == before, "the input matrix is untouched")


def json_keys(path):
    doc = json_doc(path)
    return None if doc is None else sorted(
        (x["matrix"], x["kernel"], str(x["precision"]), str(x["threads"])) for x in doc["rows"])


def csv_keys(path):
    return sorted((x["matrix"], x["kernel"], x["precision"], x["threads"])
                  for x in read_rows(path))


def test_narrow_resume_keeps_json(tmp):
    """Item 2: a --resume that selects fewer kernels, matrices, precisions
    or thread counts than the file holds keeps every row in the JSON (it
    once rewrote the JSON with the selected rows alone)."""
    for label, narrower in (("kernels", ["--kernels", "csr.serial"]),
                            ("precision", ["--kernels", "csr.serial,hll.serial.row",
                                           "--precision", "fp32"]),
                            ("threads", ["--kernels", "csr.omp.nnz", "--threads", "2"])):
        csv_path = os.path.join(tmp, "q-%s.csv" % label)
        json_path = os.path.join(tmp, "q-%s.json" % label)
        first = [*FAST, "--kernels", "csr.serial,hll.serial.row,csr.omp.nnz"]
        r = spbench("run", *first, "--csv", csv_path, "--json", json_path, CAGE4, WEST)
        check(r.returncode == 0, "the first study: %s" % r.stderr.strip())
        args = FAST[:-2]  # without --threads 1
        r = spbench("run", *args, *narrower, "--resume", "--csv", csv_path, "--json", json_path,
                    CAGE4)
        check(r.returncode == 0, "the narrower resume (%s): %s" % (label, r.stderr.strip()))
        check(json_keys(json_path) == csv_keys(csv_path),
              "after a resume with other %s the JSON keeps every row of the CSV: %d in the "
              "CSV, %s in the JSON" % (label, len(csv_keys(csv_path)),
                                       len(json_keys(json_path) or [])))


def test_failed_write_closes_json(tmp):
    """Item 5: a CSV write that fails in the middle of a run (its reader
    went away) ends the run with an error, and the JSON still parses,
    with the rows before it and the error named."""
    fifo = os.path.join(tmp, "csv.fifo")
    os.mkfifo(fifo)
    json_path = os.path.join(tmp, "j5.json")
    got = []

    def reader():
        with open(fifo, "rb") as f:
            got.append(f.read(2500))  # the header and a row or two, then gone

    t = threading.Thread(target=reader)
    t.start()
    r = spbench("run", *FAST, "--kernels", "csr.serial,hll.serial.row", "--csv", fifo, "--json",
                json_path, CAGE4, WEST, os.path.join(BUNDLED, "1138_bus.mtx.gz"),
                "gen:lap2d:30", "gen:lap2d:31", "gen:lap2d:32", "gen:lap2d:33",
                preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
    t.join()
    doc = json_doc(json_path)
    check(r.returncode != 0 and "write failed" in r.stderr,
          "the failed CSV write ends the run with an error: %d %s" %
          (r.returncode, r.stderr.strip()))
    check(doc is not None and "error" in (doc.get("interrupted") or {}),
          "the JSON parses and names the error: %s" % (doc and doc.get("interrupted")))
    bad_path = os.path.join(tmp, "j5b.json")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", "/dev/full", "--json", bad_path,
                CAGE4)
    doc = json_doc(bad_path)
    check(r.returncode != 0 and doc is not None and doc["rows"] == [],
          "a CSV that fails before the first row still leaves a JSON that parses")


def test_grown_by_same_name(tmp):
    """Item 17: a study grown by a file of the same base name keeps the
    name its rows have ("m" for a/m), naming the new one around it ("b/m");
    a/m was once measured again as "a/m"."""
    for d, src in (("a", CAGE4), ("b", WEST)):
        os.makedirs(os.path.join(tmp, "g17", d), exist_ok=True)
        shutil.copy(src, os.path.join(tmp, "g17", d, "m.mtx.gz"))
    a_m, b_m = (os.path.join(tmp, "g17", d, "m.mtx.gz") for d in ("a", "b"))
    csv_path = os.path.join(tmp, "g17.csv")
    spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, a_m)
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--resume", "--csv", csv_path, a_m, b_m)
    rows = read_rows(csv_path)
    check(r.returncode == 0 and sorted(x["matrix"] for x in rows) == ["b/m", "m"] and
          len({x["source_id"] for x in rows}) == 2,
          "a/m keeps its name m, b/m is new: %s %s" %
          ([(x["matrix"], x["source_id"][:24]) for x in rows], r.stderr.strip()))


def test_fifo_named_directly(tmp):
    """Item 11: a FIFO named as a matrix with no writer yet: SIGTERM ends
    the wait (open() once blocked past it for minutes); with a writer the
    matrix streams in and is measured."""
    fifo = os.path.join(tmp, "pipe.mtx")
    os.mkfifo(fifo)
    csv_path = os.path.join(tmp, "f11.csv")
    job = subprocess.Popen([SPBENCH, "run", *FAST, "--kernels", "csr.serial", "--csv", csv_path,
                            fifo], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120  # the run's header (bandwidth passes) comes first

    def holds_fifo():
        try:
            return any(os.readlink("/proc/%d/fd/%s" % (job.pid, fd)) == fifo
                       for fd in os.listdir("/proc/%d/fd" % job.pid))
        except OSError:
            return False

    while time.time() < deadline and job.poll() is None and not holds_fifo():
        time.sleep(0.1)
    time.sleep(0.3)  # into the wait
    job.send_signal(signal.SIGTERM)
    try:
        job.communicate(timeout=10)
        ended = True
    except subprocess.TimeoutExpired:
        job.kill()
        job.communicate()
        ended = False
    check(ended and job.returncode == 128 + signal.SIGTERM,
          "SIGTERM ends the wait for a FIFO's writer: %s" % job.returncode)
    text = gzip.open(CAGE4, "rb").read()

    def writer():
        with open(fifo, "wb") as f:
            f.write(text)

    t = threading.Thread(target=writer)
    t.start()
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, "--force", fifo,
                timeout=60)
    t.join()
    rows = read_rows(csv_path)
    check(r.returncode == 0 and [x["status"] for x in rows] == ["ok"],
          "a FIFO with a writer is read and measured: %s" % r.stderr.strip())


def test_plot_cannot_write(tmp):
    """Item 13: plot onto a full disk (a 64 KiB tmpfs) fails naming the
    chart it could not write and leaves no cut or empty chart (it once
    listed ten charts, exit 0, over 0-byte files and a cut SVG)."""
    csv_path = os.path.join(tmp, "p13.csv")
    spbench("run", *FAST, "--kernels", "csr.serial,hll.serial.row,csr.omp.nnz", "--csv", csv_path,
            CAGE4, WEST)
    small = os.path.join(tmp, "small_disk")
    os.mkdir(small)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small],
                             capture_output=True).returncode == 0
    if not mounted:
        skip("plot onto a full disk: cannot mount a small tmpfs here (not root?)")
        return
    try:
        outdir = os.path.join(small, "charts")
        r = spbench("plot", csv_path, outdir)
        left = sorted(os.listdir(outdir)) if os.path.isdir(outdir) else []
        cut = [n for n in left if os.path.getsize(os.path.join(outdir, n)) == 0 or ".tmp." in n or
               (n.endswith(".svg") and not open(os.path.join(outdir, n), "rb").read().rstrip()
                .endswith(b"</svg>"))]
        check(r.returncode == 1 and "cannot write the chart" in r.stderr,
              "plot onto a full disk fails naming the chart: %d %s" %
              (r.returncode, r.stderr.strip()[-300:]))
        check(not cut, "no cut or empty chart is left on the full disk: %s" % cut)
    finally:
        subprocess.run(["umount", small], capture_output=True)


def test_output_is_stdout(tmp):
    """Item 15: --csv /dev/stdout with stdout redirected to a file is
    refused (the table's text was interleaved into the CSV)."""
    out = os.path.join(tmp, "o15.txt")
    with open(out, "w") as f:
        r = subprocess.run([SPBENCH, "run", *FAST, "--kernels", "csr.serial", "--csv",
                            "/dev/stdout", CAGE4], stdout=f, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "standard output" in r.stderr,
          "--csv /dev/stdout into a file is refused: %d %s" % (r.returncode, r.stderr.strip()))


def test_temp_files_cleaned(tmp):
    """Item 14: SIGINT during gen -o leaves no temporary file; one left by a
    process killed with -9 is removed by the next write of that file (a
    write of another file leaves it: issue 74 item 3)."""
    folder = os.path.join(tmp, "t14")
    os.mkdir(folder)
    for signo in (signal.SIGINT, signal.SIGKILL):
        job = subprocess.Popen([SPBENCH, "gen", "gen:lap3d:150", "-o",
                                os.path.join(folder, "big.mtx")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and not any(".tmp." in n for n in os.listdir(folder)):
            time.sleep(0.05)
        time.sleep(0.3)
        job.send_signal(signo)
        job.wait()
        left = [n for n in os.listdir(folder) if ".tmp." in n]
        if signo == signal.SIGINT:
            check(not left, "SIGINT during gen -o leaves no temporary file: %s" % left)
        else:
            check(len(left) == 1, "kill -9 during gen -o leaves its temporary file: %s" % left)
    r = spbench("gen", "gen:lap2d:5", "-o", os.path.join(folder, "small.mtx"))
    left = [n for n in os.listdir(folder) if ".tmp." in n]
    check(r.returncode == 0 and len(left) == 1,
          "a write of another file leaves the dead process's file: %s" % left)
    r = spbench("gen", "gen:lap2d:5", "-o", os.path.join(folder, "big.mtx"))
    left = [n for n in os.listdir(folder) if ".tmp." in n]
    check(r.returncode == 0 and not left,
          "the next write of the same file removes the dead process's file: %s" % left)


def test_names_are_data(tmp):
    """Item 4: a file name holding a newline, or bytes that are not UTF-8,
    is named the same way in the CSV, the JSON and resume: three resumes
    keep one row each (a newline once made every resume measure it again)
    and the JSON parses (raw bytes once made it invalid); merge and plot
    take the CSV."""
    folder = os.path.join(tmp, "n4")
    os.mkdir(folder)
    shutil.copy(CAGE4, os.path.join(folder, "a\nb.mtx.gz"))
    shutil.copy(WEST, os.path.join(folder.encode(), b"c\xffd.mtx.gz"))
    csv_path, json_path = os.path.join(tmp, "n4.csv"), os.path.join(tmp, "n4.json")
    for _ in range(3):
        r = spbench("run", *FAST, "--kernels", "csr.serial", "--resume", "--csv", csv_path,
                    "--json", json_path, folder)
    rows = read_rows(csv_path)
    doc = json_doc(json_path)
    check(r.returncode == 0 and sorted(x["matrix"] for x in rows) == ["a?b", "c?d"],
          "one row per file after three resumes, names cleaned: %s" %
          [x["matrix"] for x in rows])
    check(doc is not None and sorted(x["matrix"] for x in doc["rows"]) == ["a?b", "c?d"],
          "the JSON parses and names them as the CSV does")
    merged = os.path.join(tmp, "n4m.csv")
    r = spbench("merge", merged, csv_path)
    check(r.returncode == 0, "merge takes the CSV: %s" % r.stderr.strip())


def test_studies_not_mixed(tmp):
    """Item 6: resume refuses rows measured under other --reps, --min-time,
    --tol or --warmup; merge refuses shards of different studies, and a CSV
    and a JSON of different shards side by side (each once gave a file
    stating one study's settings over another's rows)."""
    base = ["--reps", "1", "--min-time", "0", "--warmup", "0", "--quiet", "--threads", "1",
            "--kernels", "csr.serial"]
    csv_path = os.path.join(tmp, "s6.csv")
    spbench("run", *base, "--csv", csv_path, CAGE4)
    for option, value in (("--reps", "2"), ("--min-time", "0.01"), ("--tol", "1e-8"),
                          ("--warmup", "1")):
        changed = list(base)
        if option in changed:
            changed[changed.index(option) + 1] = value
        else:
            changed += [option, value]
        r = spbench("run", *changed, "--resume", "--csv", csv_path, CAGE4, WEST)
        check(r.returncode == 2 and "measured under" in r.stderr and len(read_rows(csv_path)) == 1,
              "resume with %s %s is refused, the CSV untouched: %s" %
              (option, value, r.stderr.strip()[-200:]))
    shards = {}
    for label, extra, matrix in (("a", [], CAGE4), ("tol", ["--tol", "1e-8"], WEST),
                                 ("fp32", ["--precision", "fp32"], WEST), ("b", [], WEST)):
        c, j = os.path.join(tmp, "m6%s.csv" % label), os.path.join(tmp, "m6%s.json" % label)
        spbench("run", *base, *extra, "--csv", c, "--json", j, matrix)
        shards[label] = (c, j)
    out = os.path.join(tmp, "m6.csv")
    for other in ("tol", "fp32"):
        r = spbench("merge", out, shards["a"][0], shards[other][0])
        check(r.returncode == 2 and not os.path.exists(out),
              "merge of shards differing in %s is refused: %s" % (other, r.stderr.strip()))
    r = spbench("merge", out, shards["a"][0], shards["b"][0], "--json",
                os.path.join(tmp, "m6.json"), shards["b"][1], shards["a"][1])
    check(r.returncode == 2 and "different rows" in r.stderr,
          "merge pairing each CSV with another shard's JSON is refused: %s" % r.stderr.strip())
    r = spbench("merge", out, shards["a"][0], shards["b"][0], "--json",
                os.path.join(tmp, "m6.json"), shards["a"][1], shards["b"][1])
    check(r.returncode == 0, "shards of one study merge: %s" % r.stderr.strip())


def test_resume_reads_as_merge(tmp):
    """Item 7: resume gives a row the verdict merge gives it (one reader,
    spbench's own): a row written twice, cut to fewer fields or carrying
    extra fields is refused by both (resume once kept them), and so are a
    fractional entry count and a message that is not UTF-8 (the two readers
    once disagreed on them)."""
    base = os.path.join(tmp, "r7.csv")
    spbench("run", *FAST, "--kernels", "csr.serial,hll.serial.row", "--csv", base, CAGE4)
    lines = open(base, "rb").read().splitlines(True)
    header, first = lines[0], lines[1]
    fields = first.rstrip(b"\n").split(b",")
    columns = header.rstrip(b"\n").split(b",")
    half = list(fields)
    half[columns.index(b"nnz")] += b".5"
    latin1 = list(fields)
    latin1[columns.index(b"message")] = b"caf\xe9"
    cases = {"twice": [header, first, first] + lines[2:],
             "short": [header, b",".join(fields[:48]) + b"\n"] + lines[2:],
             "long": [header, first.rstrip(b"\n") + b"," * 100 + b"\n"] + lines[2:],
             "half": [header, b",".join(half) + b"\n"] + lines[2:],
             "latin1": [header, b",".join(latin1) + b"\n"] + lines[2:]}
    for label, content in cases.items():
        path = os.path.join(tmp, "r7%s.csv" % label)
        with open(path, "wb") as f:
            f.writelines(content)
        r = spbench("run", *FAST, "--kernels", "csr.serial,hll.serial.row", "--resume", "--csv",
                    path, CAGE4)
        m = spbench("merge", os.path.join(tmp, "r7m.csv"), path)
        check(r.returncode == 2 and m.returncode == 2,
              "a row %s: refused by resume (%d: %s) as by merge (%d)" %
              (label, r.returncode, r.stderr.strip()[-160:], m.returncode))


def test_minor_cases(tmp):
    """Item 18: links a folder's listing cannot read are counted in a
    warning (they were skipped without a word); --tol 1e-2 is the factor
    on each row's rounding bound."""
    folder = os.path.join(tmp, "l18")
    os.mkdir(folder)
    shutil.copy(CAGE4, folder)
    os.symlink("nowhere.mtx", os.path.join(folder, "gone.mtx"))
    os.symlink("loop.mtx", os.path.join(folder, "loop.mtx"))
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", os.path.join(tmp, "l18.csv"),
                folder)
    check(r.returncode == 0 and "2 entries named like matrices left out" in r.stderr,
          "the dangling and looping links are counted: %s" % r.stderr.strip())
    csv_path = os.path.join(tmp, "t18.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--precision", "fp32", "--tol", "1e-2",
                "--csv", csv_path, CAGE4)
    rows = read_rows(csv_path)
    check(rows and float(rows[0]["tolerance"]) == 0.01 and
          "within 0.01 x its rounding bound" in r.stdout,
          "--tol 1e-2 is a factor on each row's rounding bound, in the header and the column: "
          "%s" % [x["tolerance"] for x in rows])
    bom, cr = os.path.join(tmp, "bom.mtx"), os.path.join(tmp, "cr.mtx")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbf%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5\n")
    with open(cr, "wb") as f:
        f.write(b"%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1.5\r")
    r = spbench("info", bom)
    check(r.returncode == 0, "a UTF-8 byte-order mark before the banner is read past: %s" %
          r.stderr.strip())
    r = spbench("info", cr)
    check(r.returncode != 0 and "carriage return alone" in r.stderr,
          "CR-only line ends are named as such: %s" % r.stderr.strip())


def main():
    run_tests([test_cache_unreadable_source, test_huge_values, test_option_ranges,
               test_output_is_an_input, test_narrow_resume_keeps_json,
               test_failed_write_closes_json, test_grown_by_same_name, test_fifo_named_directly,
               test_plot_cannot_write, test_output_is_stdout, test_temp_files_cleaned,
               test_names_are_data, test_studies_not_mixed, test_resume_reads_as_merge,
               test_minor_cases],
              "spb_e2e_hostile_", globals())


main()
