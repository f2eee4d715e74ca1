#!/usr/bin/env bash
# Configure time of a project with one 5,000-config kernel (A=1..100, B=1..100 with
# "(A + B) % 2 == 0"): the space engine, the manifest and 5,000 CMake build edges
# (KTUNE_EAGER_LIMIT raised: by default a space this big is compiled on demand).
# Prints seconds for: a first configure that also builds the ktune host tool, a first
# configure with a prebuilt tool (KTUNE_HOST_TOOL), and a re-configure.
# usage: configure_time.sh [<ktune build dir with bin/ktune>]   (default build/default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$(cd "${1:-$root/build/default}" && pwd)/bin/ktune
[[ -x $tool ]] || { echo "no $tool: build ktune first (cmake --build --preset default)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cp "$root/tests/cmake/sample/tiny.cu" "$work/src/k.cu"
cp -r "$root/tests/cmake/sample/include" "$work/src/"
cat >"$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(configure_bench LANGUAGES NONE)
find_package(ktune CONFIG REQUIRED)
ktune_add_kernel(big SOURCE k.cu INCLUDE_DIRS include
  PARAMS "BLOCK=1..100" "UNROLL=1..100" WHERE "(BLOCK + UNROLL) % 2 == 0")
CMAKE

seconds() { local s=$EPOCHREALTIME; "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log"; exit 1; }
            awk -v a="$EPOCHREALTIME" -v b="$s" 'BEGIN{print a-b}'; }
with_host_build=$(seconds cmake -S "$work/src" -B "$work/b1" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_EAGER_LIMIT=10000)
grep -o "big: [0-9]* configs of [0-9]* points" "$work/last.log"
prebuilt=$(seconds cmake -S "$work/src" -B "$work/b2" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" -DKTUNE_EAGER_LIMIT=10000)
reconfigure=$(seconds cmake -S "$work/src" -B "$work/b2")
edges=$(grep -c "^_ktune_cubin(" "$work/b2/_ktune/big/configs.cmake")

printf '\n%-58s %8s\n' "configure of a 5,000-config kernel ($(nproc) cores)" "seconds"
printf '%-58s %8.2f\n' "first configure, building the ktune host tool" "$with_host_build"
printf '%-58s %8.2f\n' "first configure, prebuilt host tool (KTUNE_HOST_TOOL)" "$prebuilt"
printf '%-58s %8.2f\n' "re-configure" "$reconfigure"
echo "build edges generated: $edges (goal: configure <= 15 s)"
