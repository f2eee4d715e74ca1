#!/usr/bin/env bash
# The main job: configure and build ktune with its example kernels (tuned where a GPU is
# visible: each space compiled and measured in its tune step; else each kernel's DEFAULT and
# the winners its shipped DBs name compiled, and baked), then run ktune-demo. The first line
# says which, on this machine, and about how long it takes.
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(nproc)
mem_gib=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576))
jobs=$((mem_gib < cores ? mem_gib : cores))
((jobs >= 1)) || jobs=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
if [[ -n $gpu ]]; then
  # 365 s of build wall with 16 jobs on an H200 machine (scripts/gpu-machine.sh, 2026-12-07):
  # every example tuned from a fresh build directory, 1,344 configs compiled and
  # measured. The compiling scales with the jobs.
  echo "main: GPU ${gpu}: builds ktune, then tunes its example kernels (each search compiles and" \
       "measures the configs it proposes, 32 to 64 a problem key: about 1,350 of their 11,061 valid" \
       "configs) with ${jobs} nvcc jobs, bakes them and runs ktune-demo: about $(((365 * 16 / jobs + 59) / 60)) min"
else
  echo "main: no GPU visible: builds ktune and its example kernels, compiling each one's DEFAULT and" \
       "the winners its shipped DBs name (tens of configs) with ${jobs} nvcc jobs; nothing is tuned" \
       "(about 5 min on a fresh 2-core machine)"
fi
bash scripts/deps.sh
source scripts/env.sh
cmake --preset default -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF "$@"  # the tests: scripts/test.sh
cmake --build --preset default
echo
for m in build/default/_ktune/*/manifest.json; do
  build/default/bin/ktune space "$m"
done
echo
build/default/bin/ktune-demo
