#!/usr/bin/env bash
# STRATEGY, BUDGET and SEED of ktune_add_kernel() reach the tune step's command line (every
# strategy of the table is accepted: hybrid was once missing from a list of CMake's own)
# (configure only: the gpu sample project, with the search options added).
# usage: search_options.sh <ktune source> <ktune tool> <tuner libs dir> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cp -r "$root/tests/gpu/tune_sample" "$work/src"
sed -i 's|  HARNESS axpb_harness.cpp)|  HARNESS axpb_harness.cpp\n  STRATEGY hybrid BUDGET 50% 600s SEED 7)|' "$work/src/CMakeLists.txt"
grep -q "STRATEGY hybrid" "$work/src/CMakeLists.txt" || fail "could not add the options"
cmake -S "$work/src" -B "$work/build" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_TUNER_LIBS="$libs" -DKTUNE_CUDA_ARCH=90 >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail configure; }
line=$(grep -- "--summary-out" "$work/build/build.ninja" | grep -v -- "--retune" | head -1)
for want in --strategy=hybrid --budget=50% --seconds=600 --seed=7; do
  grep -q -- "$want" <<<"$line" || { echo "$line"; fail "tune command lacks $want"; }
done
echo "ok: the tune step runs with --strategy=hybrid --budget=50% --seconds=600 --seed=7"
# The build's tune steps, for a progress line across the build: the list the tune step is
# given names this kernel's directory, whose plan says what it will measure (50 % of the 18
# configs: 9 a key, 600 s at most).
steps=$work/build/_ktune/tune_steps.txt
grep -qF -- "--build-tunes=$steps" <<<"$line" || { echo "$line"; fail "tune command lacks --build-tunes=$steps"; }
grep -qx "$work/build/_ktune/axpb" "$steps" || { cat "$steps"; fail "the list of tune steps lacks axpb"; }
python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))
assert (p['evaluations_per_key'], p['seconds_per_key']) == (9, 600.0) and p['keys'] > 0, p" \
  "$work/build/_ktune/axpb/tune_plan.json" || fail "tune_plan.json"
echo "ok: the tune step gets the build's list of tune steps; axpb's plan: 9 configs a key, 600 s at most"
if grep -q -- "--key" <<<"$line"; then echo "$line"; fail "the tune step passes --key: its keys come from the manifest alone"; fi
# The tuner reads the budget as a share of the space's 18 configs (9) and refuses nonsense.
"$work/build/../build/ktune_axpb_tuner" --help >/dev/null 2>&1 || cmake --build "$work/build" --target ktune_axpb_tuner >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "building the tuner"; }
cmake --build "$work/build" --target ktune_axpb_cubins >"$work/cubins.log" 2>&1 || { cat "$work/cubins.log"; fail cubins; }
if "$work/build/ktune_axpb_tuner" --manifest "$work/build/_ktune/axpb/manifest.json" --db-dir "$work/db" \
     --key "N=1000 REF=0" --budget 0% >"$work/bad.log" 2>&1; then
  cat "$work/bad.log"; fail "--budget 0% was accepted"
fi
grep -q -- "--budget" "$work/bad.log" || { cat "$work/bad.log"; fail "the error does not name --budget"; }
# Keys as every subcommand reads them (any order, commas or spaces), the manifest's without
# --key: both get as far as the budget; a name given twice is refused.
for key in "--key=REF=0, N=1000" ""; do
  "$work/build/ktune_axpb_tuner" --manifest "$work/build/_ktune/axpb/manifest.json" --db-dir "$work/db" \
    ${key:+"$key"} --budget 0% >"$work/bad.log" 2>&1 && fail "--budget 0% was accepted"
  grep -q -- "--budget" "$work/bad.log" || { cat "$work/bad.log"; fail "tuner ${key:-without --key}: $(cat "$work/bad.log")"; }
done
"$work/build/ktune_axpb_tuner" --manifest "$work/build/_ktune/axpb/manifest.json" --db-dir "$work/db" \
  --key "N=1000 N=2" >"$work/bad.log" 2>&1 && fail "a key naming N twice was accepted"
grep -q "N" "$work/bad.log" && grep -qi "twice" "$work/bad.log" || { cat "$work/bad.log"; fail "a key naming N twice: $(cat "$work/bad.log")"; }
echo "ok: the tuner reads --key as every subcommand does, and takes the manifest's KEYS without one"
echo PASS
