#!/usr/bin/env bash
# Builds tests/cmake/sample, its space compiled whole by the build, with the architecture
# ktune picks on this machine and loads
# every cubin on the GPU. Exit 77 (skipped) when there is no GPU.
# usage: sample_cubins_load.sh <ktune source> <ktune tool> <load_cubins> <work dir>
set -euo pipefail
root=$1 tool=$2 loader=$3 work=$4
rc=0
"$loader" --probe || rc=$?
[[ $rc == 0 ]] || exit "$rc"   # 77: no GPU, skipped
rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/sample" "$work/src"
cmake -S "$work/src" -B "$work/build" -G Ninja -Dktune_DIR="$root/cmake" \
  -DKTUNE_HOST_TOOL="$tool" -DKTUNE_EAGER_LIMIT=512 >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
grep "cubins for" "$work/configure.log"
grep -q "(the visible GPU)" "$work/configure.log" ||
  { echo "FAIL: with a GPU visible, ktune did not build for it"; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$loader" "$work/build/_ktune/tiny/manifest.json" tiny
