#!/usr/bin/env bash
# A fleet build on the H200: the examples built from the shipped H200 DBs (KTUNE_TUNE=OFF:
# DEFAULTs and winners only) once for 90 and once for "80;90". On the GPU, ktune-demo of the
# fleet build must launch the same configs by the same rules as the single-architecture
# build (the sm_90 tables, sm_90 cubins), every output matching the DEFAULT's.
# Exit 77 (skipped) without a GPU.
# usage: multi_arch.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
gpu=$("$tool" gpu --json)
grep -q '"gpu": null' <<<"$gpu" && { echo "SKIPPED: no GPU: $(sed -n 's/.*"why": "\(.*\)".*/\1/p' <<<"$gpu")"; exit 77; }
grep -q '"cc_major": 9' <<<"$gpu" || { echo "SKIPPED: not a compute capability 9.x GPU: $gpu"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
for archs in 90 "80;90"; do
  b=$work/build_${archs//;/_}
  cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_HOST_TOOL="$tool" \
    -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF -DKTUNE_BUILD_EXAMPLES=ON -DKTUNE_TUNE=OFF \
    -DKTUNE_EAGER_LIMIT=0 -DKTUNE_CUDA_ARCH="$archs" >"$b.configure.log" 2>&1 || { cat "$b.configure.log"; fail "configure $archs"; }
  cmake --build "$b" --target ktune-demo >"$b.build.log" 2>&1 || { tail -40 "$b.build.log"; fail "build $archs"; }
  "$b/bin/ktune-demo" >"$b.demo.txt" 2>&1 || { cat "$b.demo.txt"; fail "ktune-demo ($archs) failed"; }
  grep "^ktune: .*baked" "$b.build.log"
  # kernel, key, rule and config (fixed columns), and the output check.
  sed -n '/^kernel  /,$p' "$b.demo.txt" | tail -n +2 | awk '{ print substr($0, 1, 107), $NF, $(NF-1) }' >"$b.choices"
done
cat "$work/build_80_90.demo.txt"
# What the fleet build embeds for sgemm, as the toolkit lists it where it has cuobjdump
# (the bake embeds cubins as data, so each cubin file it compiled is listed): for
# information; the checks are the demo's and cmake.multi_arch's ELF headers.
if command -v cuobjdump >/dev/null; then
  for cubin in "$work"/build_80_90/_ktune/sgemm/cubins/*.cubin "$work"/build_80_90/_ktune/sgemm/sm_*/cubins/*.cubin; do
    echo "${cubin#"$work"/}: $(cuobjdump --list-elf "$cubin" 2>&1 | tr '\n' ' ')$(cuobjdump -elf "$cubin" 2>/dev/null | grep -m1 -o 'arch = sm_[0-9a-z]*')"
  done
else
  echo "cuobjdump not on PATH: the fleet build's cubins are not listed"
fi
[[ -s $work/build_90.choices ]] || fail "the demo launched nothing"
diff "$work/build_90.choices" "$work/build_80_90.choices" || fail "the fleet build launches other configs or rules on this GPU"
grep -v "DEFAULT matches$" "$work/build_80_90.choices" && fail "an output differs from the DEFAULT's"
echo "PASS: $(wc -l <"$work/build_90.choices") launches, the same configs and rules for 90 and 80;90"
