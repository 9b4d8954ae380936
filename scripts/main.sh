#!/usr/bin/env bash
# The main job: build (Release), measure every kernel on the bundled
# matrices (table on stdout; rows in results/bundled.csv and .json), and
# draw the charts into results/charts/. Extra arguments are passed to
# `spbench run` (e.g. --kernels 'csr.*' or --threads 1,2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
mkdir -p results
status=0
./build/spbench run --force --csv results/bundled.csv --json results/bundled.json "$@" matrices/ || status=$?
./build/spbench plot results/bundled.csv results/charts
echo "results: results/bundled.csv, results/bundled.json, charts in results/charts/"
exit $status
