#!/usr/bin/env bash
# The examples built on a machine without a GPU: every example kernel bakes the H200 tables
# shipped in generated/ and ktune-demo links and runs (printing the tables; on a GPU it
# also launches them). KTUNE_EAGER_LIMIT=0 keeps the compile work bounded: each kernel's
# DEFAULT plus the shipped winners, compiled on demand (about 60 cubins, not thousands).
# usage: example_bake.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF -DKTUNE_BUILD_EXAMPLES=ON -DKTUNE_TUNE=OFF \
  -DKTUNE_EAGER_LIMIT=0 -DKTUNE_CUDA_ARCH=90 >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
cmake --build "$work/build" --target ktune-demo >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
# The examples as kernels/CMakeLists.txt declared them; each ships an H200 DB, and every
# shipped DB is an example's.
kernels=$(cat "$work/build/kernels/examples.txt")
[[ -n $kernels ]] || fail "no examples listed in $work/build/kernels/examples.txt"
for d in "$root"/generated/*/; do
  grep -qx "$(basename "$d")" <<<"$kernels" || fail "generated/$(basename "$d") is the DB of no example kernel"
done
for k in $kernels; do
  grep -q "ktune: $k: baked NVIDIA H200 ([0-9]* keys, from .*generated/$k/NVIDIA_H200.json)" "$work/build.log" ||
    { grep -n "ktune: $k" "$work/build.log"; fail "$k: the shipped H200 DB was not baked"; }
done
# Each shipped DB: loads as JSON, names the fingerprint it was made with (GPU, kernel hash,
# nvcc), whose kernel hash is this tree's kernel, and only configs of the current space.
for k in $kernels; do
  hash=$("$tool" cubins --json "$work/build/_ktune/$k/manifest.json" | python3 -c "import json,sys; print(json.load(sys.stdin)['kernel_hash'])")
  "$tool" space --configs --json "$work/build/_ktune/$k/manifest.json" >"$work/$k.configs.json"
  python3 - "$root/generated/$k/NVIDIA_H200.json" "$work/$k.configs.json" "$hash" <<'PY' || fail "$k: the shipped DB"
import json, sys
db, configs, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
ids = {c["id"] for c in configs["configs"]}
fps = [f["fingerprint"] for f in db["fingerprints"].values()]
assert any(f["kernel_hash"] == want for f in fps), ("no fingerprint of this kernel version", want, fps)
for fp in db["fingerprints"].values():
    f = fp["fingerprint"]
    assert f["gpu"]["name"] == "NVIDIA H200" and f["nvcc_version"], f
    for key, entries in fp["keys"].items():
        assert set(entries) <= ids, (key, set(entries) - ids)
print(f"ok: {sys.argv[1].split('/')[-2]}: fingerprint {want} (NVIDIA H200, nvcc {fps[0]['nvcc_version']}), "
      f"{sum(len(e) for fp in db['fingerprints'].values() for e in fp['keys'].values())} measurements, all of this space")
PY
done
cubins=$(find "$work/build/_ktune" -path '*/records/*.json' | wc -l)
echo "ok: every example baked its shipped H200 table; $cubins configs compiled"
"$work/build/bin/ktune-demo" | tee "$work/demo.txt"
for k in $kernels; do
  grep -q "^  NVIDIA H200 .* -> " <(sed -n "/^$k: baked/,/^[a-z]/p" "$work/demo.txt") || fail "demo: no H200 table for $k"
done
if "$tool" gpu --json | grep -q '"gpu": null'; then
  grep -q "^no GPU here: the tables above are what would launch; nothing was run" "$work/demo.txt" ||
    fail "demo: no GPU, but it did not say so"
else
  grep -q "matches DEFAULT" "$work/demo.txt" || fail "demo: nothing launched on the GPU"
fi
echo PASS
