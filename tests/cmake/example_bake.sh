#!/usr/bin/env bash
# The examples built on a machine without a GPU: every example kernel bakes the table of
# each GPU whose DB it ships in generated/ (the H200's, the H100's) and ktune-demo links
# and runs (printing the tables; on a GPU it also launches them). The examples declared only
# on request (KTUNE_EXAMPLE_FMHA_WGMMA) are included: they ship no DB, and bake their
# DEFAULT, whose launch template the build checks on the host like every other.
# KTUNE_EAGER_LIMIT=0 keeps the compile work bounded: each kernel's DEFAULT plus the
# shipped winners, compiled on demand (about 60 cubins, not thousands).
# usage: example_bake.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF -DKTUNE_BUILD_EXAMPLES=ON -DKTUNE_TUNE=OFF \
  -DKTUNE_EAGER_LIMIT=0 -DKTUNE_CUDA_ARCH=90 -DKTUNE_EXAMPLE_FMHA_WGMMA=ON >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
cmake --build "$work/build" --target ktune-demo >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
# The examples as kernels/CMakeLists.txt declared them; each ships at least one DB, and
# every shipped DB is an example's.
kernels=$(cat "$work/build/kernels/examples.txt")
[[ -n $kernels ]] || fail "no examples listed in $work/build/kernels/examples.txt"
for d in "$root"/generated/*/; do
  grep -qx "$(basename "$d")" <<<"$kernels" || fail "generated/$(basename "$d") is the DB of no example kernel"
done
# Each shipped DB file: loads as JSON, has one GPU model (printed), fingerprints whose
# kernel hash is this tree's kernel, and only configs of the current space; its GPU's table
# is baked from it.
check_db='
import json, sys
db, configs, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
ids = {c["id"] for c in configs["configs"]}
fps = [f["fingerprint"] for f in db["fingerprints"].values()]
assert any(f["kernel_hash"] == want for f in fps), ("no fingerprint of this kernel version", want, fps)
names = {f["gpu"]["name"] for f in fps}
assert len(names) == 1 and all(f["nvcc_version"] for f in fps), fps
for fp in db["fingerprints"].values():
    for key, entries in fp["keys"].items():
        assert set(entries) <= ids, (key, set(entries) - ids)
n, nvcc = sum(len(e) for fp in db["fingerprints"].values() for e in fp["keys"].values()), fps[0]["nvcc_version"]
print(f"ok: {sys.argv[1]}: fingerprint {want} (nvcc {nvcc}), {n} measurements, all of this space", file=sys.stderr)
print(names.pop())
'
untuned=" fmha_wgmma_d64 fmha_wgmma_d128 "  # on request, slower than fmha: no DB shipped
for k in $kernels; do
  if [[ $untuned == *" $k "* && ! -d $root/generated/$k ]]; then
    grep -q "ktune: $k: no tuning results for this kernel version: baked the DEFAULT config only" "$work/build.log" ||
      fail "$k: ships no DB, but did not bake its DEFAULT alone"
    grep -q "ktune: $k: launch template checked on the host: .* arguments match the kernel's" "$work/build.log" ||
      fail "$k: its launch template was not checked on the host"
    continue
  fi
  hash=$("$tool" cubins --json "$work/build/_ktune/$k/manifest.json" | python3 -c "import json,sys; print(json.load(sys.stdin)['kernel_hash'])")
  "$tool" space --configs --json "$work/build/_ktune/$k/manifest.json" >"$work/$k.configs.json"
  shipped=("$root/generated/$k"/*.json)
  [[ -f ${shipped[0]} ]] || fail "$k: no DB shipped in generated/$k"
  for db in "${shipped[@]}"; do
    gpu=$(python3 -c "$check_db" "$db" "$work/$k.configs.json" "$hash") || fail "$k: the shipped DB $db"
    gpu_re=$(sed 's/[][\.*^$()+?{}|]/\\&/g' <<<"$gpu")
    grep "ktune: $k: baked" "$work/build.log" | grep -qE "[ ;]$gpu_re \([0-9]+ keys, from [^)]*generated/$k/$(basename "$db")\)" ||
      { grep -n "ktune: $k" "$work/build.log"; fail "$k: the table of $gpu was not baked from $db"; }
    echo "$k $gpu" >>"$work/shipped_gpus.txt"
  done
done
cubins=$(find "$work/build/_ktune" -path '*/records/*.json' | wc -l)
echo "ok: every example baked the table of each GPU it ships a DB for; $cubins configs compiled"
"$work/build/bin/ktune-demo" | tee "$work/demo.txt"
while read -r k gpu; do
  grep -qF "  $gpu " <(sed -n "/^$k: baked/,/^[a-z]/p" "$work/demo.txt" | grep -- " -> ") || fail "demo: no $gpu table for $k"
done <"$work/shipped_gpus.txt"
if "$tool" gpu --json | grep -q '"gpu": null'; then
  grep -q "^no GPU here: the tables above are what would launch; nothing was run" "$work/demo.txt" ||
    fail "demo: no GPU, but it did not say so"
else
  grep -q "matches DEFAULT" "$work/demo.txt" || fail "demo: nothing launched on the GPU"
fi
echo PASS
