"""A kernel's time against the vendor's best, per matrix: the fastest
device library row of the same run (every cuSPARSE mode, CUSP), split by
that row's time per product (under 10 us, 10-100 us, over 100 us), beside
the ratio to cusparse.csr alone; with which vendor row was fastest how
often. The figures MEASUREMENTS.md quotes against the vendor come from it.

usage: python3 scripts/dev/vendor_best.py KERNEL RESULTS.{csv,json}[.gz]...
"""
import gzip
import math
import os
import sys

# the tree's results package (a development script: not installed with it)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from spbench import results  # noqa: E402

VENDOR = ("cusparse.", "cusp.")  # files of before the JSON's roles: the device library rows
BUCKETS = ((0, 0.01, "under 10 us"), (0.01, 0.1, "10-100 us"), (0.1, math.inf, "over 100 us"))


def rows_of(path):
    """A results CSV's or JSON's rows (plain or gzip-compressed), as text."""
    with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
        return results.text_rows(results.parse(path, f.read()))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv):
    kernel, paths = argv[0], argv[1:]
    best = {}  # (file, matrix, precision, kernel) -> the row's best median time (ms)
    for path in paths:
        for r in rows_of(path):
            if r["status"] != "ok" or r.get("backend") not in ("cuda", None):
                continue
            key = (path, r["matrix"], r.get("precision") or "fp64", r["kernel"])
            t = float(r["time_ms_median"])
            best[key] = min(best.get(key, t), t)
    for precision in sorted({k[2] for k in best}):
        ratios, to_csr, fastest = {b[2]: [] for b in BUCKETS}, [], {}
        cases = sorted({k[:3] for k in best if k[2] == precision and k[3] == kernel})
        for case in cases:
            vendors = [(t, k[3]) for k, t in best.items() if k[:3] == case and
                       k[3].startswith(VENDOR)]
            if not vendors:
                continue
            t_vendor, which = min(vendors)
            fastest[which] = fastest.get(which, 0) + 1
            mine = best[case + (kernel,)]
            for low, high, label in BUCKETS:
                if low <= t_vendor < high:
                    ratios[label].append(t_vendor / mine)
            if case + ("cusparse.csr",) in best:
                to_csr.append(best[case + ("cusparse.csr",)] / mine)
        everything = [r for label in ratios for r in ratios[label]]
        print("%s, %s: %d matrices; vs cusparse.csr %.3fx; vs the vendor's best %.3fx "
              "(lowest %.3f)" % (kernel, precision, len(everything), geomean(to_csr),
                                 geomean(everything), min(everything) if everything else 0))
        for _, _, label in BUCKETS:
            values = ratios[label]
            if values:
                print("  %-12s %3d matrices: %.3fx (lowest %.3f, highest %.3f)" % (
                    label, len(values), geomean(values), min(values), max(values)))
        print("  fastest vendor row: %s" % ", ".join(
            "%s %d" % (k, n) for k, n in sorted(fastest.items(), key=lambda p: -p[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
