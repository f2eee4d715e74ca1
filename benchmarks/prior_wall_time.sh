#!/usr/bin/env bash
# What a prior buys in wall time on the GPU: an example kernel tuned for keys its build does
# not declare, once starting from a DB directory of its other keys (PRIOR_DIR, default the
# shipped generated/<kernel>) and once cold, with the same strategy, budget and seeds. Each
# run has a fresh DB and a fresh copy of the manifest, so no run reuses another's cubins
# (each compiles what it proposes). Prints per run its wall, its best, and when (seconds
# from its start, by the DB's "at" stamps) it first measured a config within 1 % of the
# cold run's best of the same key and seed; then the means.
# usage: prior_wall_time.sh <build dir> <kernel> <jobs> <seeds> <key>...
#   e.g. prior_wall_time.sh build/default hgemm_f16 16 3 "M=2048 N=2048 K=2048"
#   BUDGET (default 32) and STRATEGY (default genetic) as the example's tune step has them.
set -uo pipefail
build=$1 kernel=$2 jobs=$3 seeds=$4
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)
prior_dir=${PRIOR_DIR:-$root/generated/$kernel}
tuner=$build/bin/ktune_${kernel}_tuner
manifest=$build/_ktune/$kernel/manifest.json
[[ -x $tuner && -f $manifest ]] || { echo "prior_wall_time: no $tuner or $manifest (build the examples first)"; exit 1; }
nvidia-smi -L >/dev/null 2>&1 || { echo "prior_wall_time: no GPU visible: nothing to measure"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=$work/rows.txt
: >"$rows"

run() {  # run <mode> <seed> <key>: one tune; appends "<mode> <seed> <key> <start> <wall> <db file>" to rows
  local mode=$1 seed=$2 key=$3 dir
  dir=$work/${mode}_${seed}_$(echo "$key" | tr -c 'A-Za-z0-9' '_')
  mkdir -p "$dir/db" "$dir/kernel/"{cubins,logs,records,deps}
  cp "$manifest" "$dir/kernel/manifest.json"
  local extra=()
  [[ $mode == prior ]] && extra=(--prior-db-dir "$prior_dir")
  local start=$EPOCHREALTIME
  "$tuner" --manifest "$dir/kernel/manifest.json" --db-dir "$dir/db" --key "$key" \
    --strategy "${STRATEGY:-genetic}" --budget "${BUDGET:-32}" --seed "$seed" --compile-jobs "$jobs" \
    --summary-out "$dir/tune.json" "${extra[@]}" >"$dir/out.txt" 2>&1 ||
    { echo "prior_wall_time: $mode seed $seed key $key failed:"; tail -5 "$dir/out.txt"; }
  local wall
  wall=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{print a-b}')
  grep -h "prior for" "$dir/out.txt" | sed 's/^ */    /'
  echo "$mode $seed $start $wall $dir/tune.json $key" >>"$rows"
}

for key in "$@"; do
  for seed in $(seq 1 "$seeds"); do
    # Prior first: the runs share nothing, but the machine's caches warm with each run.
    run prior "$seed" "$key"
    run cold "$seed" "$key"
  done
done

python3 - "$rows" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    mode, seed, start, wall, summary, key = line.split(maxsplit=5)
    s = json.load(open(summary))
    db = json.load(open(s["db"]))
    times = []  # (seconds from start, median ms) of every timed config
    for table in db["fingerprints"].values():
        for entries in table["keys"].values():
            for e in entries.values():
                m = e["measurement"]
                if m["status"] == "ok" and not m.get("abandoned") and m.get("at", 0) > 0:
                    times.append((m["at"] - float(start), m["median_ms"]))
    prior = s["keys"][0].get("prior", {})
    runs[(key.strip(), int(seed), mode)] = (float(wall), sorted(times), prior.get("from", "-"))

def reach(times, target):
    return next((t for t, ms in times if ms <= target * 1.01), None)

print(f"{'key':>24} {'seed':>4} {'mode':>5} {'wall s':>7} {'best ms':>9} {'to cold best s':>14}  prior from")
means = {"prior": [], "cold": []}
for (key, seed, mode), (wall, times, source) in sorted(runs.items()):
    cold_best = min(ms for _, ms in runs[(key, seed, "cold")][1])
    best = min(ms for _, ms in times)
    t = reach(times, cold_best)
    means[mode].append((wall, t, best / cold_best))
    print(f"{key:>24} {seed:>4} {mode:>5} {wall:7.1f} {best:9.4f} {t if t is not None else float('nan'):14.1f}  {source}")
print()
for mode, rows in means.items():
    reached = [t for _, t, _ in rows if t is not None]
    print(f"{mode:>5}: mean wall {statistics.mean(w for w, _, _ in rows):.1f} s; reached the cold best (within 1 %) "
          f"in {len(reached)}/{len(rows)} runs, mean {statistics.mean(reached) if reached else float('nan'):.1f} s "
          f"to it; best / cold best mean {statistics.mean(r for _, _, r in rows):.3f}")
PY
