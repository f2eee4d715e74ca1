#!/usr/bin/env bash
# A space as the build compiles it by default (KTUNE_EAGER_LIMIT 0), without a GPU: the
# build compiles the DEFAULT only; the bake compiles the winners a shipped DB names and
# bakes them; a header change rebuilds what depends on it; the Makefile generator works
# the same. A space over an eager-build limit that is set says so.
# usage: on_demand.sh <ktune source> <ktune tool> <make_db tool> <work dir>
set -euo pipefail
root=$1 tool=$2 make_db=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/sample" "$work/src"
build_dir=$work/build
kdir=$build_dir/_ktune/tiny
configure() {
  cmake -S "$work/src" -B "$build_dir" -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
    -DKTUNE_CUDA_ARCH=90 -DKTUNE_COMPILE_JOBS=2 "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail configure; }
}
build() {
  cmake --build "$build_dir" --parallel 2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
}
records() { find "$kdir/records" -name '*.json' | wc -l; }

configure -G Ninja
grep -q "tiny: 7 configs of 9 points; default BLOCK=64 UNROLL=1; compiled as needed: the build makes the DEFAULT's cubin, the tuner those it measures, the bake the winners" \
  "$work/configure.log" || { cat "$work/configure.log"; fail "configure did not say the space is compiled as needed"; }
[[ $(grep -c "_ktune_cubin(" "$kdir/configs.cmake") == 1 ]] || fail "configs.cmake: expected the DEFAULT's edge alone"
[[ -e $kdir/on_demand.ninja ]] && fail "on_demand.ninja written: the space is a definition, not a list"
grep -q '"valid": 7' "$kdir/manifest.json" || fail "the manifest does not count 7 valid configs"
build
[[ $(records) == 1 ]] || fail "the build compiled $(records) configs; only the DEFAULT was wanted"
python3 -c "
import json; s = json.load(open('$kdir/cubins.json'))
assert s['compiled'] == 1 and s['not_built'] == 6, s"
grep -q "baked the DEFAULT config only" "$work/build.log" || { cat "$work/build.log"; fail "bake: DEFAULT only"; }
"$build_dir/tiny_app" | grep -q "^baked: no tuning results" || fail "app"
echo "ok: the build compiled the DEFAULT only (1 of 7 records) and baked it"

# A shipped DB: its fastest config is the one broken on purpose (tiny.cu), the next is
# fine. The bake compiles the winner, sees it fail, and compiles the next instead.
hash=$("$tool" cubins --json "$kdir/manifest.json" | python3 -c "import json,sys; print(json.load(sys.stdin)['kernel_hash'])")
"$tool" space --configs --json "$kdir/manifest.json" >"$work/configs.json"
read -r broken best < <(python3 -c "
import json; m = json.load(open('$kdir/manifest.json')); configs = json.load(open('$work/configs.json'))['configs']
others = [c['id'] for c in configs if c['id'] != m['default_id']]
assert len(configs) == 7, configs
print(others[-1], others[0])")
grep -q "broken on purpose" "$work/src/tiny.cu" || fail "tiny.cu no longer has a broken config"
mkdir -p "$work/src/shipped"
"$make_db" "$work/src/shipped/NVIDIA_H200.json" "$kdir/manifest.json" "$hash" "NVIDIA H200" 132 "$best" 0.0123
"$make_db" "$work/src/shipped/NVIDIA_H200.json" "$kdir/manifest.json" "$hash" "NVIDIA H200" 132 "$broken" 0.0100
configure -DTINY_DB_DIRS="$work/src/shipped"
build
grep -q "ktune: tiny: baked NVIDIA H200 (1 keys" "$work/build.log" || { cat "$work/build.log"; fail "bake did not use the shipped DB"; }
grep -q '"status": "compile-failed"' "$kdir/records/$broken.json" || fail "the broken winner was not tried"
[[ -f $kdir/records/$best.json && $(records) == 3 ]] || fail "expected the DEFAULT, $broken and $best compiled, found $(records)"
"$build_dir/tiny_app" | grep -q "^table: NVIDIA H200 sm_90, 1 keys, common best $best" || fail "app: the shipped table"
echo "ok: the bake compiled the shipped winner on demand; it failed, the next ($best) was compiled and baked (3 of 7 records)"

build
grep -q "no work to do" "$work/build.log" || { cat "$work/build.log"; fail "a second build did work"; }
echo "ok: nothing changed, nothing done"

# A header every config includes changes: the DEFAULT recompiles (the step's depfile), the
# kernel hash changes, so the shipped table is stale and left out.
echo "// changed" >>"$work/src/include/tiny_common.cuh"
build
grep -q '"cpu_s"' "$kdir/records/$(python3 -c "import json; print(json.load(open('$kdir/manifest.json'))['default_id'])").json" || fail "no DEFAULT record"
[[ "$kdir/records/$(python3 -c "import json; print(json.load(open('$kdir/manifest.json'))['default_id'])").json" -nt "$work/src/include/tiny_common.cuh" ]] || { cat "$work/build.log"; fail "header change: DEFAULT not rebuilt"; }
grep -q "baked the DEFAULT config only" "$work/build.log" || { cat "$work/build.log"; fail "header change: stale table used"; }
echo "ok: a header change rebuilt the DEFAULT and dropped the stale table"

# The same with Makefiles.
rm -rf "$build_dir" "$work/src/shipped"
configure -G "Unix Makefiles" -DTINY_DB_DIRS=
build
[[ $(records) == 1 ]] || fail "Makefiles: the build compiled $(records) configs"
"$build_dir/tiny_app" | grep -q "^baked: no tuning results" || fail "Makefiles: app"
echo "ok: Unix Makefiles: DEFAULT only"
echo PASS
