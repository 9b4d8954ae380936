#!/usr/bin/env bash
# The tests: a warnings-as-errors build and the whole CTest suite (unit,
# end-to-end, formatting), with what this machine has: it installs nothing
# (README's test command runs scripts/deps.sh first; so does CI) and says
# what is missing; a test that cannot run here reports itself skipped, and
# CTest lists those at the end. SPB_SANITIZE=address,undefined runs the same
# suite in a sanitizer build (CUDA off: its runtime and ASan do not mix).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --check --tests
build=build-test
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPB_WERROR=ON)
if [ -n "${SPB_SANITIZE:-}" ]; then
  build=build-sanitize
  flags+=(-DSPB_SANITIZE="$SPB_SANITIZE" -DSPB_CUDA=OFF)
fi
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
