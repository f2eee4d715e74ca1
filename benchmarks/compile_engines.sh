#!/usr/bin/env bash
# What each compile engine of docs/scaling.md does to one space's compiles: `ktune tune
# --t1 SPEC --compile-only` run plain, through ccache (an empty cache, then the same --out
# again), and with every nvcc run as a job step of a single-node Slurm this script starts
# (tests/cmake/slurm_node.sh). Prints each run's wall, the compile records' Σ nvcc CPU and
# ccache's counters. No GPU needed.
# usage: compile_engines.sh <ktune tool> <T1 spec> <work dir> <jobs> [plain ccache slurm]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$(realpath "$1") spec=$(realpath "$2") work=$3 jobs=$4
shift 4
engines=("$@")
((${#engines[@]})) || engines=(plain ccache slurm)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)

run() {  # run <label> <out> [launcher args...]: one compile-only run, its figures
  local label=$1 out=$2 start
  shift 2
  start=$EPOCHREALTIME
  "$tool" tune --t1 "$spec" --out "$out" --compile-only --jobs "$jobs" "$@" >"$out.log" 2>&1 ||
    { tail -5 "$out.log"; fail "$label"; }
  local wall
  wall=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{printf "%.1f", a-b}')
  "$tool" cubins --json "$out/kernel/manifest.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ok, failed, cpu = d["compiled"], d["compile_failed"], d["compiler_cpu_s"]
print(f"{sys.argv[1]:<34} wall {float(sys.argv[2]):7.1f} s   {ok} compiled, {failed} failed, Σ nvcc CPU {cpu:.1f} s")' \
    "$label" "$wall"
}
cache_counts() {
  ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ {h += $2} $1 == "cache_miss" {m = $2}
    $1 == "compile_failed" {f = $2} END {printf "  ccache: %d hits, %d misses, %d failed compiles (never cached)\n", h, m, f}'
}

for e in "${engines[@]}"; do
  case $e in
    plain) run "plain" "$work/plain" ;;
    ccache)
      command -v ccache >/dev/null || fail "ccache not found: scripts/deps.sh installs it"
      export CCACHE_DIR=$work/ccache
      ccache -z >/dev/null
      run "ccache, an empty cache" "$work/ccache_out" --launcher ccache
      cache_counts
      rm -rf "$work/ccache_out"
      ccache -z >/dev/null
      run "ccache, the same --out again" "$work/ccache_out" --launcher ccache
      cache_counts
      unset CCACHE_DIR
      ;;
    slurm)
      source "$root/tests/cmake/slurm_node.sh"
      start_slurm_node "$work/slurm"
      printf '#!/bin/sh\nexec srun --quiet -N1 -n1 "$@"\n' >"$work/srun_step.sh"
      chmod +x "$work/srun_step.sh"
      run "each nvcc an srun job step" "$work/slurm_out" --launcher "$work/srun_step.sh"
      ;;
    *) fail "unknown engine $e (plain, ccache, slurm)" ;;
  esac
done
