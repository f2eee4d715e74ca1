#!/usr/bin/env bash
# What the GPU machine runs in one call (tests/README.md): configure with the
# visible GPU's architecture, build everything with 16 jobs (which tunes every example
# kernel), check the examples' tuning and run the demo (gpu.examples_tuned), the
# benchmarks and the rest of the gpu test suite (CI runs the others). Logs go to $OUT when set. Needs .deps (scripts/pack-deps.sh) where the
# machine lacks nlohmann/json, CLI11 or GoogleTest.
# usage: gpu-machine.sh [benchmark names...]   (default: all of them; "none" for none)
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
# KEEP_BUILD=1: reuse build/default (a second call on a warm machine: the build is up to
# date, so only what follows runs, e.g. the gpu suite after a call with GPU_TESTS=0).
[[ ${KEEP_BUILD:-0} == 1 ]] || rm -rf build/default
# KTUNE_TUNE=AUTO: a build directory that scripts/gpu-kernel.sh configured without it tunes again.
cmake --preset default -DKTUNE_DEPS_DIR="$PWD/.deps" -DKTUNE_TUNE=AUTO 2>&1 | tee "$out/configure.log" || exit 1
step build
start=$EPOCHREALTIME
cmake --build --preset default -- -j 16 >"$out/build.log" 2>&1
echo "build exit $?, wall: $(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{print a-b}') s"
grep -v "^\[" "$out/build.log" | tail -n 80
for m in build/default/_ktune/*/manifest.json; do build/default/bin/ktune cubins "$m"; done
# The example kernels' DBs and tune summaries, as the tuner wrote them (the DBs are what
# generated/ ships), in one file: the device returns few files.
tar czf "$out/tuned.tgz" build/default/ktune-db build/default/_ktune/*/tune.json 2>/dev/null

# The gpu test of the examples (the build's tune results checked, then ktune-demo through
# the baked dispatchers): here once, so the test step below leaves it out.
step demo
bash tests/gpu/examples_tuned.sh build/default build/default/bin/ktune build/default/bin/ktune-demo 2>&1 |
  tee "$out/ktune_demo.txt"

step benchmarks
wanted=" ${*:-bench_examples sdpa bench_enumerate configure_time compile_parallel tune_breakdown multi_gpu bench_dispatch} "
bench() { [[ $wanted == *" $1 "* ]] && { step "$1"; "${@:2}" | tee "$out/$1.txt"; }; }
bench bench_examples build/default/bin/bench_examples
bench sdpa python3 benchmarks/sdpa.py
bench bench_enumerate build/default/bin/bench_enumerate
bench configure_time bash benchmarks/configure_time.sh build/default
bench compile_parallel bash benchmarks/compile_parallel.sh build/default 16 8
bench tune_breakdown bash benchmarks/tune_breakdown.sh build/default
bench multi_gpu bash benchmarks/multi_gpu.sh build/default
bench bench_dispatch build/default/bin/bench_dispatch

# GPU_TESTS=0: skip the gpu suite (when device time is short).
[[ ${GPU_TESTS:-1} == 0 ]] || step tests
# Every test's own output goes to ctest.log (-V: what each checked and printed); the
# summary to the terminal.
[[ ${GPU_TESTS:-1} == 0 ]] || ctest --test-dir build/default -L gpu -E '^gpu\.examples_tuned$' -V >"$out/ctest.log" 2>&1
[[ ${GPU_TESTS:-1} == 0 ]] || grep -E "Test +#|tests passed|Total Test" "$out/ctest.log"

true
