#!/usr/bin/env bash
# Configures and builds tests/cmake/sample as a user would, its space compiled whole by the
# build (KTUNE_EAGER_LIMIT; by default only the DEFAULT is), then checks what ktune built:
# the number of cubins, the compile-failure record, and incrementality (nothing touched →
# nothing rebuilt; header touched → all rebuilt; value added → only the new config built).
# usage: sample_build.sh <ktune source> <ktune tool> <work dir> <generator>
set -euo pipefail
root=$1 tool=$2 work=$3 generator=$4

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/sample" "$work/src"
build_dir=$work/build
kdir=$build_dir/_ktune/tiny

fail() { echo "FAIL: $*"; exit 1; }
configure() {
  cmake -S "$work/src" -B "$build_dir" -G "$generator" -Dktune_DIR="$root/cmake" \
    -DKTUNE_HOST_TOOL="$tool" -DKTUNE_CUDA_ARCH=90 -DKTUNE_COMPILE_JOBS=2 -DKTUNE_EAGER_LIMIT=512 "$@" \
    >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
}
build() {
  cmake --build "$build_dir" --parallel 2 >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; fail "build (a compile failure must not fail the build)"; }
}
# Configs compiled by the last build: one COMMENT line "ktune: tiny BLOCK=<v> UNROLL=<v>" each.
compiled() { grep -cE 'ktune: tiny BLOCK=[0-9]+ UNROLL=[0-9]+' "$work/build.log" || true; }
expect_compiled() {
  local n; n=$(compiled)
  [[ $n == "$1" ]] || { cat "$work/build.log"; fail "$2: expected $1 configs compiled, got $n"; }
  echo "ok: $2: $n compiled"
}

configure
grep -q "tiny: 7 configs of 9 points; default BLOCK=64 UNROLL=1; compiled whole by the build" "$work/configure.log" ||
  { cat "$work/configure.log"; fail "configure summary"; }
[[ -f $kdir/manifest.json ]] || fail "no manifest"

build
expect_compiled 7 "first build"
cubins=$(find "$kdir/cubins" -name '*.cubin' -size +0 | wc -l)
[[ $cubins == 6 ]] || fail "expected 6 cubins (7 configs, 1 broken on purpose), found $cubins"
grep -qE "warning: config BLOCK=128 UNROLL=2 \([0-9a-f]{16}\) did not compile" "$work/build.log" ||
  { cat "$work/build.log"; fail "no warning naming the config that failed by its values"; }
"$tool" cubins --json "$kdir/manifest.json" >"$work/cubins.json"
grep -q '"compiled": 6' "$work/cubins.json" || { cat "$work/cubins.json"; fail "summary compiled"; }
grep -q '"compile_failed": 1' "$work/cubins.json" || fail "summary compile_failed"
failed_log=$(grep -l "broken on purpose" "$kdir"/logs/*.log | wc -l)
[[ $failed_log == 1 ]] || fail "the failed config's log does not hold nvcc's error"
log=$(grep -l "broken on purpose" "$kdir"/logs/*.log)
[[ $(head -n 1 "$log") == "# ktune: config BLOCK=128 UNROLL=2" ]] || fail "the log does not start with the config: $(head -n 2 "$log")"
sed -n 2p "$log" | grep -qE '^# ktune: command .*nvcc -cubin -arch=sm_90 .*-DBLOCK=128 -DUNROLL=2 ' ||
  fail "the log's second line is not the nvcc command: $(sed -n 2p "$log")"
grep -q '"config": "BLOCK=128 UNROLL=2"' "$kdir"/records/*.json || fail "no compile record names its config's values"
"$tool" cubins "$kdir/manifest.json" >"$work/cubins.txt"
grep -qE '^  compile-failed BLOCK=128 UNROLL=2 \([0-9a-f]{16}\): .*broken on purpose' "$work/cubins.txt" ||
  { cat "$work/cubins.txt"; fail "ktune cubins does not name the failed config by its values and error"; }
echo "ok: the failed config is named by its values in the build's warning, its log, its record and ktune cubins"
grep -l '"status": "compile-failed"' "$kdir"/records/*.json | wc -l | grep -qx 1 ||
  fail "expected one compile-failed record"

build
expect_compiled 0 "second build, nothing touched"
if [[ $generator == Ninja ]]; then
  grep -q "no work to do" "$work/build.log" || { cat "$work/build.log"; fail "ninja had work to do"; }
fi

sleep 1  # coarse file timestamps
touch "$work/src/include/tiny_common.cuh"
build
expect_compiled 7 "header touched"

configure -DTINY_UNROLL=1,2,4,8
grep -q "tiny: 8 configs of 12 points" "$work/configure.log" || fail "reconfigure summary"
build
expect_compiled 1 "value UNROLL=8 added"
[[ -f $(ls "$kdir"/cubins/*.cubin | head -1) ]] || fail "cubins vanished"
[[ $(find "$kdir/cubins" -name '*.cubin' -size +0 | wc -l) == 7 ]] || fail "expected 7 cubins after adding a value"

build
expect_compiled 0 "after the value was added, nothing touched"

sleep 1
echo "// edited" >>"$work/src/tiny.cu"
build
expect_compiled 8 "kernel source edited"
# A compiler launcher (sccache, distcc) goes in front of every nvcc command; a changed
# command line recompiles every config.
cat >"$work/launcher.sh" <<'LAUNCHER'
#!/usr/bin/env bash
echo "$*" >>"$(dirname "$0")/launched.txt"
exec "$@"
LAUNCHER
chmod +x "$work/launcher.sh"
configure -DCMAKE_CUDA_COMPILER_LAUNCHER="$work/launcher.sh"
build
expect_compiled 8 "launcher added"
launched=$(grep -c -- "-cubin" "$work/launched.txt")
[[ $launched == 8 ]] || fail "the launcher ran $launched nvcc commands, expected 8"

# The manifest is a space file too.
"$tool" space --json "$kdir/manifest.json" >"$work/space.json"
grep -q '"valid": 8' "$work/space.json" && grep -q '"product": 12' "$work/space.json" ||
  { cat "$work/space.json"; fail "ktune space on the manifest"; }
# The architectures come from CMAKE_CUDA_ARCHITECTURES when the project sets it, read as
# CMake reads it: cubins for the -real entries, PTX for the -virtual one. Configure only, in
# a second build tree.
cmake -S "$work/src" -B "$work/arch" -G "$generator" -Dktune_DIR="$root/cmake" \
  -DKTUNE_HOST_TOOL="$tool" "-DCMAKE_CUDA_ARCHITECTURES=80-real;90-virtual" -DKTUNE_EAGER_LIMIT=3 >"$work/arch.log" 2>&1 ||
  { cat "$work/arch.log"; fail "configure with CMAKE_CUDA_ARCHITECTURES"; }
grep -q "cubins for sm_80, PTX compute_90 (CMAKE_CUDA_ARCHITECTURES)" "$work/arch.log" ||
  { cat "$work/arch.log"; fail "arch not taken from CMAKE_CUDA_ARCHITECTURES"; }
grep -q "compiled on demand (over the eager-build limit of 3)" "$work/arch.log" ||
  { cat "$work/arch.log"; fail "a space over KTUNE_EAGER_LIMIT does not say it is compiled on demand"; }
grep -rq -- "-arch=sm_80" "$work/arch" --include=build.ninja --include=build.make ||
  fail "no -arch=sm_80 in the generated build files"
grep -rq -- "-arch=compute_90" "$work/arch" --include=build.ninja --include=build.make ||
  fail "no -arch=compute_90 (the DEFAULT's PTX) in the generated build files"
echo "PASS ($generator)"
