#!/usr/bin/env python3
"""SpGEMM targets from results files (CSV or JSON): per B (settings b=...), the geometric
means of spgemm.omp at 2 threads against graphblas.mxm at 2 threads and
against spgemm.gustavson, and of spgemm.gustavson against spgemm.hash;
where the CSVs have device rows, each device kernel and the best one per
product against the fastest cuSPARSE SpGEMM row of that product
(cusparse.spgemm and its .alg2/.alg3 rows; target 2.0x, none below 1.0x),
and spgemm.cuda.auto's device_peak_bytes against that row's. A product is
a matrix in one precision (A*A, or A*A^T where A is not square, unless B
is given). Time ratios from the same run.

usage: scripts/dev/spgemm_targets.py RESULTS.{csv,json}[.gz]...
"""
import gzip
import math
import os
import sys

# the tree's results package (a development script: not installed with it)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from spbench import results  # noqa: E402

def rows_of(path):
    """A results CSV's or JSON's rows, plain or gzip-compressed (docs/results
    archives keep them uncompressed; older ones are .gz), as text."""
    with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
        return results.text_rows(results.parse(path, f.read()))



def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def gpu_targets(time, peak, b, matrices):
    """Whole-product time of the fastest cuSPARSE row over each device kernel's."""
    kernels = sorted({k[2] for k in time if k[0] == b and k[2].startswith("spgemm.cuda.")})
    vendor = {}
    for m in matrices:
        rows = [(time[k], k[2]) for k in time if k[:2] == (b, m) and k[2].startswith("cusparse.spgemm")]
        if rows:
            vendor[m] = min(rows)
    if not kernels or not vendor:
        return
    best = {}
    for k in kernels:
        ratios = {m: vendor[m][0] / time[(b, m, k, "1")] for m in vendor if (b, m, k, "1") in time}
        for m, r in ratios.items():
            best[m] = max(best.get(m, 0.0), r)
        print("  %-36s geomean %.2fx vs the fastest cuSPARSE row over %d (lowest %.2fx)"
              % (k, geomean(list(ratios.values())), len(ratios), min(ratios.values())))
    worst = min(best, key=best.get)
    print("  %-36s geomean %.2fx over %d (target 2.0x: %s); lowest %.2fx (%s), %d below 1.0x"
          % ("best device kernel per product", geomean(list(best.values())), len(best),
             "met" if geomean(list(best.values())) >= 2.0 else "missed", best[worst], worst,
             sum(v < 1.0 for v in best.values())))
    memory = {m: peak[(b, m, "spgemm.cuda.auto")] / peak[(b, m, vendor[m][1])] for m in vendor
              if peak.get((b, m, "spgemm.cuda.auto"), 0) > 0 and peak.get((b, m, vendor[m][1]), 0) > 0}
    if memory:
        most = max(memory, key=memory.get)
        print("  %-36s geomean %.2f of that row's over %d; above it on %d (most %.2fx, %s)"
              % ("spgemm.cuda.auto's device memory", geomean(list(memory.values())), len(memory),
                 sum(v > 1.0 for v in memory.values()), memory[most], most))


def main():
    rows = [r for path in sys.argv[1:] for r in rows_of(path)
            if r.get("operation") == "spgemm" and r["status"] == "ok"]
    time, peak = {}, {}
    noisy = sum(r.get("noisy") == "1" for r in rows)
    if noisy:
        print("note: %d of the %d rows are noisy (the CSV's noisy column): ratios may not hold"
              % (noisy, len(rows)))
    for r in rows:
        b = r["settings"].partition(" b=")[2].split(" ")[0] or "self"
        product = r["matrix"] + (" (fp32)" if r.get("precision") == "fp32" else "")
        time[(b, product, r["kernel"], r["threads"])] = float(r["time_ms_median"])
        if r.get("device_peak_bytes"):
            peak[(b, product, r["kernel"])] = float(r["device_peak_bytes"])
    pairs = (("spgemm.omp@2 vs graphblas.mxm@2", ("spgemm.omp", "2"), ("graphblas.mxm", "2"), 1.0),
             ("spgemm.omp@2 vs spgemm.gustavson", ("spgemm.omp", "2"), ("spgemm.gustavson", "1"),
              1.6),
             ("spgemm.gustavson vs spgemm.hash", ("spgemm.gustavson", "1"), ("spgemm.hash", "1"),
              3.0))
    for b in sorted({k[0] for k in time}):
        matrices = sorted({k[1] for k in time if k[0] == b})
        print("B = %s: %d products" % (b, len(matrices)))
        for label, fast, slow, target in pairs:
            ratios = [time[(b, m) + slow] / time[(b, m) + fast] for m in matrices
                      if (b, m) + fast in time and (b, m) + slow in time]
            if not ratios:
                continue
            print("  %-36s geomean %.2fx over %d (lowest %.2fx, target %.1fx: %s)"
                  % (label, geomean(ratios), len(ratios), min(ratios), target,
                     "met" if geomean(ratios) >= target else "missed"))
        gpu_targets(time, peak, b, matrices)


main()
