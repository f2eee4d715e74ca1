#!/usr/bin/env bash
# The C++ files follow .clang-format: clang-format-14 (the version the style was written
# for; others break lines differently) changes nothing in any of them. Kernels keep their
# own text (kernels/.clang-format: their text is in the shipped DBs' kernel hash).
# usage: format.sh <ktune source>
set -euo pipefail
root=$1
cd "$root"
format=$(command -v clang-format-14 || true)
if [[ -z $format ]]; then
  echo "SKIPPED: clang-format-14 is not installed (scripts/deps.sh installs it)"
  exit 77
fi
if git -c safe.directory='*' rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git -c safe.directory='*' ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
else
  mapfile -t files < <(find tuner tests benchmarks kernels -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \))
fi
((${#files[@]} > 100)) || { echo "FAIL: only ${#files[@]} C++ files found under $root"; exit 1; }
if ! "$format" --dry-run --Werror "${files[@]}" 2>"${TMPDIR:-/tmp}/ktune_format.$$"; then
  grep -E "^[^ ].*: error:" "${TMPDIR:-/tmp}/ktune_format.$$" | sed -E "s/:[0-9]+:[0-9]+: error:.*//" | sort -u | head -20 |
    sed 's/^/FAIL: not formatted: /'
  rm -f "${TMPDIR:-/tmp}/ktune_format.$$"
  echo "FAIL: run clang-format-14 -i on the files above"
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/ktune_format.$$"
echo "ok: ${#files[@]} C++ files follow .clang-format"
