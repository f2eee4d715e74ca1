#!/usr/bin/env bash
# `ktune tune --t1` on the visible GPU, end to end with no C++ written:
#  1. kernels/t1_convolution (a Kernel Tuner-style 2-D convolution, 262 configs) on two
#     problem sizes: every config compiled, measured and verified against the Default
#     config (all ok), the DB and one T4 file per size written, and the Default's output
#     (the reference) checked here against a convolution computed from the saved inputs;
#  2. the same again: nothing measured twice;
#  3. tests/gpu/t1_tune/scaled_sum (scalars by value, an int32 array, a read-write output,
#     an array in __constant__ memory, a grid that does not divide the problem size): the
#     configs with bug=1 are wrong-result, the others ok, and the reference is checked here
#     element by element;
#  4. the same spec with a budget: only the configs the strategy proposes are compiled;
#  5. a space of 120,000 configs (over the old limit of 10,000) with a budget and no
#     strategy: the default strategy, only what it proposes compiled, a small manifest;
#  6. a Default outside the parameter's values: its values still give the reference;
#  7. a Default that compiles but does not run: the first valid config gives it.
# Exit 77 (skipped) when no GPU is visible.
# usage: t1_tune.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }

gpu=$("$tool" gpu --json)
if grep -q '"gpu": null' <<<"$gpu"; then
  echo "SKIPPED: no GPU: $(sed -n 's/.*"why": "\(.*\)".*/\1/p' <<<"$gpu")"
  exit 77
fi
[[ -x $(dirname "$tool")/ktune-t1-tuner ]] || fail "ktune-t1-tuner is not built beside $tool"
rm -rf "$work" && mkdir -p "$work"

# tune NAME ARGS...: ktune tune --json, the JSON in $work/NAME.json, the rest in $work/NAME.log.
tune() {
  local name=$1
  shift
  local start=$SECONDS
  "$tool" tune "$@" --json >"$work/$name.json" 2>"$work/$name.log" ||
    { tail -n 60 "$work/$name.log"; fail "ktune tune $*"; }
  tail -n 12 "$work/$name.log"
  echo "($name: $((SECONDS - start)) s)"
}

# 1. The convolution, every config, two problem sizes.
conv=$root/kernels/t1_convolution/convolution.T1.json
tune conv --t1 "$conv" --out "$work/conv" --problem-size 2048,2048 --problem-size 1024,512 \
  --save-arguments "$work/conv/arguments"
python3 - "$work/conv.json" "$work/conv/arguments/1024x512" <<'PY'
import array, json, random, sys
r = json.load(open(sys.argv[1]))
assert r["tuned"] is True and r["kernel"] == "convolution_kernel" and r["configs"] == 262, r
# The reference (the Default, a config of the space) and its stand-in (the first valid config)
# are compiled first; the tuner compiles the rest.
assert r["compile"] == {**r["compile"], "asked": 2, "ok": 2, "failed": 0}, r["compile"]
assert r["reference"]["why"] == "the Default's values", r["reference"]
s = r["summary"]
assert sorted(k["key"] for k in s["keys"]) == ["X=1024,Y=512", "X=2048,Y=2048"], s["keys"]
# A config may need more registers than its block allows (on the H200, 1024 threads of a
# 126-register build): that is "resource", with the reason; anything else must be ok.
resource = set()
for k in s["keys"]:
    # ok means: loaded, ran, and matched the Default config's outputs, twice, before any timing
    assert set(k["counts"]) <= {"ok", "resource"} and k["counts"]["ok"] >= 250, (k["key"], k["counts"], k["failures"][:3])
    for f in k["failures"]:
        assert f["status"] == "resource" and "registers" in f["reason"], f
        resource.add(f["id"])
    assert k["measured_now"] == 262 and k["best_ms"] > 0 and k["default_ms"] > 0, k
db = json.load(open(r["db"]))
fp = db["fingerprints"][s["fingerprint"]]
for key, entries in fp["keys"].items():
    assert len(entries) == 262, (key, len(entries))
    for cid, e in entries.items():
        m = e["measurement"]
        if cid in resource:
            assert m["status"] == "resource", (key, cid, m)
            continue
        assert m["status"] == "ok" and m["median_ms"] > 0 and len(m["samples_ms"]) >= 3, (key, cid, m)
assert len(r["t4"]) == 2
for t in r["t4"]:
    doc = json.load(open(t["file"]))
    assert doc["schema_version"] == "1.0.0" and len(doc["results"]) == 262 == t["results"], t
    correct = sum(res["invalidity"] == "correct" and res["correctness"] == 1 for res in doc["results"])
    assert correct == 262 - len(resource), (t, correct, len(resource))
    for res in doc["results"]:
        assert set(res["configuration"]) == {"block_size_x", "block_size_y", "tile_size_x", "tile_size_y",
                                             "use_shmem", "use_cmem", "filter_width", "filter_height"}, res
# The reference itself: the Default config's output against a convolution computed here.
d = sys.argv[2]
load = lambda name: array.array("f", open(f"{d}/{name}", "rb").read())
out, inp, filt = load("output_image.expected.bin"), load("input_image.bin"), load("d_filter.bin")
W, H, F = 1024, 512, 15
assert len(out) == W * H and len(inp) == (W + F - 1) * (H + F - 1) and len(filt) == F * F
assert any(v != 0 for v in out), "the Default config wrote nothing"
rng = random.Random(1)
points = [(0, 0), (H - 1, W - 1), (H - 1, 0), (0, W - 1)] + [(rng.randrange(H), rng.randrange(W)) for _ in range(400)]
for y, x in points:
    ref = sum(inp[(y + i) * (W + F - 1) + x + j] * filt[i * F + j] for i in range(F) for j in range(F))
    got = out[y * W + x]
    assert abs(got - ref) <= 1e-3 + 1e-4 * abs(ref), (y, x, got, ref)  # float sums of 225 products
print(f"ok: 262 configs x 2 problem sizes, all ok against the Default but {len(resource)} over the "
      f"register budget (resource); the DB and 2 T4 files written; "
      f"the Default's output agrees with a host convolution at {len(points)} pixels")
PY

# 2. Again: the DB answers, nothing is measured twice.
tune conv_again --t1 "$conv" --out "$work/conv" --problem-size 2048,2048 --problem-size 1024,512
python3 - "$work/conv_again.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
for k in s["keys"]:
    assert k["measured_now"] == 0 and k["from_db"] == 262 and k["counts"].get("ok", 0) >= 250, k
print("ok: a second run measured nothing")
PY

# 3. Wrong configs, scalars, constant memory, a partial last block.
sum_spec=$root/tests/gpu/t1_tune/scaled_sum.T1.json
tune sum --t1 "$sum_spec" --out "$work/sum" --save-arguments "$work/sum/arguments"
python3 - "$work/sum.json" "$work/sum/arguments/100003" <<'PY'
import array, json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
(k,) = s["keys"]
assert k["key"] == "X=100003" and k["counts"] == {"ok": 6, "wrong-result": 6}, k
fp = json.load(open(r["db"]))["fingerprints"][s["fingerprint"]]
for cid, e in fp["keys"]["X=100003"].items():
    m, bug = e["measurement"], e["values"]["bug"]
    if bug:
        assert m["status"] == "wrong-result", (e["values"], m)
        assert "1 of 100003 output elements beyond tolerance" in m["message"], m["message"]
    else:
        assert m["status"] == "ok", (e["values"], m)
best = fp["keys"]["X=100003"][k["best_id"]]["values"]
assert best["bug"] == 0, best
(t4,) = r["t4"]
results = json.load(open(t4["file"]))["results"]
assert sorted(x["invalidity"] for x in results) == ["correct"] * 6 + ["correctness"] * 6, results
# The reference, element by element: y = alpha * x + weights[i % 4] + counts + y.
d = sys.argv[2]
f32 = lambda name: array.array("f", open(f"{d}/{name}", "rb").read())
y0, x, w, out = f32("y.bin"), f32("x.bin"), f32("weights.bin"), f32("y.expected.bin")
counts = array.array("i", open(f"{d}/counts.bin", "rb").read())
n = 100003
assert len(y0) == len(x) == len(counts) == len(out) == n and len(w) == 4
assert all(0 <= c < 100 for c in counts) and len(set(counts)) > 50
for i in range(n):
    ref = 2.5 * x[i] + w[i % 4] + counts[i] + y0[i]
    assert abs(out[i] - ref) <= 1e-4 + 1e-5 * abs(ref), (i, out[i], ref)
print("ok: the 6 configs with bug=1 are wrong-result, the 6 others ok; the Default's output is right at all "
      f"{n} elements (scalars, int32 input, __constant__ weights, the last partial block)")
PY

# 4. A budget: the Default compiled first, then only what the strategy proposes.
tune sum_budget --t1 "$sum_spec" --out "$work/sum_budget" --strategy random --budget 4 --seed 1
python3 - "$work/sum_budget.json" "$work/sum_budget/kernel/records" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["compile"]["asked"] == 2, r["compile"]
(k,) = r["summary"]["keys"]
assert sum(k["counts"].values()) == 4 and k["measured_now"] == 4, k
fp = json.load(open(r["db"]))["fingerprints"][r["summary"]["fingerprint"]]
measured = set(fp["keys"]["X=100003"])
records = {f[:-5] for f in os.listdir(sys.argv[2]) if f.endswith(".json")}
assert records - measured <= {r["reference"]["fallback_id"]} and measured <= records, (records, measured)
assert r["default_id"] in measured, (records, measured)
print(f"ok: a budget of 4 compiled and measured exactly 4 of 12 configs")
PY

# 5. A space over the old limit of 10,000 valid configs, with a budget and no strategy.
big_spec=$root/tests/gpu/t1_tune/scaled_sum_big.T1.json
tune big --t1 "$big_spec" --out "$work/big" --budget 40 --seed 2
python3 - "$work/big.json" "$work/big/kernel" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["configs"] == 120000 and r["strategy"] == "default" and r["budget"] == 40, r
assert "a budget without a strategy: the default strategy" in r["search_why"], r["search_why"]
(k,) = r["summary"]["keys"]
assert sum(k["counts"].values()) == 40 and k["measured_now"] == 40, k
assert k["counts"].get("ok", 0) > 0, k
records = [f for f in os.listdir(os.path.join(sys.argv[2], "records")) if f.endswith(".json")]
assert len(records) <= 42, len(records)  # the 40 proposed, and the reference's stand-in
size = os.path.getsize(os.path.join(sys.argv[2], "manifest.json"))
assert size < 20000, size
print(f"ok: 120,000 configs tuned with a budget of 40 by the default strategy: {len(records)} compiled, "
      f"a manifest of {size} bytes")
PY

# with_default VALUE OUT: the scaled_sum spec with block_size_x's Default set to VALUE.
with_default() {
  python3 - "$sum_spec" "$2" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["ConfigurationSpace"]["TuningParameters"][0]["Default"] = int(sys.argv[3])
doc["KernelSpecification"]["KernelFile"] = sys.argv[1].replace(".T1.json", ".cu")
json.dump(doc, open(sys.argv[2], "w"))
PY
}

# 6. A Default outside the values (block_size_x=96): the reference, not the baseline.
with_default 96 "$work/outside.T1.json"
tune outside --t1 "$work/outside.T1.json" --out "$work/outside"
grep -q "warning: .*the Default block_size_x=96 is not among the values of block_size_x" "$work/outside.log" ||
  fail "no warning for a Default outside the values"
python3 - "$work/outside.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["reference"]["why"] == "the Default's values" and r["reference"]["values"][0] == 96, r["reference"]
(k,) = r["summary"]["keys"]
assert k["counts"] == {"ok": 6, "wrong-result": 6}, k
print("ok: a Default outside the values gives the reference outputs; the bug=1 configs are still wrong-result")
PY

# 7. A Default that compiles but cannot run here (2048 threads a block): the first valid
# config gives the reference outputs instead, and the worker's log says so.
with_default 2048 "$work/norun.T1.json"
tune norun --t1 "$work/norun.T1.json" --out "$work/norun"
grep -q "the reference config (block_size_x=2048 .*) did not run: .*the first valid config (block_size_x=64 tile_size_x=1 bug=0) gives the reference outputs instead" \
  "$work/norun/worker.log" || { tail -n 20 "$work/norun/worker.log"; fail "no fallback from a reference that does not run"; }
python3 - "$work/norun.json" <<'PY'
import json, sys
(k,) = json.load(open(sys.argv[1]))["summary"]["keys"]
assert k["counts"] == {"ok": 6, "wrong-result": 6}, k
print("ok: a Default that does not run hands the reference to the first valid config; bug=1 still wrong-result")
PY
echo PASS
