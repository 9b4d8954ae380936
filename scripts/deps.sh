#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test spbench.
# librsb and GraphBLAS are the CPU baselines, gnuplot draws the charts, curl
# serves matrices/fetch.sh, Slurm and munge run the scale-out test on a
# one-node cluster the test starts itself (as root). CUDA (nvcc) is optional and never installed
# here: without it the GPU kernels are compiled out and report themselves
# skipped.
set -euo pipefail
# Arguments name further packages (CI's TSan and fuzzing steps need clang).
packages=(build-essential cmake zlib1g-dev python3 clang-format librsb-dev libgraphblas-dev
          gnuplot-nox fonts-liberation curl slurm-wlm munge "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "spbench: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
