#!/usr/bin/env python3
"""The table of a device A/B (scripts/dev/gpu_ab.sh): per matrix and
precision, each candidate row (a row named like a kernel of the run plus a
suffix, e.g. csr.cuda.stream.lr beside csr.cuda.stream) against that
kernel, as the ratio of their median times (> 1: the candidate faster) with
both spreads; the run's best spbench row against its fastest vendor row
(every cuSPARSE and CUSP mode: the JSON's roles); then each candidate's
geometric mean and range. A row wrong or in error is listed, and makes the
exit status 1. Markdown on stdout.

usage: python3 scripts/dev/gpu_ab_table.py AB.json[.gz]
"""
import gzip
import json
import math
import os
import sys

# the tree's results package (a development script: not installed with it)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from spbench.merge import roles_of  # noqa: E402


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def base_of(kernel, kernels):
    """The run's kernel that `kernel` is a candidate beside: the longest
    other row name it begins with, followed by a dot."""
    bases = [k for k in kernels if k != kernel and kernel.startswith(k + ".")]
    return max(bases, key=len) if bases else None


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) != 1:
        sys.exit(__doc__.strip())
    opener = gzip.open if argv[0].endswith(".gz") else open
    try:
        with opener(argv[0], "rt", encoding="utf-8") as f:
            doc = json.load(f)
        rows = [r for r in doc.get("rows", []) if r.get("backend") == "cuda"]
    except (OSError, ValueError, AttributeError) as e:
        sys.exit("gpu_ab_table.py: cannot read %s as a study's JSON: %s" % (argv[0], e))
    _, vendors = roles_of(doc, rows)
    kernels = {r["kernel"] for r in rows}
    cases = {}
    for r in rows:
        cases.setdefault((r["matrix"], r["precision"]), {})[r["kernel"]] = r
    bad = [r for r in rows if r.get("status") in ("wrong", "error")]
    gains = {}
    print("| matrix | prec | candidate | us | its kernel | us | gain | spreads | best spbench "
          "row | fastest vendor row | best/vendor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (matrix, precision), by_kernel in cases.items():
        ok = {k: r for k, r in by_kernel.items() if r.get("status") == "ok"}
        ours = [r for k, r in ok.items() if k not in vendors and k != "auto.cuda"]
        theirs = [r for k, r in ok.items() if k in vendors]
        best = min(ours, key=lambda r: float(r["time_ms_median"])) if ours else None
        vendor = min(theirs, key=lambda r: float(r["time_ms_median"])) if theirs else None
        versus = "%s | %s | %.3fx" % (
            best["kernel"], vendor["kernel"],
            float(vendor["time_ms_median"]) / float(best["time_ms_median"])) \
            if best and vendor else "- | - | -"
        for kernel, cand in sorted(ok.items()):
            base = base_of(kernel, kernels)
            if not base or base not in ok:
                continue
            t_cand, t_base = float(cand["time_ms_median"]), float(ok[base]["time_ms_median"])
            gains.setdefault(kernel, []).append(t_base / t_cand)
            print("| %s | %s | `%s` | %.1f | `%s` | %.1f | %.3fx | %.1f%% / %.1f%% | %s |" % (
                matrix, precision, kernel, t_cand * 1e3, base, t_base * 1e3, t_base / t_cand,
                100 * float(ok[base].get("spread") or 0), 100 * float(cand.get("spread") or 0),
                versus))
    print("\n| candidate | products | gain (geomean) | lowest | highest |")
    print("|---|---|---|---|---|")
    for kernel, g in sorted(gains.items()):
        print("| `%s` | %d | %.3fx | %.3fx | %.3fx |" % (kernel, len(g), geomean(g), min(g),
                                                       max(g)))
    for r in bad:
        print("\n**%s**: `%s` on %s (%s): %s" % (r["status"], r["kernel"], r["matrix"],
                                                 r["precision"], r.get("message", "")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
