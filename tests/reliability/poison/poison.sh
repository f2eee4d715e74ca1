#!/usr/bin/env bash
# The poison kernel tuned on the visible GPU (tests/reliability/poison/project): every
# fault config gets its status and a readable reason, none is chosen, the build is green,
# the good configs measure as they do alone; then the steady kernel is tuned twice more in
# separate processes and the chosen times must agree within 3 %. Exit 77 without a GPU.
# usage: poison.sh <ktune source> <ktune tool> <tuner libs dir> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 work=$4
source "$root/tests/gpu/project.sh"
require_gpu

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/reliability/poison/project" "$work/src"
build=$work/build
configure_project "$work/src" "$build"
cmake --build "$build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the build is not green"; }
grep -v "^\[" "$work/build.log" | grep -A14 "ktune: poison on" || true
echo "ok: the build is green"

python3 - "$build/_ktune" <<'PY'
import json, os, re, sys
root = sys.argv[1]
def summary(kernel): return json.load(open(os.path.join(root, kernel, "tune.json")))
def entries(s, key):
    db = json.load(open(s["db"]))
    return db["fingerprints"][s["fingerprint"]]["keys"][key]
# status and a phrase its reason must have, per FAULT
want = {1: ("compile-failed", "FAULT=1"), 2: ("resource", "shared memory"), 3: ("resource", "threads"),
        4: ("launch-failed", ""), 5: ("crashed", "illegal memory access"), 6: ("crashed", ""),
        7: ("crashed", "assert"), 8: ("timed-out", ""), 9: ("wrong-result", "beyond tolerance"),
        10: ("wrong-result", "nondeterministic")}
poison, clean, bad = summary("poison"), summary("clean"), 0
print(f"{'key':10} {'config':22} {'status':15} reason")
for k in poison["keys"]:
    seen = {}
    for f in k["failures"]:
        fault = int(re.search(r"FAULT=(\d+)", f["config"]).group(1))
        status, phrase = want.get(fault, ("ok", ""))
        good = f["status"] == status and phrase in f["reason"] and f["reason"] != ""
        bad += not good
        seen[fault] = f["status"]
        print(f"{k['key']:10} {f['config']:22} {f['status']:15} {f['reason'][:120]}{'' if good else '   <-- WRONG'}")
    if sorted(seen) != sorted(want): print("faults missing from the report:", sorted(set(want) - set(seen))); bad += 1
    if k["counts"].get("ok") != 3: print("good configs not all ok:", k["counts"]); bad += 1
    es = entries(poison, k["key"])
    if es[k["best_id"]]["values"]["FAULT"] != 0: print("a fault config was chosen:", es[k["best_id"]]); bad += 1
    # The good configs measure as they do with no faults around them.
    ce = entries(clean, k["key"])
    for e in es.values():
        if e["values"]["FAULT"] != 0: continue
        twin = [c for c in ce.values() if c["values"]["BLOCK"] == e["values"]["BLOCK"]][0]
        a, b = e["measurement"]["median_ms"], twin["measurement"]["median_ms"]
        print(f"{k['key']:10} BLOCK={e['values']['BLOCK']:<4} FAULT=0  among faults {a:.4f} ms, alone {b:.4f} ms, ratio {a / b:.3f}")
        if not 0.8 < a / b < 1.25: print("  <-- measured differently among faults"); bad += 1
sys.exit(1 if bad else 0)
PY
grep -q "ktune: poison: baked $gpu_name (2 keys" "$work/build.log" ||
  { grep "ktune: poison" "$work/build.log"; fail "poison was not baked from its DB"; }
echo "ok: every fault has its status and reason, none was chosen, good configs measure as alone"

# Stability: the steady kernel tuned twice more, each in its own process and DB.
for run in 1 2; do
  "$build/ktune_steady_tuner" --manifest "$build/_ktune/steady/manifest.json" --db-dir "$work/steady_db$run" \
    --key "N=67108864" --summary-out "$work/steady$run.json" >"$work/steady$run.log" 2>&1 ||
    { cat "$work/steady$run.log"; fail "steady tuning run $run"; }
done
python3 - "$build/_ktune/steady/tune.json" "$work/steady1.json" "$work/steady2.json" <<'PY'
import json, sys
runs = [json.load(open(p))["keys"][0] for p in sys.argv[1:]]
times = [r["best_ms"] for r in runs]
spread = (max(times) - min(times)) / min(times)
for i, r in enumerate(runs):
    print(f"steady run {i}: best {r['best_id']} {r['best_ms']:.4f} ms")
print(f"spread of the chosen times over {len(runs)} processes: {100 * spread:.2f} %")
sys.exit(0 if spread <= 0.03 else 1)
PY
echo PASS
