#!/usr/bin/env bash
# What a fleet build costs in size: the example kernels baked for one architecture (90) and
# for two (80;90), from the DBs shipped in generated/ (no tuning; KTUNE_TUNE=OFF, so each
# kernel compiles its DEFAULT and its winners only). Prints, per kernel and build, the
# embedded cubins and PTX as the bake line reports them and the size of the baked library
# (libktune_<kernel>.a), then the totals.
# usage: library_sizes.sh <ktune tool> <work dir> [archs ...]   (default archs: 90 "80;90")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$(realpath "$1") work=$2; shift 2
lists=("$@")
((${#lists[@]})) || lists=(90 "80;90")
mkdir -p "$work"
declare -A line size
for archs in "${lists[@]}"; do
  b=$work/build_${archs//;/_}
  cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_HOST_TOOL="$tool" \
    -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF -DKTUNE_BUILD_EXAMPLES=ON -DKTUNE_TUNE=OFF \
    -DKTUNE_EAGER_LIMIT=0 -DKTUNE_CUDA_ARCH="$archs" >"$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; exit 1; }
  mapfile -t kernels <"$b/kernels/examples.txt"  # the examples as kernels/CMakeLists.txt declared them
  cmake --build "$b" --target "${kernels[@]/#/ktune_}" >"$b.build.log" 2>&1 || { tail -30 "$b.build.log"; exit 1; }
  for k in "${kernels[@]}"; do
    line[$archs,$k]=$(sed -n "s/^ktune: $k: baked.*\[\(.*\)\]$/\1/p" "$b.build.log" | tail -1)
    lib=$(find "$b" -name "libktune_$k.a" | head -1)
    size[$archs,$k]=$(stat -c %s "$lib")
  done
done
printf '%-18s %-8s %10s  %s\n' kernel archs "library" "embedded (bake line)"
declare -A total
for k in "${kernels[@]}"; do
  for archs in "${lists[@]}"; do
    printf '%-18s %-8s %8d K  %s\n' "$k" "$archs" $((size[$archs,$k] / 1024)) "${line[$archs,$k]}"
    total[$archs]=$((${total[$archs]:-0} + size[$archs,$k]))
  done
done
for archs in "${lists[@]}"; do
  printf '%-18s %-8s %8d K\n' "all ${#kernels[@]}" "$archs" $((total[$archs] / 1024))
done
