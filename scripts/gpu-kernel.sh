#!/usr/bin/env bash
# A short GPU call for work on a few example kernels (tests/README.md): configure without
# the build's tune step (the other examples are baked from their shipped DBs), build, tune
# the named kernels with the options their build step would use, bake again with the new
# DBs and run bench_examples. The first key of each kernel is tuned alone under a time
# limit first, so that a kernel that hangs is dropped early instead of timing out config by
# config. Logs and the new DBs (tuned.tgz) go to $OUT when set.
# usage: gpu-kernel.sh <kernel>...     e.g. gpu-kernel.sh hgemm_tma_f16 hgemm_tma_bf16
set -uo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { echo "usage: gpu-kernel.sh <example kernel>..." >&2; exit 2; }
out=${OUT:-build/gpu-out}
mkdir -p "$out"
source scripts/env.sh
export CMAKE_POLICY_VERSION_MINIMUM=3.5   # GoogleTest's sources ask for an old CMake
step() { echo; echo "=== $* ==="; }
b=build/default

step machine
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
step configure and build, no tune step
# CMAKE_ARGS: more -D options, e.g. -DKTUNE_EXAMPLE_HGEMM_TMA=ON for an example declared only on request.
cmake --preset default -DKTUNE_DEPS_DIR="$PWD/.deps" -DKTUNE_TUNE=OFF ${CMAKE_ARGS:-} >"$out/configure.log" 2>&1 ||
  { tail -n 40 "$out/configure.log"; exit 1; }
start=$EPOCHREALTIME
cmake --build --preset default -- -j 16 >"$out/build.log" 2>&1 || { grep -v "^\[" "$out/build.log" | tail -n 60; exit 1; }
echo "build wall: $(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{print a-b}') s"

# The build's tune step (cmake/ktune.cmake) with the search each kernel declares, as the build
# would pass it (its _ktune/<kernel>/search_args.txt: strategy, budget, seed, DB_DIRS as the
# prior), 16 compile jobs; or TUNE_ARGS (e.g. "--strategy=genetic --budget=64 --seed=1") with
# the kernel's shipped DBs (generated/<kernel>) as the prior.
# usage: tune <kernel> <DB directory> <more tuner options>
tune() {
  local k=$1 db=$2 search=()
  shift 2
  if [[ -n ${TUNE_ARGS:-} ]]; then
    read -ra search <<<"$TUNE_ARGS"
    [[ -d $root/generated/$k ]] && search+=(--prior-db-dir "$root/generated/$k")
  else
    mapfile -t search < <(grep -v '^$' "$b/_ktune/$k/search_args.txt") || return 1
  fi
  (cd "$b/kernels" && "../bin/ktune_${k}_tuner" --manifest "../_ktune/$k/manifest.json" --db-dir "$db" \
    --worker-log "../_ktune/$k/worker.log" --compile-jobs 16 "${search[@]}" "$@")
}
export -f tune
export b root=$PWD
# The first key of each kernel alone (FIRST_KEY: another key, e.g. "M=128 N=4096 K=8192"),
# searched by FIRST_KEY_ARGS (default: genetic, budget 4), FIRST_KEY_SECONDS (150) at most:
# a kernel that hangs or never runs correctly is left out of the tuning below instead of
# costing the call config by config.
first_args=${FIRST_KEY_ARGS:---strategy=genetic --budget=4 --seed=1}
first_seconds=${FIRST_KEY_SECONDS:-150}
kernels=()
for k in "$@"; do
  step "first key of $k, alone ($first_seconds s at most)"
  key=${FIRST_KEY:-$(python3 -c "import json,sys; print(' '.join(f'{n}={v}' for n, v in json.load(open(sys.argv[1]))['keys'][0].items()))" \
    "$b/_ktune/$k/manifest.json")}
  rm -rf "/tmp/first_key_db_$k"
  if ! TUNE_ARGS="$first_args" timeout "$first_seconds" bash -c \
    "tune $k /tmp/first_key_db_$k --key '$key' --summary-out /tmp/first_key_$k.json"; then
    echo "the first key of $k failed or hung: $k is not tuned"
    continue
  fi
  cp /tmp/first_key_db_$k/*.json "$out/first_key_db_$k.json" 2>/dev/null  # its DB: every config measured, with its status
  if ! python3 -c "import json,sys; k=json.load(open(sys.argv[1]))['keys'][0]; sys.exit(0 if k['best_ms'] > 0 else 1)" \
    "/tmp/first_key_$k.json"; then
    echo "no config of the first key of $k ran correctly: $k is not tuned"
  else
    kernels+=("$k")
  fi
done
((${#kernels[@]} > 0)) || { echo "no kernel passed its first key: stopping"; exit 1; }
for k in "${kernels[@]}"; do
  step "tuning $k"
  tune "$k" "../ktune-db/$k" --summary-out "../_ktune/$k/tune.json" || echo "tuning $k failed"
  tar czf "$out/tuned.tgz" "$b"/ktune-db "$b"/_ktune/*/tune.json 2>/dev/null  # after each: a call cut short keeps them
done

step bake with the new DBs, bench_examples
cmake --build --preset default -- -j 16 >>"$out/build.log" 2>&1 || { grep -v "^\[" "$out/build.log" | tail -n 40; exit 1; }
for k in "$@"; do grep -h "ktune: $k: baked" "$out/build.log" | tail -n 1; done
"$b/bin/bench_examples" | tee "$out/bench_examples.txt"
