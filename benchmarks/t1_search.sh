#!/usr/bin/env bash
# `ktune tune --t1` on a real Kernel Tuner kernel, timed against the compile work it did:
# each run gets a fresh --out (nothing reused), and prints its wall time, the configs it
# measured and compiled, the compilers' summed CPU time (from the compile records: nvcc and
# its children, measured by wait4), that CPU time over the jobs (the bound a perfectly
# busy pool of that many jobs would reach), their ratio, and the best time found.
# usage: t1_search.sh <ktune tool> <T1 spec> <out dir> <jobs> RUN...
#   RUN = name:args, e.g. "genetic218:--strategy genetic --budget 218 --seed 1"
set -uo pipefail
tool=$1 spec=$2 out=$3 jobs=$4
shift 4
mkdir -p "$out"
printf "%-16s %8s %8s %9s %10s %10s %8s %10s\n" run measured compiled "wall s" "cpu s" "cpu/jobs" ratio "best ms"
for run in "$@"; do
  name=${run%%:*} args=${run#*:}
  dir=$out/$name
  rm -rf "$dir"
  start=$EPOCHREALTIME
  # shellcheck disable=SC2086
  "$tool" tune --t1 "$spec" --out "$dir" --jobs "$jobs" $args --json >"$dir.json" 2>"$dir.log"
  code=$?
  wall=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{printf "%.1f", a-b}')
  python3 - "$dir.json" "$dir/kernel/records" "$wall" "$jobs" "$name" "$code" <<'PY'
import json, os, sys
result, records, wall, jobs, name, code = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
try:
    r = json.load(open(result))
except Exception:
    print(f"{name:<16} failed (exit {code}); see {result[:-5]}.log")
    sys.exit(0)
cpu, compiled = 0.0, 0
for f in os.listdir(records):
    if f.endswith(".json"):
        rec = json.load(open(os.path.join(records, f)))
        cpu += rec["cpu_s"]
        compiled += 1
keys = r.get("summary", {}).get("keys", [])
measured = sum(sum(k["counts"].values()) for k in keys)
best = min((k["best_ms"] for k in keys if k["best_ms"] > 0), default=-1)
bound = cpu / jobs
print(f"{name:<16} {measured:8d} {compiled:8d} {wall:9.1f} {cpu:10.1f} {bound:10.1f} {wall / bound if bound else 0:8.2f} {best:10.4f}")
PY
done
