#!/usr/bin/env python3
"""The GPU frontier table of a device SpMV study (scripts/dev/gpu_large_study.sh):
per matrix and precision, the best spbench device row, auto.cuda and the
fastest vendor row (every cuSPARSE and CUSP mode: the JSON's roles), their
times, the ratio best/vendor (> 1: spbench faster), GB/s and the fraction
of the device's measured bandwidth; then geometric means per shape class
and per bucket of the vendor's time (under 10 us, 10-100 us, over 100 us).
Markdown on stdout. With --pairs: instead, one line per matrix and
precision, "MATRIX BEST,VENDOR PRECISION", the PAIRS file
scripts/dev/gpu_ncu_limits.sh takes.

usage: python3 scripts/dev/gpu_frontier.py STUDY.json[.gz] [--pairs]
"""
import gzip
import json
import math
import os
import sys

# the tree's results package (a development script: not installed with it)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from spbench.merge import BUCKETS, roles_of  # noqa: E402

# generator shapes by class: irregular (the 1.3x target) or regular (the
# bandwidth target); a matrix read from a file is "real"
CLASSES = (("gen:rmat:", "power law", "irregular"), ("gen:hubs:", "hubs", "irregular"),
           ("gen:circuit:", "circuit", "irregular"), ("gen:lp:", "LP", "irregular"),
           ("gen:random:", "random", "irregular"), ("gen:road:", "road", "regular"),
           ("gen:lap2d:", "Laplacian", "regular"), ("gen:lap3d:", "Laplacian", "regular"),
           ("gen:fem:", "FEM blocks", "regular"))


def shape_of(matrix):
    for prefix, name, kind in CLASSES:
        if matrix.startswith(prefix):
            return name, kind
    return "real", "real"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    rows = [r for r in doc.get("rows", []) if r.get("backend") == "cuda" and
            r.get("status") == "ok" and r.get("operation", "spmv") == "spmv"]
    return doc, rows


def cases(doc, rows):
    """(matrix, precision) -> {kernel: row}, the vendor rows, and the rows
    that are spbench's own kernels (auto.cuda apart: it runs one of them)."""
    _, vendors = roles_of(doc, rows)
    by_case = {}
    for r in rows:
        by_case.setdefault((r["matrix"], r["precision"]), {})[r["kernel"]] = r
    return by_case, set(vendors)


def best_and_vendor(kernels, vendors):
    """The fastest of spbench's own rows (auto.cuda apart) and the fastest
    vendor row of one case, or None where either side has none."""
    ours = [r for k, r in kernels.items() if k not in vendors and k != "auto.cuda"]
    theirs = [r for k, r in kernels.items() if k in vendors]
    if not ours or not theirs:
        return None
    return (min(ours, key=lambda r: float(r["time_ms_median"])),
            min(theirs, key=lambda r: float(r["time_ms_median"])))


def fmt_us(ms):
    return "%.1f" % (1e3 * ms)


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] != "--pairs"):
        sys.exit(__doc__.strip())
    try:
        doc, rows = load(argv[0])
    except (OSError, ValueError, AttributeError) as e:
        sys.exit("gpu_frontier.py: cannot read %s as a study's JSON: %s" % (argv[0], e))
    by_case, vendors = cases(doc, rows)
    if len(argv) == 2:
        for (matrix, precision), kernels in by_case.items():
            pair = best_and_vendor(kernels, vendors)
            if pair:
                print("%s %s,%s %s" % (matrix, pair[0]["kernel"], pair[1]["kernel"], precision))
        return
    summary = {}
    print("| matrix | prec | best spbench row | us | auto.cuda us (of best) | fastest vendor row "
          "| us | best/vendor | best GB/s | of measured bw |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (matrix, precision), kernels in by_case.items():
        pair = best_and_vendor(kernels, vendors)
        if not pair:
            continue
        best, vendor = pair
        t_best, t_vendor = float(best["time_ms_median"]), float(vendor["time_ms_median"])
        auto = kernels.get("auto.cuda")
        t_auto = float(auto["time_ms_median"]) if auto else float("nan")
        ratio = t_vendor / t_best
        frac = best.get("roofline_frac")
        print("| %s | %s | `%s` | %s | %s (%.2f) | `%s` | %s | %.2fx | %.0f | %s |" % (
            matrix, precision, best["kernel"], fmt_us(t_best),
            fmt_us(t_auto) if auto else "-", t_best / t_auto if auto else float("nan"),
            vendor["kernel"], fmt_us(t_vendor), ratio, float(best["gbytes_per_s"]),
            "%.2f" % float(frac) if frac not in (None, "") else "-"))
        name, kind = shape_of(matrix)
        bucket = next(b[2] for b in BUCKETS if b[0] <= t_vendor < b[1])
        for key in ((precision, "class", kind), (precision, "shape", name),
                    (precision, "bucket", bucket)):
            entry = summary.setdefault(key, {"ratio": [], "auto": [], "frac": []})
            entry["ratio"].append(ratio)
            if auto:
                entry["auto"].append(t_best / t_auto)
            if frac not in (None, ""):
                entry["frac"].append(float(frac))
    print("\n| precision | group | matrices | best/vendor (geomean) | lowest | auto.cuda of best "
          "(geomean) | of measured bw (mean) |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(summary):
        e = summary[key]
        print("| %s | %s %s | %d | %.2fx | %.2fx | %.2f | %.2f |" % (
            key[0], key[1], key[2], len(e["ratio"]), geomean(e["ratio"]), min(e["ratio"]),
            geomean(e["auto"]), sum(e["frac"]) / len(e["frac"]) if e["frac"] else float("nan")))


if __name__ == "__main__":
    main(sys.argv[1:])
