#!/usr/bin/env bash
# The main job: build (Release), measure every SpMV and SpGEMM kernel on the
# bundled matrices (SpMV also on gen:lap3d:100, out of cache), then the
# distributed rows at 1, 2, 4, ... MPI ranks (each stage's table on stdout;
# every row in results/bundled.csv and results/bundled.json, which each stage
# grows), and draw the charts into results/charts/. Extra arguments are passed to the SpMV run (e.g.
# --kernels 'csr.*', or --threads 1,2 instead of the default 1 to max).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# CMake's own output is long; what was built in (CUDA, the library baselines) is not
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release | sed -n 's/^-- spbench: /built in: /p' 
cmake --build build -j "$(nproc)"
# the build leaves the machine busy: wait (up to a minute) for the load average
# to fall below half the cores, so the first rows are not timed in its wake
for ((waited = 0; waited < 60; waited += 5)); do
  awk -v cores="$(nproc)" '{ exit !($1 < cores / 2) }' /proc/loadavg 2>/dev/null && break
  [ $waited -eq 0 ] && echo "waiting for the build's load to settle ($(cut -d' ' -f1 /proc/loadavg))"
  sleep 5
done
mkdir -p results
status=0
# every thread count from 1 to the processors, so that the scaling chart has data;
# the bundled matrices all fit in a last-level cache: a generated 3-D Laplacian
# (7 million entries, 84 MB) gives the roofline chart a matrix from memory
# a kernel whose first call takes over a second is timed from that call alone (capped):
# a teaching row cannot stall the study
cap=(--max-kernel-ms 1000)
./build/spbench run --force --threads 1-max "${cap[@]}" --csv results/bundled.csv \
  --json results/bundled.json "$@" matrices/ gen:lap3d:100 || status=$?
# SpGEMM rows join the same CSV (rows are keyed by operation) and the JSON,
# which is written again with every row of the CSV
./build/spbench run --op spgemm --threads 1-max "${cap[@]}" --resume --csv results/bundled.csv \
  --json results/bundled.json matrices/ || status=$?
# a strong-scaling study over MPI ranks (1, 2, 4, ... up to the cores), PETSc beside; its
# rows join the CSV too (keyed by ranks) and get their own charts
ranks=1
for ((p = 2; p < $(nproc); p *= 2)); do ranks+=",$p"; done
[ "$(nproc)" -gt 1 ] && ranks+=",$(nproc)"
./build/spbench run --ranks "$ranks" "${cap[@]}" --resume --csv results/bundled.csv \
  --json results/bundled.json matrices/ gen:lap3d:100 || status=$?
./build/spbench plot results/bundled.csv results/charts
echo "results: results/bundled.csv and results/bundled.json (every row), charts in" \
  "results/charts/; a page: ./build/spbench report results/bundled.json"
exit $status
