"""End-to-end fault tests: a batch of 50 matrices with 5 broken in different
ways gives 45 measured matrices, 5 error rows with one clear message each
and a non-zero exit; a CSV on a full disk is reported at the first failed
write, before any measuring; a stream of more than 2 GB is parsed through
a pipe with bounded memory.

usage: e2e_faults.py SPBENCH SOURCE_DIR
"""
import os
import subprocess
import sys
import threading

from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests
BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "1", "--min-time", "0", "--warmup", "0", "--quiet"]




BROKEN = {
    "b07_truncated.mtx": ("%%MatrixMarket matrix coordinate real general\n4 4 4\n1 1 1.000000\n"
                          "2 2 2.000000\n3 3 3.000000\n4 4", "file ends mid-line"),
    "b15_banner.mtx": ("%%MatrixMarket matrix coordinate real generous\n2 2 1\n1 1 1\n",
                       "unknown banner symmetry 'generous'"),
    "b23_range.mtx": ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 9 1\n",
                      "column index 9 outside 1..3"),
    "b31_complex.mtx": ("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n",
                        "entry has 3 items, expected 4"),
    "b44_empty.mtx": ("", "empty file"),
}


def test_fifty_with_five_broken(tmp):
    batch = os.path.join(tmp, "fifty")
    os.mkdir(batch)
    for k in range(45):
        r = spbench("gen", "gen:random:%d:%d" % (40 + 7 * k, 1 + k % 5),
                    "-o", os.path.join(batch, "g%02d_random.mtx.gz" % k))
        check(r.returncode == 0, "gen %d: %s" % (k, r.stderr))
    for name, (text, _) in BROKEN.items():
        with open(os.path.join(batch, name), "w") as f:
            f.write(text)
    out = os.path.join(tmp, "fifty.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial,hll.serial.col", "--csv", out, batch)
    check(r.returncode == 1, "a batch with broken files exits 1 (got %d)" % r.returncode)
    rows = read_rows(out)
    measured = {row["matrix"] for row in rows if row["status"] == "ok"}
    errors = [row for row in rows if row["status"] == "error"]
    check(len(measured) == 45, "45 matrices measured (got %d)" % len(measured))
    check(len(errors) == 5, "5 error rows (got %d)" % len(errors))
    for name, (_, cause) in BROKEN.items():
        mine = [row for row in errors if row["matrix"] == name[:-4]]
        check(len(mine) == 1, "%s: one error row" % name)
        if mine:
            message = mine[0]["message"]
            check(name in message and cause in message,
                  "%s: the message names the file and the cause: %s" % (name, message))
            check("\n" not in message and message.count(name) == 1, "%s: one message" % name)
    check("# 95 rows: 90 ok, 0 wrong, 0 skipped, 5 error" in r.stdout, "the totals line")


def test_full_disk():
    if not os.path.exists("/dev/full"):
        skip("no /dev/full: the full-disk tests", "/dev/full")
        return
    r = spbench("run", *FAST, "--csv", "/dev/full", os.path.join(BUNDLED, "cage4.mtx.gz"))
    check(r.returncode != 0 and "/dev/full" in r.stderr and "No space left" in r.stderr,
          "a full disk is reported: %s" % r.stderr.strip())
    check("csr.serial" not in r.stdout, "nothing is measured after the first failed write")
    r = spbench("run", *FAST, "--json", "/dev/full", os.path.join(BUNDLED, "cage4.mtx.gz"))
    check(r.returncode != 0 and "/dev/full" in r.stderr, "a full disk for --json is reported")


def test_stream_beyond_2gb(tmp):
    """More than 2 GB of Matrix Market text through a named pipe: the reader
    streams it (a pipe cannot be mapped or read whole) with bounded memory."""
    fifo = os.path.join(tmp, "stream.mtx")
    os.mkfifo(fifo)
    comment = b"%" + b" padding comment line" * 48 + b"\n"  # about 1 KB
    lines = (2200 * 1024 * 1024) // len(comment) + 1

    def writer():
        with open(fifo, "wb") as f:
            f.write(b"%%MatrixMarket matrix coordinate real general\n")
            block = comment * 1024
            for _ in range(lines // 1024 + 1):
                f.write(block)
            f.write(b"3 3 3\n1 1 1.5\n2 2 -2\n3 1 4\n")

    t = threading.Thread(target=writer)
    t.start()
    # a fresh parent measures the peak memory of this one command alone
    probe = ("import resource, subprocess, sys; "
             "r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "sys.stdout.write(r.stdout); sys.stderr.write(r.stderr); "
             "print('peak_kb', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
             "sys.exit(r.returncode)")
    r = subprocess.run([sys.executable, "-c", probe, SPBENCH, "info", fifo], capture_output=True,
                       text=True, timeout=900)
    t.join()
    peak = [line for line in r.stdout.splitlines() if line.startswith("peak_kb")]
    peak_kb = int(peak[0].split()[1]) if peak else 1 << 30
    check(r.returncode == 0 and "3 x 3, nnz 3" in r.stdout,
          "a 2.2 GB stream parses: %s %s" % (r.stdout[-200:], r.stderr[-200:]))
    mb = [line for line in r.stdout.splitlines() if "MB of text" in line]
    check(mb and float(mb[0].split(" for ")[1].split(" MB")[0]) > 2200,
          "more than 2.2 GB were read: %s" % mb)
    check(peak_kb < 200 * 1024, "memory stayed bounded: peak %d MB" % (peak_kb // 1024))


def main():
    run_tests([test_fifty_with_five_broken, test_full_disk, test_stream_beyond_2gb],
              "spb_e2e_faults_", globals())


main()
