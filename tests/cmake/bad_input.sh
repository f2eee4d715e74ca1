#!/usr/bin/env bash
# Runs one case of bad_inputs.txt: writes a project with the case's CMake code, configures
# it, and passes only if the configure fails with the expected message.
# usage: bad_input.sh <ktune source> <ktune tool> <work dir> <case>
set -euo pipefail
root=$1 tool=$2 work=$3 case=$4
cases=$root/tests/cmake/bad_inputs.txt

# The block of lines after "### <case>" up to the next "###" header.
block=$(awk -v name="### $case" '$0 == name {on=1; next} /^### / {on=0} on' "$cases")
expect=$(sed -n 's/^expect: //p' <<<"$block")
code=$(grep -v '^expect: ' <<<"$block")
[[ -n $expect && -n $code ]] || { echo "FAIL: case '$case' not found in $cases"; exit 1; }

dir=$work/$case
rm -rf "$dir" && mkdir -p "$dir"
cp "$root/tests/cmake/sample/tiny.cu" "$dir/"
cp -r "$root/tests/cmake/sample/include" "$dir/"
cat >"$dir/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(bad_input LANGUAGES NONE)
find_package(ktune CONFIG REQUIRED)
$code
CMAKE

if cmake -S "$dir" -B "$dir/build" -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
     >"$dir/configure.log" 2>&1; then
  cat "$dir/configure.log"
  echo "FAIL: configure succeeded; expected an error matching: $expect"
  exit 1
fi
# CMake indents and may wrap message lines: compare with whitespace runs squeezed.
if ! tr -s ' \n' ' ' <"$dir/configure.log" | grep -qE -- "$expect"; then
  cat "$dir/configure.log"
  echo "FAIL: configure failed, but without a message matching: $expect"
  exit 1
fi
echo "PASS: $case"
