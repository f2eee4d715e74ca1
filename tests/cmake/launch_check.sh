#!/usr/bin/env bash
# The launch template checked on the host at build time (no GPU): the consumer project
# builds with its template and harness as written, then with one mistake at a time, each of
# which must fail the build with a message naming the key, the config and the mistake: a
# misspelt parameter, a misspelt key dimension, an argument too few, an argument of the
# wrong size, and an impossible block in a config the bake chose from a DB alone.
# usage: launch_check.sh <ktune source> <ktune tool> <tuner libs dir> <make_db tool> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 make_db=$4 work=$5
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/consumer" "$work/src"
cp "$work/src/scale_launch.hpp" "$work/scale_launch.hpp.orig"
cp "$work/src/scale_harness.cpp" "$work/scale_harness.cpp.orig"
build_dir=$work/build
cmake -S "$work/src" -B "$build_dir" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_TUNER_LIBS="$libs" -DKTUNE_TUNE=OFF -DKTUNE_CUDA_ARCH=90 -DKTUNE_COMPILE_JOBS=2 \
  -DKTUNE_DB_DIR="$work/db" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
build() { cmake --build "$build_dir" --target scale_app >"$work/build.log" 2>&1; }
build || { cat "$work/build.log"; fail "the project as written"; }
grep -q "ktune: scale: launch template checked on the host: 1 key, 1 launch (the DEFAULT and the baked configs); arguments match the kernel's 4 parameters" \
  "$work/build.log" || { cat "$work/build.log"; fail "no check line"; }
echo "ok: the template as written: checked, the arguments match the kernel's 4 parameters"

# expect_mistake <what> <file> <sed expression> <message regex>
expect_mistake() {
  cp "$work/scale_launch.hpp.orig" "$work/src/scale_launch.hpp"
  cp "$work/scale_harness.cpp.orig" "$work/src/scale_harness.cpp"
  sed -i "$3" "$work/src/$2"
  cmp -s "$work/src/$2" "$work/$2.orig" && fail "$1: the sed expression changed nothing"
  if build; then cat "$work/build.log"; fail "$1: the build passed"; fi
  grep -qE "$4" "$work/build.log" || { cat "$work/build.log"; fail "$1: the message"; }
  echo "ok: $1: $(grep -oE "$4" "$work/build.log" | head -1)"
}
expect_mistake "a misspelt parameter" scale_launch.hpp 's/c\["BLOCK"\] \* c\["UNROLL"\]/c["BLOKC"] * c["UNROLL"]/' \
  "key N=100000, config BLOCK=64 UNROLL=1 \(the DEFAULT\): the launch template: config has no parameter 'BLOKC'"
# Both configs the build checks have the mistake: each problem on a line of its own.
grep -qE "^  key N=100000, config BLOCK=64 UNROLL=1 \(the DEFAULT\): the launch template: config has no parameter 'BLOKC'" \
  "$work/build.log" && ! grep -qF '\x0a' "$work/build.log" ||
  { cat "$work/build.log"; fail "a misspelt parameter: the problems are not one to a line"; }
expect_mistake "a misspelt key dimension" scale_harness.cpp 's/h.key("N")/h.key("NN")/' \
  "key N=100000: the harness: harness asks for key dimension 'NN'"
expect_mistake "an argument too few" scale_launch.hpp 's/ktune::args(a, x, y, n)/ktune::args(a, x, y)/' \
  "config BLOCK=64 UNROLL=1 \(the DEFAULT\): 3 kernel arguments, but the kernel takes 4"
expect_mistake "an argument of the wrong size" scale_launch.hpp 's/ktune::args(a, x, y, n)/ktune::args(a, x, y, int64_t{n})/' \
  "argument 4 is 8 bytes, but the kernel's parameter 4 is 4"

# A mistake in a config the DEFAULT does not have: found once a DB makes the bake choose it.
cp "$work/scale_launch.hpp.orig" "$work/src/scale_launch.hpp"
cp "$work/scale_harness.cpp.orig" "$work/src/scale_harness.cpp"
sed -i 's/.block = {static_cast<uint32_t>(c\["BLOCK"\])}/.block = {c["BLOCK"] == 128 ? 2048u : static_cast<uint32_t>(c["BLOCK"])}/' \
  "$work/src/scale_launch.hpp"
build || { cat "$work/build.log"; fail "the DEFAULT alone (BLOCK=64) is fine"; }
kdir=$build_dir/_ktune/scale
hash=$("$tool" cubins --json "$kdir/manifest.json" | python3 -c "import json,sys; print(json.load(sys.stdin)['kernel_hash'])")
pick=$("$tool" space --configs --json "$kdir/manifest.json" | python3 -c "
import json, sys; print([c['id'] for c in json.load(sys.stdin)['configs'] if c['values'] == {'BLOCK': 128, 'UNROLL': 1}][0])")
mkdir -p "$work/db/scale"
"$make_db" "$work/db/scale/NVIDIA_H200.json" "$kdir/manifest.json" "$hash" "NVIDIA H200" 132 "$pick" 0.01 "N=100000"
cmake -S "$work/src" -B "$build_dir" >/dev/null 2>&1 || fail "reconfigure with the DB"
if build; then cat "$work/build.log"; fail "a baked config's impossible block passed"; fi
grep -qE "key N=100000, config BLOCK=128 UNROLL=1: block \(2048, 1, 1\) is not a CUDA block" "$work/build.log" ||
  { cat "$work/build.log"; fail "the baked config's message"; }
echo "ok: a baked config's impossible block: key N=100000, config BLOCK=128 UNROLL=1: block (2048, 1, 1) is not a CUDA block"
echo PASS
