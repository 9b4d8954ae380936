"""Per matrix, the best spbench kernel at a thread count against each
library baseline, from one results CSV: GFLOPS, roofline fraction, and the
time ratio t(library) / t(best spbench kernel), with geometric means.

usage: python3 scripts/dev/compare_baselines.py RESULTS.csv [THREADS] [PATTERN]
PATTERN (default 'csr.omp.*,hll.omp.*') picks the spbench kernels compared.
"""
import csv
import fnmatch
import gzip
import math
import sys

def open_text(path):
    """A results CSV, plain or gzip-compressed (docs/results archives keep them uncompressed; older ones are .gz)."""
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")


BASELINES = ("librsb", "graphblas")


def main():
    path = sys.argv[1]
    threads = sys.argv[2] if len(sys.argv) > 2 else None
    patterns = (sys.argv[3] if len(sys.argv) > 3 else "csr.omp.*,hll.omp.*").split(",")
    rows = [r for r in csv.DictReader(open_text(path)) if r["status"] == "ok"]
    if threads is None:
        threads = max((r["threads"] for r in rows), key=int)
    matrices = []
    for r in rows:
        if r["matrix"] not in matrices:
            matrices.append(r["matrix"])
    print("threads = %s; ratio = t(library) / t(best spbench kernel), > 1 means spbench is faster"
          % threads)
    print("%-22s %-15s %8s %6s %s" % ("matrix", "best kernel", "GFLOPS", "roof",
                                      " ".join("%10s" % b for b in BASELINES)))
    logs = {b: [] for b in BASELINES}
    noisy_matrices = 0
    for m in matrices:
        mine = [r for r in rows if r["matrix"] == m and r["threads"] == threads
                and any(fnmatch.fnmatch(r["kernel"], p) for p in patterns)]
        if not mine:
            continue
        best = min(mine, key=lambda r: float(r["time_ms_median"]))
        t = float(best["time_ms_median"])
        ratios = []
        for b in BASELINES:
            lib = [r for r in rows if r["matrix"] == m and r["threads"] == threads
                   and r["kernel"] == b]
            if lib:
                ratio = float(lib[0]["time_ms_median"]) / t
                logs[b].append(math.log(ratio))
                ratios.append("%10.2f" % ratio)
            else:
                ratios.append("%10s" % "-")
        compared = mine + [r for r in rows if r["matrix"] == m and r["threads"] == threads
                           and r["kernel"] in BASELINES]
        noisy = any(r.get("noisy") == "1" for r in compared)
        noisy_matrices += noisy
        print("%-22s %-15s %8.3f %6.3f %s" % (m, best["kernel"] + ("*" if noisy else ""),
                                              float(best["gflops"]),
                                              float(best["roofline_frac"]), " ".join(ratios)))
    print("%-22s %-15s %8s %6s %s" % ("geometric mean", "", "", "", " ".join(
        "%10.2f" % math.exp(sum(v) / len(v)) if v else "%10s" % "-" for v in logs.values())))
    if noisy_matrices:
        print("* compared among noisy rows on %d matrices: the ratio may not hold"
              % noisy_matrices)


main()
