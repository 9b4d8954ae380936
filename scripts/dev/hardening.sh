#!/usr/bin/env bash
# CI's hardening steps beyond the two sanitizer runs of the test suite:
#  1. the OpenMP kernels' tests, and the generators', the COO
#     conversion's and the reference's, under ThreadSanitizer: clang with LLVM's
#     libomp and its Archer tool, which tells TSan about OpenMP's own
#     synchronisation (libgomp cannot: its barriers are invisible to TSan);
#  2. a clang build with MPI and PETSc, whose libraries load GNU's OpenMP
#     runtime beside LLVM's: its OpenMP threads must still get every CPU
#     the run was given (bench/machine/placement.c, SPB_START_CPUS; without it the
#     header read "OpenMP: 1 processors of the machine's 2");
#  3. a short libFuzzer run of the Matrix Market reader (FUZZ_SECONDS,
#     default 60) from the seed corpus, under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/deps.sh clang libclang-rt-14-dev libomp-14-dev llvm-14
archer=$(find /usr/lib/llvm-* -name libarcher.so 2>/dev/null | head -n 1)
[ -n "$archer" ] || { echo "hardening: libarcher.so not found (libomp-14-dev)" >&2; exit 1; }

common=(-DSPB_CUDA=OFF -DSPB_BASELINES=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPB_WERROR=ON)
CC=clang cmake -S . -B build-tsan -DSPB_SANITIZE=thread "${common[@]}" >/dev/null
cmake --build build-tsan -j "$(nproc)" --target test_kernels test_partition test_gen test_formats test_reference
export OMP_TOOL_LIBRARIES="$archer"
export TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1"
build-tsan/tests/test_kernels matrices host fast # every OpenMP kernel at 1 and 2 threads
build-tsan/tests/test_partition
build-tsan/tests/test_gen     # the generators at 1 and 3 threads
build-tsan/tests/test_formats # COO to CSR at 1 and 3 threads
build-tsan/tests/test_reference
unset OMP_TOOL_LIBRARIES TSAN_OPTIONS

CC=clang cmake -S . -B build-clang-mpi -DSPB_CUDA=OFF -DSPB_BASELINES=OFF -DSPB_MPI=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPB_WERROR=ON >/dev/null
cmake --build build-clang-mpi -j "$(nproc)" --target spbench
header=$(build-clang-mpi/spbench run --kernels csr.omp.static --reps 1 --min-time 0 --warmup 0 \
  --energy-s 0 --quiet gen:lap2d:10 2>&1 | grep "^# OpenMP: " || true)
echo "hardening: clang + MPI build: ${header:-no OpenMP line}"
case "$header" in
"# OpenMP: "*" processors, "*) ;;
*)
  echo "hardening: a clang build's OpenMP threads do not get the CPUs given to the run" >&2
  exit 1
  ;;
esac

CC=clang cmake -S . -B build-fuzz -DSPB_FUZZ=ON -DSPB_SANITIZE=address,undefined \
  "${common[@]}" >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_mm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp tests/fuzz/corpus/* "$work/"
build-fuzz/tests/fuzz/fuzz_mm -dict=tests/fuzz/mm.dict -max_total_time="${FUZZ_SECONDS:-60}" \
  -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
  -artifact_prefix="$work/crash-" "$work" 2>&1 | tail -n 12
echo "hardening: TSan and fuzzing passed"
