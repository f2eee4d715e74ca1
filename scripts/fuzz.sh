#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer programs (preset fuzz: clang-14, ASan, UBSan) and runs each
# for FUZZ_SECONDS (default 45: four targets in three minutes) from the corpus in
# tests/reliability/fuzz/corpus/. What the fuzzer adds goes to build/fuzz/run/<target>/corpus,
# never into the tree. A crash fails the run and leaves its input in
# build/fuzz/run/<target>/artifacts/; tests/README.md says how to keep it as a regression test.
# usage: scripts/fuzz.sh [TARGET...]   (targets: expression t1 t1_nvcc db; default all)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --fuzz
source scripts/env.sh

seconds=${FUZZ_SECONDS:-45}
targets=("$@")
((${#targets[@]})) || targets=(expression t1 t1_nvcc db)
src=tests/reliability/fuzz

cmake --preset fuzz
cmake --build --preset fuzz

status=0
for t in "${targets[@]}"; do
  work=build/fuzz/run/$t
  mkdir -p "$work/corpus" "$work/artifacts"
  echo "fuzz: $t for ${seconds} s"
  # -max_len: the T1 seeds are 5 KB; -timeout: seconds for one input before it counts as
  # a hang; -rss_limit_mb: above it, an input counts as running out of memory.
  if build/fuzz/bin/fuzz_"$t" "$work/corpus" "$src/corpus/$t" -dict="$src/$t.dict" \
       -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$work/artifacts/" -print_final_stats=1 >"$work/fuzz.log" 2>&1; then
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" \
      "$work/fuzz.log" | sed "s/^stat::/fuzz: $t: /"
  else
    status=1
    grep -v "# Uses:" "$work/fuzz.log" | tail -n 80
    echo "fuzz: $t FAILED; the input(s) it kept:" "$work"/artifacts/*
    echo "fuzz: keep each as a regression test in $src/regressions/$t/ (tests/README.md)"
  fi
done
exit "$status"
