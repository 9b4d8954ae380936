#!/usr/bin/env python3
"""SpGEMM targets from a results CSV: per B (settings b=...) and over the
square matrices, the geometric means of spgemm.omp at 2 threads against
graphblas.mxm at 2 threads and against spgemm.gustavson, and of
spgemm.gustavson against spgemm.hash (time ratios from the same run).

usage: scripts/spgemm_targets.py RESULTS.csv
"""
import csv
import math
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    rows = [r for r in csv.DictReader(open(sys.argv[1]))
            if r.get("operation") == "spgemm" and r["status"] == "ok" and r["rows"] == r["cols"]]
    time = {}
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
            worst = min(ratios) if ratios else float("nan")
            print("  %-36s geomean %.2fx over %d (lowest %.2fx, target %.1fx: %s)"
                  % (label, geomean(ratios), len(ratios), worst, target,
                     "met" if geomean(ratios) >= target else "missed"))


main()
