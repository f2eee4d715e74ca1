#!/usr/bin/env bash
# The presets with a build directory outside the source tree (docs/install.md: `cmake
# --preset default -B <dir>`): the configure writes its build files there and nothing
# under the source tree's build/ (configure only: the test preset, no example spaces).
# usage: preset_out_of_tree.sh <ktune source> <deps dir> <work dir>
set -euo pipefail
root=$1 deps=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
# The build directory outside the source tree for real (the work dir is under its build/).
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
before=$(find "$root/build" -maxdepth 2 -name CMakeCache.txt -newer "$root/CMakePresets.json" 2>/dev/null | sort | xargs -r stat -c '%n %Y' || true)
(cd "$root" && cmake --preset test -B "$out/b" -DKTUNE_DEPS_DIR="$deps") >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure with --preset test -B"; }
grep -q "Build files have been written to: $out/b" "$work/configure.log" ||
  { cat "$work/configure.log"; fail "the build files are not in $out/b"; }
grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$out/b/CMakeCache.txt" || fail "the cache names another source tree"
[[ -f $out/b/build.ninja ]] || fail "no build.ninja in $out/b"
after=$(find "$root/build" -maxdepth 2 -name CMakeCache.txt -newer "$root/CMakePresets.json" 2>/dev/null | sort | xargs -r stat -c '%n %Y' || true)
[[ $before == "$after" ]] || fail "a build directory under the source tree changed: $before -> $after"
echo "ok: cmake --preset test -B $out/b configured there, the source tree's build/ untouched"
echo PASS
