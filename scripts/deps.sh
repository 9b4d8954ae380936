#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and run spbench (the
# main job), and with --tests what the tests need besides. To run:
# compilers, CMake, zlib/bzip2/xz, librsb and GraphBLAS (the CPU baselines),
# gnuplot (the charts), Open MPI and PETSc (the distributed rows and their
# baseline). To test: clang-format and clang-tidy, python3-jsonschema,
# chromium (the report's browser test), Slurm and munge (a one-node cluster
# the test starts itself, as root). CUDA (nvcc) is optional and never
# installed here: without it the GPU kernels are compiled out and report
# themselves skipped.
#
# usage: deps.sh [--check] [--tests] [PACKAGE...]
#   --check  only say what is missing (exit 0 either way)
#   --tests  the tests' packages too (README's test command, CI)
#   PACKAGE  further packages (CI's TSan and fuzzing steps need clang)
# Without root or a working sudo, what cannot be installed is named with the
# command to run as root; for the main job only the compilers, CMake,
# Python and zlib are needed to go on (the baselines, charts and MPI rows
# those packages serve are then left out, saying so).
set -euo pipefail
check=0 tests=0
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --tests) tests=1 ;;
    *) break ;;
  esac
  shift
done
essential=(build-essential cmake zlib1g-dev python3)
packages=("${essential[@]}" libbz2-dev liblzma-dev librsb-dev libgraphblas-dev gnuplot-nox
          fonts-liberation openmpi-bin libopenmpi-dev libpetsc-real-dev)
[ $tests -eq 1 ] && packages+=(clang-format clang-tidy python3-jsonschema chromium slurm-wlm munge
                           strace)
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ $check -eq 1 ]; then
  if [ ${#missing[@]} -gt 0 ]; then
    echo "spbench: not installed: ${missing[*]} (bash scripts/deps.sh$([ $tests -eq 1 ] && echo " --tests") installs them); what needs them reports itself skipped"
  fi
  exit 0
fi
# What cannot be installed: the tests need everything asked for; the main
# job goes on where only the compilers, CMake, Python and zlib are needed.
cannot_install() {
  echo "spbench: $1: as root, run: apt-get install ${missing[*]}" >&2
  local needed=()
  for p in "${missing[@]}"; do
    for e in "${essential[@]}"; do [ "$p" = "$e" ] && needed+=("$p"); done
  done
  if [ $tests -eq 0 ] && [ ${#needed[@]} -eq 0 ]; then
    echo "spbench: going on without ${missing[*]}: what they serve (a baseline, the charts, the MPI rows) is left out, saying so" >&2
    exit 0
  fi
  exit 1
}
if [ ${#missing[@]} -gt 0 ]; then
  echo "spbench: installing what $([ $tests -eq 1 ] && echo "building and testing need" || echo "building and running need"): ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || cannot_install "not root and no sudo to install ${missing[*]}"
    sudo="sudo"
  fi
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
    cannot_install "${missing[*]} not installed"
  fi
  rm -f "$log"
fi
