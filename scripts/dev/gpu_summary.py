"""Per matrix, every GPU kernel's GFLOPS and roofline fraction, and the best
spbench kernel's time ratio to cusparse.csr (> 1: spbench is faster), with
the geometric mean, from one results CSV: a table per precision. The best
kernel is picked among the kernels themselves: auto.cuda runs one of them,
so it is shown but not a candidate. Markdown on stdout.

usage: python3 scripts/dev/gpu_summary.py RESULTS.csv
"""
import csv
import gzip
import math
import sys

def open_text(path):
    """A results CSV, plain or gzip-compressed (docs/results archives keep them uncompressed; older ones are .gz)."""
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")



def table(rows, precision):
    kernels, matrices = [], []
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
        if r["matrix"] not in matrices:
            matrices.append(r["matrix"])
    short = [k.replace("csr.cuda.", "c.").replace("hll.cuda.", "h.").replace("cusparse.", "cs.")
             for k in kernels]
    print("## %s\n" % precision)
    print("GFLOPS / roofline fraction per kernel (c. = csr.cuda, h. = hll.cuda, cs. = cusparse);"
          " ratio = t(cusparse.csr) / t(best spbench kernel)\n")
    print("| matrix | nnz | " + " | ".join(short) + " | best spbench | ratio |")
    print("|---|---:|" + "---:|" * len(kernels) + "---|---:|")
    logs, noisy_matrices = [], 0
    for m in matrices:
        mine = {r["kernel"]: r for r in rows if r["matrix"] == m}
        cells = []
        for k in kernels:
            r = mine.get(k)
            cells.append("%.1f / %.2f" % (float(r["gflops"]), float(r["roofline_frac"]))
                         if r else "-")
        ours = [r for k, r in mine.items() if not k.startswith("cusparse.") and k != "auto.cuda"]
        best = min(ours, key=lambda r: float(r["time_ms_median"])) if ours else None
        ratio = ""
        if best and "cusparse.csr" in mine:
            value = float(mine["cusparse.csr"]["time_ms_median"]) / float(best["time_ms_median"])
            logs.append(math.log(value))
            ratio = "%.2f" % value
        nnz = next(iter(mine.values()))["nnz"]
        noisy = any(r.get("noisy") == "1" for r in mine.values())
        noisy_matrices += noisy
        print("| %s | %s | %s | %s | %s |" % (m, nnz, " | ".join(cells),
                                               (best["kernel"] + ("*" if noisy else ""))
                                               if best else "-", ratio))
    if logs:
        print("\ngeometric mean of the ratio over %d matrices: %.2f\n"
              % (len(logs), math.exp(sum(logs) / len(logs))))
    if noisy_matrices:
        print("\\* ranked among noisy rows on %d matrices: the order may not hold\n"
              % noisy_matrices)


def main():
    rows = [r for r in csv.DictReader(open_text(sys.argv[1]))
            if r["status"] == "ok" and r["backend"] == "cuda"]
    precisions = []
    for r in rows:
        p = r.get("precision") or "fp64"
        if p not in precisions:
            precisions.append(p)
    for p in precisions:
        table([r for r in rows if (r.get("precision") or "fp64") == p], p)


main()
