#!/usr/bin/env bash
# The large-matrix GPU study (docs/results/2026-12-07-gpu-large.md):
# every device SpMV row and every cuSPARSE mode on fifteen generated shapes
# of 11-67 million entries and the large real matrices given, fp64 and
# fp32, then scripts/dev/gpu_frontier.py's table. The regular shapes are
# sized to take over 100 us on an H200 (31-48 million entries: at the
# sizes of 2026-12-05 they ran 42-70 us, under the issue's bucket). Rerun with --resume in
# EXTRA to finish a study stopped part-way.
#
# usage: scripts/dev/gpu_large_study.sh SPBENCH OUT_PREFIX [MATRIX...] [-- EXTRA RUN OPTIONS]
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
spbench=$1 out=$2
shift 2
real=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do real+=("$1"); shift; done
[ $# -gt 0 ] && shift
# name the shapes by class (gpu_frontier.py reads the same list)
shapes=(
    gen:rmat:20:16:45 gen:rmat:20:16 gen:rmat:20:16:70 gen:rmat:21:8 gen:rmat:22:16 # power law
    gen:hubs:2000000:8:40:100000                                                    # hubs
    gen:circuit:4000000:4:400:10000                                                 # circuit
    gen:lp:500000:4000000:3:2:4                                                     # LP
    gen:random:2000000:8 gen:random:6000000:3                                       # random
    gen:road:3200:80                                                                # road
    gen:lap2d:2500 gen:lap3d:170                                                    # Laplacians
    gen:fem:55:3 gen:fem:48:4                                                       # FEM blocks
)
"$spbench" run --kernels 'csr.cuda.*,hll.cuda.*,bsr.cuda*,cusparse.*,cusp.*,auto.cuda' --precision both \
    --reps 10 --min-time 0.05 --max-kernel-ms 200 --energy-s 0 \
    --csv "$out.csv" --json "$out.json" "$@" "${shapes[@]}" ${real[@]+"${real[@]}"}
python3 "$(dirname "$0")/gpu_frontier.py" "$out.json"
