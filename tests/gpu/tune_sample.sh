#!/usr/bin/env bash
# End-to-end tuning of tests/gpu/tune_sample on the visible GPU: the build tunes; each
# fault config gets its status and is never chosen; a rebuild does no tuning work; a
# changed kernel source is tuned again; the retune target measures everything again. The
# sample's app launches the baked winners through every fallback rule and online tuning. Exit 77 (skipped) when there is no GPU.
# usage: tune_sample.sh <ktune source> <ktune tool> <tuner libs dir> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 work=$4
source "$root/tests/gpu/project.sh"
require_gpu

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/gpu/tune_sample" "$work/src"
build=$work/build
configure_project "$work/src" "$build"
cmake --build "$build" >"$work/build1.log" 2>&1 || { cat "$work/build1.log"; fail "first build"; }
cat "$work/build1.log" | grep -v "^\[" | tail -n 12
summary=$build/_ktune/axpb/tune.json
python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["tuned"], s
for k in s["keys"]:
    c = k["counts"]
    want = {"ok": 12, "resource": 3, "wrong-result": 1, "crashed": 1, "timed-out": 1}
    assert c == want, (k["key"], c, want)
    assert k["best_ms"] > 0 and k["default_ms"] > 0, k
    assert k["measured_now"] == 18 and k["from_db"] == 0, k
print("ok: statuses per key", want)
PY
db=$(python3 -c "import json,sys; print(json.load(open('$summary'))['db'])")
python3 - "$db" "$summary" <<'PY'
import json, sys
db = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
fp = db["fingerprints"][s["fingerprint"]]
for k in s["keys"]:
    entries = fp["keys"][k["key"]]
    best = entries[k["best_id"]]
    assert best["values"]["BUG"] == 0, "a faulty config was chosen"
    wrong = [e for e in entries.values() if e["measurement"]["status"] == "wrong-result"][0]
    assert wrong["measurement"]["max_error"] > 0.4, wrong
    ok = [e for e in entries.values() if e["measurement"]["status"] == "ok"]
    assert all(len(e["measurement"]["samples_ms"]) >= 3 for e in ok)
    clusters = [e for e in entries.values() if e["values"]["num_ctas"] == 2]
    assert len(clusters) == 3 and all(e["measurement"]["status"] == "ok" for e in clusters), clusters
print("ok: DB holds every sample; best has BUG=0; wrong result's max error recorded; clusters ran")
PY

# The bake: the app launches the baked winners, and each fallback rule gives correct output.
# The DB just tuned: the one the tuner's summary names, in the build's DB directory.
db=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["db"])' "$summary")
[[ $db == */ktune-db/axpb/*.json ]] || fail "the tuner wrote its DB outside ktune-db/axpb: $db"
grep "ktune: axpb: baked $gpu_name (2 keys, from " "$work/build1.log" | grep -qF "from $db)" ||
  { cat "$work/build1.log"; fail "the bake did not use the DB just tuned"; }
app=$build/axpb_app
"$app" 1000000 3000000 20000 | tee "$work/app.txt" || fail "app: a wrong result or an error"
grep -q "^N=1000000: before exact on $gpu_name (sm_[0-9a]* cubin).*correct" "$work/app.txt" || fail "app: exact"
grep -q "^N=3000000: before nearest-key on $gpu_name (sm_[0-9a]* cubin).*correct" "$work/app.txt" || fail "app: nearest key"
grep -q "^N=20000: before common-best on $gpu_name (sm_[0-9a]* cubin).*correct" "$work/app.txt" || fail "app: common best"
KTUNE_NO_CUBINS=1 "$app" 1000000 | tee "$work/app_ptx.txt" || fail "app with PTX only"
grep -q "^N=1000000: before default (compute_[0-9a]* PTX, JIT).*correct" "$work/app_ptx.txt" || fail "app: DEFAULT through PTX JIT"
echo "ok: baked winners, nearest key, common best and PTX JIT all launch and are correct"
"$app" --threads 16 1000000 3000000 20000 4000037 | tee "$work/app_threads.txt" || fail "app: 16 threads at once"
grep -q "threads=16 keys=4: 0 wrong elements, 0 errors" "$work/app_threads.txt" || fail "app: threads"
echo "ok: 16 threads launching 4 keys at once (first uses racing): all correct"
cache=$work/online.tsv
KTUNE_ONLINE=1 KTUNE_ONLINE_CACHE=$cache "$app" 3000000 | tee "$work/app_online1.txt" || fail "app online"
grep -q "^N=3000000: before nearest-key on $gpu_name (sm_[0-9a]* cubin), after online.*correct" "$work/app_online1.txt" ||
  fail "online: the first launch did not tune"
[[ $(wc -l <"$cache") == 1 ]] || fail "online: expected one cached choice"
KTUNE_ONLINE=1 KTUNE_ONLINE_CACHE=$cache "$app" 3000000 | tee "$work/app_online2.txt" || fail "app online again"
grep -q "^N=3000000: before online.*correct" "$work/app_online2.txt" || fail "online: the cached choice was not reused"
[[ $(wc -l <"$cache") == 1 ]] || fail "online: measured again instead of reusing"
echo "ok: online tuning measured once, cached its choice and the next process reused it"

cmake --build "$build" >"$work/build2.log" 2>&1 || { cat "$work/build2.log"; fail "second build"; }
grep -q "ktune: tuning axpb" "$work/build2.log" && { cat "$work/build2.log"; fail "rebuild tuned again"; }
grep -q "ktune: baking axpb" "$work/build2.log" && { cat "$work/build2.log"; fail "rebuild baked again"; }
echo "ok: rebuild with nothing changed did no tuning and no baking"

# The tree was last built on another GPU (or driver): tune and bake run again.
echo '{"gpu": {"name": "NVIDIA A100-SXM4-80GB", "cc_major": 8, "cc_minor": 0}}' >"$build/_ktune/gpu.json"
cmake --build "$build" >"$work/build_gpu.log" 2>&1 || { cat "$work/build_gpu.log"; fail "build after a GPU change"; }
grep -q "ktune: tuning axpb" "$work/build_gpu.log" || { cat "$work/build_gpu.log"; fail "another GPU: not tuned again"; }
grep -q "ktune: baking axpb" "$work/build_gpu.log" || { cat "$work/build_gpu.log"; fail "another GPU: not baked again"; }
echo "ok: a build tree last built on another GPU tunes and bakes again"

"$build/ktune_axpb_tuner" --manifest "$build/_ktune/axpb/manifest.json" --db-dir "$(dirname "$db")" \
  --key "N=1000000 REF=0" --summary-out "$work/rerun.json" >"$work/rerun.log" 2>&1 || { cat "$work/rerun.log"; fail rerun; }
python3 -c "
import json; k = json.load(open('$work/rerun.json'))['keys'][0]
assert k['measured_now'] == 0 and k['from_db'] == 18, k
print('ok: a rerun took all 18 results from the DB')"

cmake --build "$build" --target ktune_axpb_retune >"$work/retune.log" 2>&1 || { cat "$work/retune.log"; fail "retune target"; }
python3 -c "
import json; s = json.load(open('$summary'))
assert all(k['measured_now'] == 18 and k['from_db'] == 0 for k in s['keys']), s
print('ok: target ktune_axpb_retune measured every config again')"

echo "// changed" >>"$work/src/axpb.cu"
cmake --build "$build" >"$work/build3.log" 2>&1 || { cat "$work/build3.log"; fail "third build"; }
grep -q "ktune: tuning axpb" "$work/build3.log" || { cat "$work/build3.log"; fail "changed source not retuned"; }
grep -q "ktune: baking axpb" "$work/build3.log" || { cat "$work/build3.log"; fail "changed source not baked again"; }
"$app" 1000000 | grep -q "^N=1000000: before exact on $gpu_name (sm_[0-9a]* cubin).*correct" || fail "app after retuning"
python3 -c "
import json; s = json.load(open('$summary'))
assert all(k['measured_now'] == 18 for k in s['keys']), s
print('ok: changed kernel source tuned again:', s['fingerprint'])"
echo PASS
