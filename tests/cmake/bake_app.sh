#!/usr/bin/env bash
# The bake step without a GPU: the sample's app builds from the DEFAULT alone; with a DB
# shipped in DB_DIRS it bakes that GPU's table; a hostile DB cannot inject code; building
# again with nothing changed bakes nothing; a changed kernel bakes again and leaves the
# stale table out.
# usage: bake_app.sh <ktune source> <ktune tool> <make_db tool> <work dir>
set -euo pipefail
root=$1 tool=$2 make_db=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/sample" "$work/src"
build_dir=$work/build
kdir=$build_dir/_ktune/tiny
configure() {
  cmake -S "$work/src" -B "$build_dir" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
    -DKTUNE_CUDA_ARCH=90 -DKTUNE_COMPILE_JOBS=2 "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail configure; }
}
build() {
  cmake --build "$build_dir" --parallel 2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
}

configure
build
grep -q "ktune: tiny: no tuning results for this kernel version: baked the DEFAULT config only" "$work/build.log" ||
  { cat "$work/build.log"; fail "bake did not say it used the DEFAULT only"; }
"$build_dir/tiny_app" >"$work/app1.txt"
cat "$work/app1.txt"
grep -q "^baked: no tuning results" "$work/app1.txt" || fail "app: baked note"
grep -q "^table:" "$work/app1.txt" && fail "app: a table without any DB"
grep -qE "^(no launch here|choice: default)" "$work/app1.txt" || fail "app: no choice line"
echo "ok: no GPU, no DB: the app builds and carries the DEFAULT"

# A DB as a tuner on an H200 would have written it, shipped with the project.
hash=$("$tool" cubins --json "$kdir/manifest.json" | python3 -c "import json,sys; print(json.load(sys.stdin)['kernel_hash'])")
best=$("$tool" space --configs --json "$kdir/manifest.json" | python3 -c "
import json, sys; m = json.load(open('$kdir/manifest.json'))
print([c['id'] for c in json.load(sys.stdin)['configs'] if c['id'] != m['default_id']][0])")
mkdir -p "$work/src/shipped"
"$make_db" "$work/src/shipped/NVIDIA_H200.json" "$kdir/manifest.json" "$hash" "NVIDIA H200" 132 "$best" 0.0123
configure -DTINY_DB_DIRS="$work/src/shipped"
build
grep -q "ktune: tiny: baked NVIDIA H200 (1 keys, from .*shipped/NVIDIA_H200.json)" "$work/build.log" ||
  { cat "$work/build.log"; fail "bake did not use the shipped DB"; }
"$build_dir/tiny_app" >"$work/app2.txt"
grep -q "^table: NVIDIA H200 sm_90, 1 keys, common best $best" "$work/app2.txt" ||
  { cat "$work/app2.txt"; fail "app: the shipped table"; }
echo "ok: the shipped DB's table is in the app: best $best"

build
grep -q "no work to do" "$work/build.log" || { cat "$work/build.log"; fail "a second build did work"; }
echo "ok: nothing changed, nothing baked"

# A hostile DB: a GPU name that would end a string literal and call system().
payload='"); int x = system("touch /tmp/ktune-pwned"); //'
"$make_db" "$work/src/shipped/evil.json" "$kdir/manifest.json" "$hash" "$payload" 100 "$best" 0.5
configure -DTINY_DB_DIRS="$work/src/shipped"
build
src=$kdir/baked/ktune_tiny_baked.cpp
grep -qF 'system("touch' "$src" && fail "the payload reached the generated C++ unescaped"
grep -qF '"\042); int x = system(\042touch /tmp/ktune-pwned\042); //"' "$src" || { grep -n "H200\|system" "$src" | head; fail "the payload is not in the source as escapes"; }
"$build_dir/tiny_app" | grep -c "^table:" | grep -qx 2 || fail "app: expected two tables"
echo "ok: a hostile GPU name is data (escaped), not code"

# A DB file removed: the build (no configure asked) bakes again without its table.
rm "$work/src/shipped/evil.json"
build
grep -q "ktune: baking tiny" "$work/build.log" || { cat "$work/build.log"; fail "a removed DB: not baked again"; }
"$build_dir/tiny_app" | grep -c "^table:" | grep -qx 1 || fail "app: the removed DB's table is still baked"
echo "ok: a DB file removed from DB_DIRS: baked again, its table gone"
build
grep -q "ktune: baking tiny" "$work/build.log" && { cat "$work/build.log"; fail "nothing changed, but baked again"; }
echo "ok: nothing changed since: not baked again"

# The kernel changes: the shipped tables are stale and left out.
echo "// changed" >>"$work/src/tiny.cu"
build
grep -q "ktune: baking tiny" "$work/build.log" || fail "changed kernel: not baked again"
grep -q "baked the DEFAULT config only" "$work/build.log" || { cat "$work/build.log"; fail "stale tables were used"; }
grep -q "earlier version of the kernel" "$work/build.log" || fail "no warning about the stale fingerprints"
echo "ok: a changed kernel bakes again without the stale tables"
echo PASS
