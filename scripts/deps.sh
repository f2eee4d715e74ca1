#!/usr/bin/env bash
# Installs the Debian packages ktune builds and tests with (as root), or says exactly
# what is missing. The CUDA toolkit (nvcc) is not a Debian package here: it must be in
# /usr/local/cuda or on PATH.
set -euo pipefail

packages=(cmake ninja-build g++ nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev zlib1g-dev python3
          gnuplot-nox   # gnuplot: `ktune report` draws its plots with it
          clang-format-14   # cmake.format checks the C++ style (.clang-format) with it
          slurm-wlm munge   # cmake.slurm starts a single-node Slurm
          ccache)           # cmake.compile_cache: ccache in front of every cubin compile
# scripts/fuzz.sh: libFuzzer comes with clang's runtime libraries.
[[ ${1:-} == --fuzz ]] && packages+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    echo "deps: nvcc is in /usr/local/cuda/bin; add it to PATH (the scripts do)"
  else
    echo "deps: nvcc not found: install the CUDA toolkit (>= 12) into /usr/local/cuda" >&2
    exit 1
  fi
fi
