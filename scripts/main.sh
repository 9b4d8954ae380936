#!/usr/bin/env bash
# The main job: build (Release) and measure every kernel on the bundled
# matrices; the table goes to stdout, the rows to results/bundled.csv.
# Extra arguments are passed to `spbench run` (e.g. --kernels 'csr.*').
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
mkdir -p results
./build/spbench run --csv results/bundled.csv "$@" matrices/
echo "results: results/bundled.csv"
