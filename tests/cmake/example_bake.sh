#!/usr/bin/env bash
# The example app built on a machine without a GPU: the sgemm kernel bakes the tables
# shipped in generated/sgemm (tuned on the H200), the demo links and runs. Compiles the
# 117 sgemm configs once (about a minute on 2 cores); KTUNE_TUNE=OFF skips the tuner.
# usage: example_bake.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF -DKTUNE_BUILD_EXAMPLES=ON -DKTUNE_TUNE=OFF \
  -DKTUNE_CUDA_ARCH=90 >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
cmake --build "$work/build" --target sgemm_demo >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
grep -q "ktune: sgemm: baked NVIDIA H200 (2 keys, from .*generated/sgemm/NVIDIA_H200.json)" "$work/build.log" ||
  { grep -n "ktune: sgemm" "$work/build.log"; fail "the shipped H200 DB was not baked"; }
"$work/build/bin/sgemm_demo" | tee "$work/demo.txt"
grep -q "NVIDIA H200: M=1024 N=1024 K=1024 -> config [0-9a-f]\{16\}" "$work/demo.txt" || fail "demo: the H200 table"
if ! "$tool" gpu | grep -q '"gpu": null'; then
  grep -q "correct" "$work/demo.txt" || fail "demo: nothing launched on the GPU"
fi
echo PASS
