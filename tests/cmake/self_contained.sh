#!/usr/bin/env bash
# Every source file of the tool compiles on its own (-fsyntax-only), with only the includes
# it names. The build compiles them in unity batches, whose grouping depends on the batch
# size and so on the machine's cores: a missing include that an earlier file of the same
# batch happens to supply compiles in one build and fails in another. This check does not
# depend on the batches. Two compilers run at a time.
# usage: self_contained.sh <source dir> <C++ compiler> [<include dir>[:<include dir>...]]
set -uo pipefail
src=$1 cxx=$2
shift 2
flags=(-std=c++20 -fsyntax-only "-DKTUNE_VERSION=\"self-contained\"" -I"$src/tuner/src" -I"$src/tuner/include")
IFS=: read -r -a dirs <<<"${1:-}"
for dir in "${dirs[@]}"; do  # the compiler's own directories are searched already (and must stay last)
  case $dir in "" | /usr/include | /usr/local/include | "$src/tuner/src" | "$src/tuner/include") continue ;; esac
  [[ " ${flags[*]} " == *" -isystem $dir "* ]] || flags+=(-isystem "$dir")
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
check() {  # one file; its errors kept under $out when it fails
  local log
  log="$out/$(echo "$1" | tr / _).log"
  if ! "$cxx" "${flags[@]}" "$src/$1" >"$log" 2>&1; then echo "$1" >>"$out/failed"; fi
}
mapfile -t files < <(cd "$src" && find tuner/src -name '*.cpp' | sort)
for f in "${files[@]}"; do
  while (($(jobs -rp | wc -l) >= 2)); do wait -n; done
  check "$f" &
done
wait
if [[ -s $out/failed ]]; then
  while read -r f; do
    echo "FAIL: $f does not compile on its own (an include it needs came from its unity batch?):"
    head -n 15 "$out/$(echo "$f" | tr / _).log"
  done <"$out/failed"
  exit 1
fi
echo "ok: ${#files[@]} source files compile on their own"
