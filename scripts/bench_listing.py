#!/usr/bin/env python3
"""Benchmark of a study's start over a large collection: listing a folder of
N matrix files and resuming a complete CSV of them (both once quadratic:
10,000 files took minutes before any row was measured).

usage: scripts/bench_listing.py SPBENCH [N ...]   (default N: 1000 10000)

For each N it writes N tiny matrices to a temporary folder, measures them
once (csr.serial, one sample), then times a --resume of the complete CSV,
which lists the folder, reads the CSV back and replays every row without
measuring, and the same command on one file: the difference is what the
N files cost. Medians of three resumes; wall-clock seconds.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FAST = ["--quiet", "--kernels", "csr.serial", "--threads", "1", "--reps", "1", "--min-time", "0",
        "--warmup", "0"]


def timed(args):
    start = time.perf_counter()
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(args), r.stderr))
    return time.perf_counter() - start


def write_matrices(folder, n):
    for i in range(n):
        with open(os.path.join(folder, "m%06d.mtx" % i), "w") as f:
            f.write("%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 %d.5\n2 2 1\n"
                    % (i + 1))


def main():
    spbench = sys.argv[1]
    sizes = [int(a) for a in sys.argv[2:]] or [1000, 10000]
    tmp = tempfile.mkdtemp(prefix="spb_bench_listing_")
    try:
        one = os.path.join(tmp, "one")
        os.mkdir(one)
        write_matrices(one, 1)
        one_csv = os.path.join(tmp, "one.csv")
        timed([spbench, "run", *FAST, "--csv", one_csv, one])
        fixed = statistics.median(
            timed([spbench, "run", *FAST, "--resume", "--csv", one_csv, one]) for _ in range(3))
        print("files  first_run_s  resume_s  resume_minus_one_file_s")
        for n in sizes:
            folder = os.path.join(tmp, "n%d" % n)
            os.mkdir(folder)
            write_matrices(folder, n)
            csv_path = os.path.join(tmp, "n%d.csv" % n)
            first = timed([spbench, "run", *FAST, "--csv", csv_path, folder])
            resume = statistics.median(
                timed([spbench, "run", *FAST, "--resume", "--csv", csv_path, folder])
                for _ in range(3))
            print("%5d  %11.1f  %8.2f  %23.2f" % (n, first, resume, resume - fixed))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
