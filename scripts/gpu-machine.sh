#!/usr/bin/env bash
# What the GPU machine runs in one call (tests/README.md): configure with the
# visible GPU's architecture, build everything with 16 jobs, run the test suites and the
# benchmarks. Logs go to $OUT when set. Needs .deps (scripts/pack-deps.sh) where the
# machine lacks nlohmann/json, CLI11 or GoogleTest.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-out}
mkdir -p "$out"
source scripts/env.sh
export CMAKE_POLICY_VERSION_MINIMUM=3.5   # GoogleTest's sources ask for an old CMake
step() { echo; echo "=== $* ==="; }

step machine
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
nvcc --version | tail -2; cmake --version | head -1; ninja --version; nproc

step configure
rm -rf build/default
cmake --preset default -DKTUNE_DEPS_DIR="$PWD/.deps" 2>&1 | tee "$out/configure.log" || exit 1
step build
start=$EPOCHREALTIME
cmake --build --preset default -- -j 16 2>&1 | tail -n 25
echo "build wall: $(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{print a-b}') s"
build/default/bin/ktune cubins build/default/_ktune/sgemm/manifest.json

step tests
ctest --test-dir build/default --output-on-failure -j 8 2>&1 | tail -n 40 | tee "$out/ctest.log"

step benchmarks
build/default/bin/bench_enumerate | tee "$out/bench_enumerate.txt"
bash benchmarks/configure_time.sh build/default | tee "$out/configure_time.txt"
bash benchmarks/compile_parallel.sh build/default 16 8 | tee "$out/compile_parallel.txt"
bash benchmarks/tune_breakdown.sh build/default | tee "$out/tune_breakdown.txt"
