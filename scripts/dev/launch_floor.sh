#!/usr/bin/env bash
# The launch floor and the launch-bound products measured in one call on one
# host (docs/results/2026-12-06-bsr-launch-floor-h100.md: the floor is the
# host's, so the two must share a machine): api_costs' event-timed
# back-to-back empty launches, then every device row on the small bundled
# matrices, then each product's fastest spbench row and fastest vendor row
# over that floor (a run of 20 small matrices takes about 5 minutes on an H100).
#
# usage: scripts/dev/launch_floor.sh SPBENCH OUTDIR [MATRIX...]
#   (default matrices: the bundled ones; OUTDIR gets api_costs.txt,
#   small.csv and the summary)
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
spbench=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvcc -arch=native -O2 -o "$out/api_costs" "$here/api_costs.cu"
"$out/api_costs" > "$out/api_costs.txt"
matrices=("$@")
[ ${#matrices[@]} -gt 0 ] || matrices=("$here/../../matrices")
"$spbench" run --kernels '*cuda*,cusparse.*' --precision both --reps 100 --min-time 0.1 \
    --bandwidth none --energy-s 0 --csv "$out/small.csv" "${matrices[@]}"
python3 - "$out/api_costs.txt" "$out/small.csv" <<'PY' | tee "$out/summary.txt"
import csv, math, re, sys
floor = [float(m) for m in re.findall(r"empty kernels, +1 blocks: median +([0-9.]+) us",
                                      open(sys.argv[1]).read())]
floor = sorted(floor)[len(floor) // 2]
best = {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["status"] != "ok" or (r.get("operation") or "spmv") != "spmv":
        continue
    side = "vendor" if r["kernel"].startswith(("cusparse.", "cusp.")) else "spbench"
    key, t = (r["matrix"], r["precision"]), float(r["time_ms_median"]) * 1e3
    best.setdefault(key, {})[side] = min(t, best.get(key, {}).get(side, math.inf))
pairs = [(k, v) for k, v in sorted(best.items()) if len(v) == 2 and v["vendor"] < 10]
fastest = min(v["spbench"] for _, v in pairs) if pairs else math.nan
print("floor: %.2f us a launch (event-timed back-to-back empty kernels); the run's fastest "
      "product %.2f us (the host's pace drifts: the truer floor of the two)" % (floor, fastest))
for (m, p), v in pairs:
    print("%-28s %-10s spbench %6.2f us (%.2fx floor)  vendor %6.2f us (%.2fx floor)  ratio %.3f"
          % (m[-28:], p, v["spbench"], v["spbench"] / floor, v["vendor"], v["vendor"] / floor,
             v["vendor"] / v["spbench"]))
if pairs:
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print("%d products under 10 us: ratio %.3f (geometric mean); at most %.3f with spbench at "
          "the run's fastest product" % (len(pairs), g([v["vendor"] / v["spbench"] for _, v in pairs]),
                         g([v["vendor"] / fastest for _, v in pairs])))
PY
