"""End-to-end tests of what makes a results file trustworthy: resume after
a cut, distinct keys for distinct files, a batch that survives a matrix too
large for memory, one writer per results file, outputs checked before any
is truncated, Ctrl-C, speedups after a resume, and the noise flag.

usage: e2e_trust.py SPBENCH SOURCE_DIR
"""
import gzip
import json
import os
import shutil
import subprocess
import tempfile
import threading

from spbtest import SOURCE, check, finish, read_rows, skip, spbench

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
    r = spbench("run", *FAST, "--kernels", KERNELS, "--csv", base, *THREE)
    check(r.returncode == 0, "the reference run: %s" % r.stderr)
    whole = open(base, "rb").read()
    expected = keys(read_rows(base))
    check(len(expected) == 9 and len(whole) < 4096, "9 rows in a file under 4 KiB")
    for cut in (0, 1, 4, 40, 100):
        csv_path = os.path.join(tmp, "cut%d.csv" % cut)
        json_path = os.path.join(tmp, "cut%d.json" % cut)
        with open(csv_path, "wb") as f:
            f.write(whole[:len(whole) - cut])
        r = spbench("run", *FAST, "--kernels", KERNELS, "--resume", "--csv", csv_path, "--json",
                    json_path, *THREE)
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
        skip("no /dev/full: resume from a device")
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


def main():
    tmp = tempfile.mkdtemp(prefix="spb_e2e_trust_")
    try:
        test_resume_after_cut(tmp)
        test_resume_edge_files(tmp)
        test_fifo_sources(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
