#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test spbench.
# librsb and GraphBLAS are the CPU baselines, gnuplot draws the charts, Slurm
# and munge run the scale-out test on a
# one-node cluster the test starts itself (as root), Open MPI and PETSc run
# the distributed rows and their baseline. CUDA (nvcc) is optional and never installed
# here: without it the GPU kernels are compiled out and report themselves
# skipped.
set -euo pipefail
# Arguments name further packages (CI's TSan and fuzzing steps need clang);
# --check only says what is missing (exit 0 either way).
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
packages=(build-essential cmake zlib1g-dev libbz2-dev liblzma-dev python3 clang-format clang-tidy librsb-dev
          libgraphblas-dev gnuplot-nox fonts-liberation python3-jsonschema chromium slurm-wlm munge openmpi-bin
          libopenmpi-dev libpetsc-real-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ $check -eq 1 ]; then
  if [ ${#missing[@]} -gt 0 ]; then
    echo "spbench: not installed: ${missing[*]} (bash scripts/deps.sh installs them); the tests that need them report themselves skipped"
  fi
  exit 0
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "spbench: installing what building and testing need: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # another apt (an unattended upgrade, say) may hold the lock: wait for it, bounded
  wait_lock=(-o DPkg::Lock::Timeout=300)
  log=$(mktemp)
  # DPkg::Lock::Timeout does not cover update's lock on the package lists:
  # update is tried again while another apt holds it (5 minutes at most)
  updated=0
  for _ in $(seq 60); do
    if $sudo apt-get "${wait_lock[@]}" update -qq >"$log" 2>&1; then
      updated=1
      break
    fi
    grep -q "Could not get lock" "$log" || break
    sleep "${SPB_APT_RETRY_S:-5}"
  done
  if [ "$updated" -eq 0 ] ||
     ! DEBIAN_FRONTEND=noninteractive $sudo apt-get "${wait_lock[@]}" install -y -qq \
       --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
    echo "spbench: installing ${missing[*]} failed; apt said:" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
fi
