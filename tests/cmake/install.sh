#!/usr/bin/env bash
# Install and consume: `cmake --install` of this build into a prefix, moved elsewhere
# afterwards (the package must be relocatable), then the consumer project configured and
# built against it with find_package(ktune CONFIG REQUIRED) alone; then the same project
# with ktune added as a subdirectory. No GPU needed: KTUNE_TUNE=OFF compiles the cubins,
# builds the tuner program and bakes the DEFAULT; the application says it has no GPU.
# usage: install.sh <ktune source> <ktune build dir> <ktune tool> <work dir> <dir of cuda.h>
set -euo pipefail
root=$1 build=$2 tool=$3 work=$4 cuda_include=$5
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

cmake --install "$build" --prefix "$work/stage" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail install; }
mv "$work/stage" "$work/prefix"
prefix=$work/prefix
cmake_dir=$(dirname "$(find "$prefix" -name ktuneConfig.cmake | head -1)")
[[ -f $cmake_dir/ktuneConfig.cmake ]] || fail "no ktuneConfig.cmake under $prefix"
for f in ktuneConfigVersion.cmake ktuneTargets.cmake ktune.cmake ktuneDependencies.cmake ktuneDbFiles.cmake; do
  [[ -f $cmake_dir/$f ]] || fail "$f is not installed beside ktuneConfig.cmake"
done
[[ -x $prefix/bin/ktune ]] || fail "bin/ktune is not installed"
[[ ! -x $(dirname "$tool")/ktune-t1-tuner || -x $prefix/bin/ktune-t1-tuner ]] || fail "bin/ktune-t1-tuner is not installed"
# The public headers alone, each compiling by itself from the prefix (so none includes one
# left out); the tuner's internals are not installed.
public="baked.hpp choose.hpp config.hpp cuda_arch.hpp dispatcher.hpp error.hpp gpu_info.hpp half.hpp harness.hpp launch.hpp launch_resources.hpp"
installed=$(cd "$prefix/include/ktune" && ls | tr '\n' ' ' | sed 's/ $//')
[[ $installed == "$public" ]] || fail "installed headers: '$installed', expected the public ones: '$public'"
# cuda.h from where the build found it (KTUNE_CUDA_INCLUDE), not from where nvcc is on PATH:
# a wrapper such as /usr/local/bin/nvcc has no include directory beside it.
for h in $public; do
  echo "#include <ktune/$h>" | c++ -std=c++20 -fsyntax-only -x c++ -I"$prefix/include" -I"$cuda_include" - ||
    fail "the installed ktune/$h does not compile alone"
done
cmp -s "$root/LICENSE" "$prefix/share/doc/ktune/LICENSE" || fail "the LICENSE is not installed in share/doc/ktune"
[[ $("$prefix/bin/ktune" --version) == "ktune $(sed -n 's/^set(KTUNE_VERSION \([0-9.]*\))$/\1/p' "$root/cmake/ktuneVersion.cmake")" ]] ||
  fail "the installed tool's --version: $("$prefix/bin/ktune" --version)"
echo "ok: only the public headers are installed ($public), each compiles alone"
for lib in space runtime tuner tuner_main; do
  [[ -n $(find "$prefix" -name "libktune_$lib.a") ]] || fail "libktune_$lib.a is not installed"
done
if grep -rlF -e "$root" -e "$work/stage" "$cmake_dir"; then fail "the package names the source tree or where it was installed"; fi
"$prefix/bin/ktune" --help >/dev/null || fail "the installed tool does not run"
echo "ok: installed into a prefix, moved, and nothing in it names the source tree"

# A version the package does not satisfy is refused by its version file.
mkdir -p "$work/version"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(v LANGUAGES NONE)\nfind_package(ktune 9.0 CONFIG REQUIRED)\n' \
  >"$work/version/CMakeLists.txt"
if cmake -S "$work/version" -B "$work/version/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/version.log" 2>&1; then
  fail "find_package(ktune 9.0) was satisfied"
fi
grep -q "version: 0\.1\." "$work/version.log" || { cat "$work/version.log"; fail "the refusal does not name the version found"; }
echo "ok: find_package(ktune 9.0) is refused"

# The consumer, against the installed package only.
cp -r "$root/tests/cmake/consumer" "$work/src"
consumer=$work/consumer
common=(-G Ninja -DKTUNE_TUNE=OFF -DKTUNE_CUDA_ARCH=90 -DKTUNE_COMPILE_JOBS=2)
cmake -S "$work/src" -B "$consumer" "${common[@]}" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure against the package"; }
grep -q "ktune: scale: 3 configs of 4 points" "$work/configure.log" || { cat "$work/configure.log"; fail "no plan line"; }
[[ ! -d $consumer/_ktune/host ]] || fail "the consumer built a ktune tool instead of using the installed one"
grep -qF "$prefix/bin/ktune" "$consumer/build.ninja" || fail "the build does not run the installed tool"
cmake --build "$consumer" --parallel 2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build against the package"; }
grep -q "ktune: scale: no tuning results for this kernel version: baked the DEFAULT config only" "$work/build.log" ||
  { cat "$work/build.log"; fail "no bake line"; }
# Not tuned here, so the build compiles only what it bakes: the DEFAULT.
default_id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['default_id'])" "$consumer/_ktune/scale/manifest.json")
[[ -s $consumer/_ktune/scale/cubins/$default_id.cubin ]] || fail "the DEFAULT's cubin $default_id was not compiled"
[[ $(find "$consumer/_ktune/scale/cubins" -name '*.cubin' | wc -l) == 1 ]] || fail "cubins other than the DEFAULT's were compiled"
check_app() {  # the application ran: with a GPU it names its choice, without one it says so
  "$1" >"$work/app.txt" || { cat "$work/app.txt"; fail "$1 failed"; }
  cat "$work/app.txt"
  grep -q "^baked: no tuning results" "$work/app.txt" || fail "app: no bake note"
  grep -q "^default: BLOCK=64 UNROLL=1$" "$work/app.txt" || fail "app: typed config"
  grep -qE "^(choice: default|no GPU here: )" "$work/app.txt" || fail "app: neither a choice nor why there is none"
}
check_app "$consumer/scale_app"
tuner=$consumer/ktune_scale_tuner
"$tuner" --help >"$work/tuner_help.txt" || fail "the tuner program's --help"
grep -q -- "--manifest" "$work/tuner_help.txt" || fail "tuner --help lists no --manifest"
"$tuner" --manifest "$consumer/_ktune/scale/manifest.json" --db-dir "$work/db" --key "N=100000" >"$work/tune.txt" 2>&1 ||
  { cat "$work/tune.txt"; fail "the tuner program failed"; }
grep -qE "ktune: scale: not tuning: |^ktune: scale on " "$work/tune.txt" || { cat "$work/tune.txt"; fail "tuner output"; }
echo "ok: find_package(ktune CONFIG REQUIRED): the DEFAULT's cubin, tuner program, bake and app built; both run"

# The same project with ktune as a subdirectory (the tool given, as the other tests do, so
# that no second one is built at configure time).
sub=$work/subdirectory
cmake -S "$work/src" -B "$sub" "${common[@]}" -DCONSUMER_KTUNE_SOURCE="$root" -DKTUNE_HOST_TOOL="$tool" \
  >"$work/sub_configure.log" 2>&1 || { cat "$work/sub_configure.log"; fail "configure with add_subdirectory"; }
grep -q "ktune: scale: 3 configs of 4 points" "$work/sub_configure.log" || { cat "$work/sub_configure.log"; fail "no plan line"; }
cmake --build "$sub" --parallel 2 --target scale_app >"$work/sub_build.log" 2>&1 ||
  { cat "$work/sub_build.log"; fail "build with add_subdirectory"; }
check_app "$sub/scale_app"
echo "ok: add_subdirectory(ktune): the app built with ktune's own runtime target and ran"

# Fetched by FetchContent from a source archive (what a release or a Git host serves): the
# tree's files as git knows them, or the tree without its build outputs outside a clone.
archive=$work/ktune-src.tar.gz
# In a clone, git's own archive of the checkout (edits to tracked files included, through a
# stash commit that touches nothing): other tests writing files meanwhile cannot disturb it,
# and a clone owned by another user is still read. Outside one, a tar of the tree that
# tolerates files changing while it reads (exit 1).
g=(git -c safe.directory='*' -C "$root")
if "${g[@]}" rev-parse --show-toplevel >/dev/null 2>&1; then
  commit=$("${g[@]}" stash create 2>/dev/null || true)
  "${g[@]}" archive --format=tar.gz --prefix=ktune/ -o "$archive" "${commit:-HEAD}" || fail "git archive of the tree"
else
  rc=0
  tar -C "$(dirname "$root")" -czf "$archive" --exclude=build --exclude=.deps --exclude=.git --warning=no-file-changed \
    "$(basename "$root")" || rc=$?
  ((rc <= 1)) || fail "tar of the tree (exit code $rc)"
fi
fetched=$work/fetchcontent
cmake -S "$work/src" -B "$fetched" "${common[@]}" -DCONSUMER_KTUNE_URL="file://$archive" -DKTUNE_HOST_TOOL="$tool" \
  >"$work/fetch_configure.log" 2>&1 || { cat "$work/fetch_configure.log"; fail "configure with FetchContent"; }
grep -q "ktune: scale: 3 configs of 4 points" "$work/fetch_configure.log" || { cat "$work/fetch_configure.log"; fail "no plan line"; }
[[ -f $fetched/_deps/ktune-src/cmake/ktune.cmake ]] || fail "FetchContent did not unpack ktune into _deps/ktune-src"
cmake --build "$fetched" --parallel 2 --target scale_app >"$work/fetch_build.log" 2>&1 ||
  { cat "$work/fetch_build.log"; fail "build with FetchContent"; }
check_app "$fetched/scale_app"
echo "ok: FetchContent(ktune URL ...): the app built from the fetched sources and ran"
echo PASS
