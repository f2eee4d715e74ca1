#!/usr/bin/env bash
# Tuning a space above the eager-build limit with a non-exhaustive strategy on the visible
# GPU: only the configs the strategy proposes are compiled (in the tuner's pool of
# KTUNE_COMPILE_JOBS, each cubin measured as soon as it exists), the bake uses them, the
# app launches the winner, and a rebuild does nothing. Exit 77 (skipped) when there is no GPU.
# usage: on_demand.sh <ktune source> <ktune tool> <tuner libs dir> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 work=$4
source "$root/tests/gpu/project.sh"
require_gpu

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/gpu/on_demand" "$root/tests/gpu/tune_sample" "$work/"
build=$work/build
kdir=$build/_ktune/axpb
configure_project "$work/on_demand" "$build" -DKTUNE_EAGER_LIMIT=64 -DKTUNE_COMPILE_JOBS=8
grep -q "axpb: 128 configs of 128 points; .*compiled on demand (over the eager-build limit of 64)" "$work/configure.log" ||
  { cat "$work/configure.log"; fail "configure did not put the space on demand"; }
cmake --build "$build" >"$work/build1.log" 2>&1 || { cat "$work/build1.log"; fail "first build"; }
grep -v "^\[" "$work/build1.log" | tail -n 8

python3 - "$kdir" <<'PY'
import json, os, sys
kdir = sys.argv[1]
s = json.load(open(os.path.join(kdir, "tune.json")))
assert s["tuned"] and s["build"] == "on-demand" and s["strategy"] == "genetic", s
db = json.load(open(s["db"]))
fp = db["fingerprints"][s["fingerprint"]]
measured = set()
for k in s["keys"]:
    assert k["measured_now"] == 24 and k["counts"] == {"ok": 24}, k
    entries = fp["keys"][k["key"]]
    assert len(entries) == 24, (k["key"], len(entries))
    measured |= set(entries)
records = {f[:-5] for f in os.listdir(os.path.join(kdir, "records")) if f.endswith(".json")}
assert records == measured, ("compiled but not measured:", records - measured, "measured, not compiled:", measured - records)
assert len(records) < 128
waits = sum(k["compile"]["wait_s"] for k in s["keys"]); comp = sum(k["compile"]["seconds"] for k in s["keys"])
print(f"ok: {len(records)} of 128 configs compiled, exactly those measured (24 per key, 2 keys); "
      f"compilers {comp:.1f} s, GPU waiting for a cubin {waits:.1f} s")
PY

grep -q "ktune: axpb: baked $gpu_name (2 keys" "$work/build1.log" || { cat "$work/build1.log"; fail "the bake did not use the DB just tuned"; }
"$build/axpb_app" 1000000 | tee "$work/app.txt" || fail "app"
grep -q "^N=1000000: before exact on $gpu_name (sm_[0-9a]* cubin).*correct" "$work/app.txt" || fail "app: exact key"
echo "ok: the app launches the tuned winner"

cmake --build "$build" >"$work/build2.log" 2>&1 || { cat "$work/build2.log"; fail "second build"; }
grep -q "ktune: tuning axpb" "$work/build2.log" && { cat "$work/build2.log"; fail "rebuild tuned again"; }
echo "ok: a rebuild with nothing changed did no tuning"
echo PASS
