#!/usr/bin/env bash
# A device kernel's A/B in one call, as the GPU pages' A/Bs were made: a
# build with the candidate as rows of its own beside the kernel it would
# replace (ROW and ROW.SUFFIX), then
#  1. test_kernels' CUDA half (every row of the build, both precisions);
#  2. compute-sanitizer memcheck and racecheck of the rows matching PATTERN
#     on small generated shapes with long rows, hubs and an LP (both
#     precisions; a rmat shape large enough for csr.cuda.merge's fix-up);
#  3. the rows timed on the large shapes with every cuSPARSE mode, fp64
#     and fp32, and scripts/dev/gpu_ab_table.py's table: each candidate
#     against its kernel, and the run's best spbench row against the
#     fastest vendor row.
# OUT gets each step's log and the run's CSV and JSON; the script goes on
# past a failed step (the table says what ran) and exits 1 if one failed.
#
# usage: scripts/dev/gpu_ab.sh BUILD_DIR OUT PATTERN [SHAPE...]
#   PATTERN: the rows under test and their kernels, e.g.
#   'csr.cuda.stream,csr.cuda.stream.lr' (spbench --kernels' syntax)
set -uo pipefail
[ $# -ge 3 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
build=$1 out=$2 rows=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
spbench=$build/spbench
mkdir -p "$out"
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(gen:hubs:2000000:8:40:100000 gen:circuit:4000000:4:400:10000
    gen:lp:500000:4000000:3:2:4 gen:rmat:20:16:70 gen:rmat:21:8 gen:random:2000000:8
    gen:lap3d:170)
small=(gen:hubs:20000:8:10:5000 gen:circuit:40000:4:400:10000 gen:lp:5000:40000:3:2:4
    gen:rmat:14:16:70)
failed=0
step() { # name, command...: the command's output to OUT/name.log, its status said
    local name=$1
    shift
    local start=$SECONDS
    "$@" > "$out/$name.log" 2>&1
    local rc=$?
    echo "$name: exit $rc, $((SECONDS - start)) s; $(grep -E 'passed|ERROR SUMMARY|^# [0-9]+ rows?:' "$out/$name.log" | tail -1)"
    [ $rc -eq 0 ] || failed=1
}
quick=(--precision both --reps 1 --min-time 0 --warmup 1 --energy-s 0 --bandwidth none --quiet)
step test_kernels "$build/tests/test_kernels" matrices cuda fast
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$spbench" run --kernels "$rows" "${quick[@]}" "${small[@]}" gen:rmat:18:16
step racecheck compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$spbench" run --kernels "$rows" "${quick[@]}" "${small[@]}"
step timing "$spbench" run --kernels "$rows,cusparse.*" --precision both --reps 10 \
    --min-time 0.05 --max-kernel-ms 200 --energy-s 0 --csv "$out/ab.csv" --json "$out/ab.json" \
    "${shapes[@]}"
python3 "$here/gpu_ab_table.py" "$out/ab.json" | tee "$out/table.md" || failed=1
exit $failed
