#!/usr/bin/env python3
"""Nsight Compute's limiter per row, from scripts/dev/gpu_ncu_limits.sh's
archive: per row, the kernels it launched more than once (one launch is a
setup: cuSPARSE's CSR-to-COO conversion, a partition), each kernel's
median launch; the table gives the longest of them (its time and
counters; "+N": N other kernels in the product, whose time the study's
table has; csr.cuda.colblock launches its kernel once per column panel);
the limiter is the highest of DRAM, L2, L1 and SM throughput (% of peak).
Markdown on stdout.

usage: python3 scripts/dev/gpu_ncu_limits.py OUT.tgz
"""
import csv
import io
import re
import sys
import tarfile

COLUMNS = (("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %"),
           ("lts__t_sectors.avg.pct_of_peak_sustained_elapsed", "L2 sectors %"),
           ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 %"),
           ("lts__t_sector_hit_rate.pct", "L2 hit %"),
           ("l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "L1 %"),
           ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM %"),
           ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue %"),
           ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy %"),
           ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
            "long-scoreboard stalls / issue"))
LIMITS = (("DRAM", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
          ("L2", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
          ("L1", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
          ("SM", "sm__throughput.avg.pct_of_peak_sustained_elapsed"))
TIME = "gpu__time_duration.sum"


def launches(text):
    """{launch id: {"name": kernel, metric: value}} of one ncu CSV."""
    body = text[text.index('"ID"'):] if '"ID"' in text else ""
    by = {}
    for r in csv.DictReader(io.StringIO(body)):
        entry = by.setdefault(r["ID"], {"name": r["Kernel Name"]})
        entry[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return by


def product(by):
    """(the longest repeated kernel's median time in us, its name, its
    counters, the number of repeated kernels)."""
    names = {}
    for launch in by.values():
        names.setdefault(launch["name"], []).append(launch)
    repeated = {n: ls for n, ls in names.items() if len(ls) > 1} or names
    medians = {n: sorted(ls, key=lambda l: l[TIME])[len(ls) // 2] for n, ls in repeated.items()}
    main = max(medians, key=lambda n: medians[n][TIME])
    return medians[main][TIME] / 1e3, main, medians[main], len(medians)


def main(argv):
    if len(argv) != 1:
        print(__doc__.split("\n\n")[-1].strip(), file=sys.stderr)
        return 2
    with tarfile.open(argv[0]) as tar:
        files = {m.name.split("/")[-1]: tar.extractfile(m).read().decode()
                 for m in tar.getmembers() if m.isfile()}
    if "index.tsv" not in files:  # gpu_ncu_limits.sh given no pairs, or stopped first
        print("%s: no index.tsv: no row was profiled" % argv[0], file=sys.stderr)
        return 1
    print("| matrix | prec | row | kernel | kernel us | %s | limiter |" %
          " | ".join(c for _, c in COLUMNS))
    print("|---|---|---|---|---|%s---|" % ("---|" * len(COLUMNS)))
    for line in files["index.tsv"].splitlines():
        index, matrix, row, precision = (line.split("\t") + ["fp64"])[:4]  # older: fp64 only
        by = launches(files.get(index + ".csv", ""))
        matrix = matrix.replace("gen:", "").split("/")[-1].replace(".mtx.gz", "")
        if not by:
            print("| %s | %s | %s | (no launch profiled) |" % (matrix, precision, row))
            continue
        us, name, k, kernels = product(by)
        name = re.sub(r"\(.*", "", name).replace("void ", "").split("<")[0].split("::")[-1]
        name += " (+%d)" % (kernels - 1) if kernels > 1 else ""
        limit = max(LIMITS, key=lambda l: k[l[1]])
        print("| %s | %s | `%s` | `%s` | %.1f | %s | %s %.0f%% |" % (
            matrix, precision, row, name, us,
            " | ".join("%.1f" % k[m] if "ratio" in m else "%.0f" % k[m] for m, _ in COLUMNS),
            limit[0], k[limit[1]]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
