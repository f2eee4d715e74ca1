#!/usr/bin/env bash
# Measures example kernels' spaces whole on this machine's GPU, every declared key, as replay
# data for the search benchmarks (benchmarks/recordings/README.md): each kernel's tuner
# program with --strategy exhaustive into a DB directory of its own under <out>, so the
# shipped DBs and the build's are left alone. The build must have the tuner programs
# (configure with -DKTUNE_TUNE=OFF to skip the build's own budgeted tune step). A kernel
# whose DB is already complete is measured no more (the tuner skips what the DB has), so a
# call cut by a time limit is resumed by the next. Then, on any machine:
#   bench_strategies --db <out> --budgets 1,2,5,10
# usage: record_spaces.sh <build dir> <out dir> <jobs> kernel...
set -uo pipefail
build=$1 out=$2 jobs=$3
shift 3
mkdir -p "$out"
for k in "$@"; do
  tuner=$build/bin/ktune_${k}_tuner
  manifest=$build/_ktune/$k/manifest.json
  if [[ ! -x $tuner || ! -f $manifest ]]; then
    echo "record_spaces: no tuner program or manifest for '$k' in $build" >&2
    exit 1
  fi
  mkdir -p "$out/$k"
  start=$EPOCHREALTIME
  "$tuner" --manifest "$manifest" --db-dir "$out/$k" --strategy exhaustive --compile-jobs "$jobs" --require-gpu \
    --summary-out "$out/$k/tune.json" --worker-log "$out/$k/worker.log" >"$out/$k/tuner.log" 2>&1
  code=$?
  echo "$k: exit $code, $(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{printf "%.1f", a-b}') s"
  tail -n 4 "$out/$k/tuner.log"
done
