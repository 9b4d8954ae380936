#!/usr/bin/env python3
"""SpGEMM targets from a results CSV: per B (settings b=...) and over the
square matrices, the geometric means of spgemm.omp at 2 threads against
graphblas.mxm at 2 threads and against spgemm.gustavson, and of
spgemm.gustavson against spgemm.hash; where the CSV has device rows, each
device kernel and the best one per matrix against cusparse.spgemm (whole
products; targets 1.5x for A*A with no matrix below 1.0x, 2.0x for a thin
B). Time ratios from the same run.

usage: scripts/dev/spgemm_targets.py RESULTS.csv
"""
import csv
import gzip
import math
import sys

def open_text(path):
    """A results CSV, plain or gzip-compressed (docs/results keeps them .gz)."""
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")



def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def gpu_targets(time, b, matrices):
    """Whole-product time of cusparse.spgemm over each device kernel's."""
    kernels = sorted({k[2] for k in time if k[0] == b and k[2].startswith("spgemm.cuda.")})
    base = {m: time[(b, m, "cusparse.spgemm", "1")] for m in matrices
            if (b, m, "cusparse.spgemm", "1") in time}
    if not kernels or not base:
        return
    best = {}
    for k in kernels:
        ratios = {m: base[m] / time[(b, m, k, "1")] for m in base if (b, m, k, "1") in time}
        for m, r in ratios.items():
            best[m] = max(best.get(m, 0.0), r)
        print("  %-36s geomean %.2fx vs cusparse.spgemm over %d (lowest %.2fx)"
              % (k, geomean(list(ratios.values())), len(ratios), min(ratios.values())))
    target = 1.5 if b == "self" else 2.0
    worst = min(best, key=best.get)
    print("  %-36s geomean %.2fx over %d (target %.1fx: %s); lowest %.2fx (%s)%s"
          % ("best device kernel per matrix", geomean(list(best.values())), len(best), target,
             "met" if geomean(list(best.values())) >= target else "missed", best[worst], worst,
             (", %d below 1.0x" % sum(v < 1.0 for v in best.values())) if b == "self" else ""))


def main():
    rows = [r for r in csv.DictReader(open_text(sys.argv[1]))
            if r.get("operation") == "spgemm" and r["status"] == "ok" and r["rows"] == r["cols"]]
    time = {}
    noisy = sum(r.get("noisy") == "1" for r in rows)
    if noisy:
        print("note: %d of the %d rows are noisy (the CSV's noisy column): ratios may not hold"
              % (noisy, len(rows)))
    for r in rows:
        b = r["settings"].partition(" b=")[2] or "self"
        time[(b, r["matrix"], r["kernel"], r["threads"])] = float(r["time_ms_median"])
    pairs = (("spgemm.omp@2 vs graphblas.mxm@2", ("spgemm.omp", "2"), ("graphblas.mxm", "2"), 1.0),
             ("spgemm.omp@2 vs spgemm.gustavson", ("spgemm.omp", "2"), ("spgemm.gustavson", "1"),
              1.6),
             ("spgemm.gustavson vs spgemm.hash", ("spgemm.gustavson", "1"), ("spgemm.hash", "1"),
              3.0))
    for b in sorted({k[0] for k in time}):
        matrices = sorted({k[1] for k in time if k[0] == b})
        print("B = %s: %d square matrices" % (b, len(matrices)))
        for label, fast, slow, target in pairs:
            ratios = [time[(b, m) + slow] / time[(b, m) + fast] for m in matrices
                      if (b, m) + fast in time and (b, m) + slow in time]
            if not ratios:
                continue
            print("  %-36s geomean %.2fx over %d (lowest %.2fx, target %.1fx: %s)"
                  % (label, geomean(ratios), len(ratios), min(ratios), target,
                     "met" if geomean(ratios) >= target else "missed"))
        gpu_targets(time, b, matrices)


main()
