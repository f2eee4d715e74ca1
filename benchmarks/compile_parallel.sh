#!/usr/bin/env bash
# Parallel efficiency of the cubin builds: for each job count N, rebuild every cubin of
# the sgemm example under Ninja (its space compiled whole by the build: KTUNE_EAGER_LIMIT
# raised for the run) with the ktune_nvcc pool at N and compare the wall time
# with the summed nvcc CPU time (from the compile records) divided by N.
#   efficiency = (sum of nvcc CPU seconds / N) / wall seconds
# usage: compile_parallel.sh <build dir configured with examples> N [N ...]
set -euo pipefail
build=$1; shift
[[ $# -gt 0 ]] || { echo "usage: $0 <build dir> N [N ...]"; exit 2; }
kdir=$build/_ktune/sgemm
tool=$build/bin/ktune
[[ -f $kdir/manifest.json && -x $tool ]] || { echo "configure and build $build first"; exit 1; }

jobs_before=$(sed -n 's/^KTUNE_COMPILE_JOBS:STRING=//p' "$build/CMakeCache.txt")
eager_before=$(sed -n 's/^KTUNE_EAGER_LIMIT:STRING=//p' "$build/CMakeCache.txt")
# Leave the pool and the eager-build limit as found.
trap 'cmake "$build" -DKTUNE_COMPILE_JOBS="$jobs_before" -DKTUNE_EAGER_LIMIT="${eager_before:-0}" >/dev/null' EXIT
rows=()
for n in "$@"; do
  cmake "$build" -DKTUNE_COMPILE_JOBS="$n" -DKTUNE_EAGER_LIMIT=10000 >/dev/null
  rm -rf "$kdir/records" "$kdir/cubins" "$kdir/cubins.json"
  start=$EPOCHREALTIME
  cmake --build "$build" --target ktune_sgemm_cubins -- -j "$n" >"$build/compile_parallel_$n.log" 2>&1
  wall=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{print a-b}')
  summary=$("$tool" cubins --json "$kdir/manifest.json")
  cpu=$(sed -n 's/.*"compiler_cpu_s": \([0-9.e+-]*\).*/\1/p' <<<"$summary")
  configs=$(sed -n 's/.*"compiled": \([0-9]*\).*/\1/p' <<<"$summary")
  failed=$(sed -n 's/.*"compile_failed": \([0-9]*\).*/\1/p' <<<"$summary")
  rows+=("$(printf '%4d %8d %7d %10.1f %14.1f %12.1f %10.0f%%' "$n" "$configs" "$failed" "$wall" \
    "$cpu" "$(awk -v c="$cpu" -v n="$n" 'BEGIN{print c/n}')" \
    "$(awk -v c="$cpu" -v n="$n" -v w="$wall" 'BEGIN{print 100*c/n/w}')")")
done
printf '\nsgemm cubins on %s (%d cores)\n' "$(hostname)" "$(nproc)"
printf '%4s %8s %7s %10s %14s %12s %11s\n' jobs compiled failed "wall (s)" "nvcc CPU (s)" "CPU/jobs" efficiency
printf '%s\n' "${rows[@]}"
