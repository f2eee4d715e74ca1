#!/usr/bin/env bash
# A space of 940,896 valid configs (product 32^6) configures as a definition: the manifest
# counts the configs instead of listing them, configs.cmake has the DEFAULT's edge alone,
# _ktune/<kernel>/ holds a few kilobytes, and configure prints the search it chose (no
# STRATEGY or BUDGET, more than MAX_CONFIGS: the default strategy within a default budget).
# Its time is printed, not asserted (benchmarks/bench_spaces.cpp measures planning alone).
# usage: big_space.sh <ktune source> <ktune tool> <tuner libs dir> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/big_space" "$root/tests/cmake/sample" "$work/"
start=$EPOCHREALTIME
cmake -S "$work/big_space" -B "$work/build" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_TUNER_LIBS="$libs" -DKTUNE_CUDA_ARCH=90 >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
seconds=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{printf "%.1f", a-b}')
kdir=$work/build/_ktune/big
grep -q "big: 940,896 configs of 1,073,741,824 points" "$work/configure.log" ||
  grep -q "big: 940896 configs of 1,073,741,824 points" "$work/configure.log" || { cat "$work/configure.log"; fail "count"; }
grep -q "search: the space has 940896 valid configs, more than the 10000 measured whole (MAX_CONFIGS): the default strategy (.*) with a budget of 2000 configs per key" \
  "$work/configure.log" || { cat "$work/configure.log"; fail "the configure line does not say which search runs"; }
grep -q '"valid": 940896' "$kdir/manifest.json" || fail "manifest: valid"
grep -q '"configs"' "$kdir/manifest.json" && fail "the manifest lists configs"
[[ $(grep -c "_ktune_cubin(" "$kdir/configs.cmake") == 1 ]] || fail "configs.cmake: expected the DEFAULT's edge alone"
bytes=$(du -sb "$kdir" | cut -f1)
((bytes < 5 * 1024 * 1024)) || fail "_ktune/big holds $bytes bytes"
# The space read back: `ktune space` enumerates the manifest to the same count.
"$tool" space --json "$kdir/manifest.json" | grep -q '"valid": 940896' || fail "ktune space on the manifest"
echo "ok: 940,896 configs configured in $seconds s (cmake and the host tool included); _ktune/big holds $bytes bytes"
echo PASS
