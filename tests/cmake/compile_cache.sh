#!/usr/bin/env bash
# ccache as the compiler launcher of every cubin compile (docs/scaling.md): the sample's
# space compiled whole through CMAKE_CUDA_COMPILER_LAUNCHER=ccache, then _ktune/ deleted and
# the tree configured and built again: every compile a cache hit, no miss, the same cubins.
# Then what forces a recompile: a header's code changed moves the DB's kernel hash and
# misses the cache for every config; put back, both return. Another build tree hits;
# another checkout hits with CCACHE_BASEDIR. Last, `ktune tune --t1 --launcher ccache` run again in the same
# --out after its kernel directory was deleted.
# usage: compile_cache.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
command -v ccache >/dev/null || fail "ccache not found: scripts/deps.sh installs it"

rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/cmake/sample" "$work/src"
b=$work/build k=$work/build/_ktune/tiny
export CCACHE_DIR=$work/ccache   # a cache of this test's own
# configure [source dir] [build dir], build [build dir]: the sample's tree $b by default.
configure() {
  local src=${1:-$work/src} dir=${2:-$b}
  cmake -S "$src" -B "$dir" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
    -DKTUNE_CUDA_ARCH=90 -DKTUNE_COMPILE_JOBS=2 -DKTUNE_EAGER_LIMIT=512 -DKTUNE_TUNE=OFF \
    -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; fail "configure $dir"; }
}
build() {
  local dir=${1:-$b}
  cmake --build "$dir" --parallel 2 >"$dir.build.log" 2>&1 || { cat "$dir.build.log"; fail "build $dir"; }
}
# ccache's counters since the last zeroing, as "hits misses".
stats() {
  ccache --print-stats | awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {h += $2}
    $1 == "cache_miss" {m = $2} END {print h + 0, m + 0}'
}
cubin_sums() { (cd "$k/cubins" && sha256sum ./*.cubin) }
kernel_hash() { "$tool" cubins --json "$k/manifest.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernel_hash"])'; }
expect_stats() {
  read -r hits misses <<<"$(stats)"
  [[ $hits == "$1" && $misses == "$2" ]] || { ccache -s; fail "$3: expected $1 hits and $2 misses, got $hits and $misses"; }
  echo "ok: $3: $hits cache hits, $misses misses"
}

configure
ccache -z >/dev/null
build
# 7 configs, one broken on purpose (ccache keeps no failed compile), and the DEFAULT's PTX.
compiled=$(find "$k/cubins" -name '*.cubin' -size +0 | wc -l)
[[ $compiled == 6 ]] || fail "expected 6 cubins, found $compiled"
grep -q -- "-cubin -c -arch=sm_90" "$k"/logs/*.log || fail "the cubin command has no -c, which ccache needs to cache it"
expect_stats 0 7 "first build"
cubin_sums >"$work/cubins.sha256"
hash_before=$(kernel_hash)

rm -rf "$b/_ktune"
configure
ccache -z >/dev/null
build
expect_stats 7 0 "_ktune/ deleted, configured and built again"
cubin_sums | diff - "$work/cubins.sha256" >/dev/null || fail "the cached cubins differ from the compiled ones"
echo "ok: the 6 cubins are byte for byte those first compiled"
[[ $(kernel_hash) == "$hash_before" ]] || fail "the kernel hash moved although nothing changed"

# A change of code in a header the kernel includes: the kernel hash (what makes a DB's
# measurements stale) and ccache's key (what makes a cubin stale) both move.
cp "$work/src/include/tiny_common.cuh" "$work/tiny_common.cuh.orig"
echo "__device__ int tiny_cache_probe;" >>"$work/src/include/tiny_common.cuh"
ccache -z >/dev/null
build
expect_stats 0 7 "a header's code changed"
[[ $(kernel_hash) != "$hash_before" ]] || fail "a header's code changed but the kernel hash did not"
echo "ok: a header's code changed: the kernel hash moved too"
cp "$work/tiny_common.cuh.orig" "$work/src/include/tiny_common.cuh"
ccache -z >/dev/null
build
expect_stats 7 0 "the header put back"
[[ $(kernel_hash) == "$hash_before" ]] || fail "the header put back but the kernel hash did not return"
echo "ok: the header put back: the kernel hash is the first one again"

# Other build trees. ccache leaves the output paths out of its key, so another build tree
# of the same checkout hits. Another checkout names its sources by other absolute paths:
# it hits when CCACHE_BASEDIR, a directory above both checkouts, makes ccache read them
# relative to the build tree, and the checkouts are laid out alike.
tree() {  # tree <source dir> <build dir>: configured and built, the cache's counters zeroed between
  configure "$1" "$2"
  ccache -z >/dev/null
  build "$2"
}
tree "$work/src" "$work/other_tree"
expect_stats 7 0 "another build tree of the same checkout"
for c in a b; do
  mkdir -p "$work/checkout_$c" && cp -r "$root/tests/cmake/sample" "$work/checkout_$c/src"
done
tree "$work/checkout_a/src" "$work/checkout_a/build"
expect_stats 0 7 "another checkout, no CCACHE_BASEDIR"
export CCACHE_BASEDIR=$work
tree "$work/checkout_a/src" "$work/checkout_a/build_based"
expect_stats 0 7 "that checkout with CCACHE_BASEDIR, the first time"
tree "$work/checkout_b/src" "$work/checkout_b/build_based"
expect_stats 7 0 "a second checkout, laid out alike, with CCACHE_BASEDIR"
unset CCACHE_BASEDIR

# ktune tune --t1: the same compiles through --launcher, again in the same --out.
spec=$root/tests/gpu/t1_tune/scaled_sum.T1.json
t1() { "$tool" tune --t1 "$spec" --out "$work/t1" --compile-only --launcher ccache --jobs 2 >"$work/t1.log" 2>&1 ||
  { cat "$work/t1.log"; fail "tune --t1 --launcher ccache"; }; }
t1
ccache -z >/dev/null
rm -rf "$work/t1"
t1
expect_stats 12 0 "tune --t1 run again after its output was deleted"
"$tool" tune --t1 "$spec" --out "$work/t1_bad" --compile-only --launcher no-such-launcher >"$work/bad.log" 2>&1 &&
  fail "a launcher that is not on PATH was taken"
grep -q -- "--launcher no-such-launcher: not an executable on PATH" "$work/bad.log" || { cat "$work/bad.log"; fail "message"; }
echo "ok: a launcher not on PATH is refused by name"
echo PASS
