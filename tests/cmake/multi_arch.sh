#!/usr/bin/env bash
# One build for a fleet, on a machine without a GPU: two examples built for
# KTUNE_CUDA_ARCH="80;90". sgemm embeds its DEFAULT for sm_80 and sm_90 and the shipped H200
# table's winners for sm_90 only; hgemm_wgmma_f16 (ARCH 90a) only sm_90a. A hand-made A100 DB
# beside the shipped H200 one is baked with its winner compiled for sm_80; DBs of a GPU no
# listed architecture serves (a T4) or of an unknown compute capability are warned about and
# left out. The architecture of each embedded cubin is read from its ELF header (e_flags,
# SM number in bits 8-15), the field cuobjdump reports. Bounded compile work: the DEFAULTs
# and the winners, about 12 cubins.
# usage: multi_arch.sh <ktune source> <ktune tool> <make_db tool> <work dir>
set -euo pipefail
root=$1 tool=$2 make_db=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
build=$work/build
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_HOST_TOOL="$tool" \
  -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_BENCHMARKS=OFF -DKTUNE_BUILD_EXAMPLES=ON -DKTUNE_TUNE=OFF \
  -DKTUNE_EAGER_LIMIT=0 -DKTUNE_CUDA_ARCH="80;90" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail configure; }
grep -q "ktune: cubins for sm_80, sm_90 and PTX compute_90 (KTUNE_CUDA_ARCH); spaces compiled and tuned for sm_90" \
  "$work/configure.log" || { cat "$work/configure.log"; fail "configure did not say which architectures"; }
targets=(ktune_sgemm ktune_hgemm_wgmma_f16)
cmake --build "$build" --target "${targets[@]}" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
grep -E "ktune: sgemm: baked .*NVIDIA H200 .* \[sm_80: 1 cubin, [0-9]+ KiB; sm_90: [0-9]+ cubins, [0-9]+ KiB; PTX [0-9]+ KiB\]" \
  "$work/build.log" || { grep "ktune: sgemm" "$work/build.log"; fail "sgemm: the bake line does not give the sizes per architecture"; }
grep -E "ktune: hgemm_wgmma_f16: baked .*NVIDIA H200 .* \[sm_90a: [0-9]+ cubins, [0-9]+ KiB; PTX [0-9]+ KiB\]" \
  "$work/build.log" || { grep "ktune: hgemm_wgmma" "$work/build.log"; fail "hgemm_wgmma_f16 is not sm_90a only"; }

# Every embedded cubin: its declared architecture and the one its ELF header says. Prints
# "<config index> <declared> <elf sm>" per cubin.
embedded() {
  python3 - "$1" <<'PY'
import re, struct, sys
src = open(sys.argv[1]).read()
arrays = {m.group(1): bytes(int(x, 16) for x in re.findall(r"0x([0-9a-f]{2})", m.group(2)))
          for m in re.finditer(r"const unsigned char (cubin_\d+_\d+)\[\] = \{([^}]*)\};", src)}
for m in re.finditer(r"const ktune::BakedCubin cubins_(\d+)\[\] = \{\n((?:  .*\n)*?)\};", src):
    for a in re.finditer(r"\{\{(\d+), (\d+), (true|false)\}, \{(cubin_\d+_\d+), sizeof", m.group(2)):
        elf = arrays[a.group(4)]
        assert elf[:4] == b"\x7fELF", a.group(4)
        sm = (struct.unpack_from("<I", elf, 48)[0] >> 8) & 0xff
        print(m.group(1), a.group(1) + a.group(2) + ("a" if a.group(3) == "true" else ""), sm)
PY
}
kdir=$build/_ktune/sgemm
embedded "$kdir/baked/ktune_sgemm_baked.cpp" >"$work/sgemm.cubins"
cat "$work/sgemm.cubins"
awk '{ d = $2; sub(/a$/, "", d); if (d != $3) bad = bad " " $0 } END { if (bad) { print "declared vs ELF:" bad; exit 1 } }' \
  "$work/sgemm.cubins" || fail "sgemm: an embedded cubin is not for the architecture it is listed under"
[[ $(grep -c "^0 " "$work/sgemm.cubins") == 2 ]] && grep -q "^0 80 80$" "$work/sgemm.cubins" &&
  grep -q "^0 90 90$" "$work/sgemm.cubins" || fail "sgemm: the DEFAULT is not embedded for sm_80 and sm_90"
grep -v "^0 " "$work/sgemm.cubins" | grep -qv " 90 90$" && fail "sgemm: an H200 winner is embedded for sm_80"
grep -q "ptx_0" "$kdir/baked/ktune_sgemm_baked.cpp" || fail "sgemm: no DEFAULT PTX"
grep -q "cubin_archs, {9, 0, false}," "$kdir/baked/ktune_sgemm_baked.cpp" || fail "sgemm: the PTX is not compute_90"
embedded "$build/_ktune/hgemm_wgmma_f16/baked/ktune_hgemm_wgmma_f16_baked.cpp" >"$work/wgmma.cubins"
grep -qv " 90a 90$" "$work/wgmma.cubins" && fail "hgemm_wgmma_f16: a cubin not for sm_90a: $(grep -v ' 90a 90$' "$work/wgmma.cubins")"
[[ -s $work/wgmma.cubins ]] || fail "hgemm_wgmma_f16: no cubins"

# An A100 DB: one key, a config that is neither the DEFAULT nor an H200 winner, recorded
# with the kernel's hash for sm_80. A T4 (sm_75) and an unknown GPU (cc 0.0) beside it.
hash80=$("$tool" cubins --json "$kdir/manifest.json" |
  python3 -c "import json,sys; print(json.load(sys.stdin)['kernel_hashes']['80'])")
"$tool" space --configs --json "$kdir/manifest.json" >"$work/configs.json"
read -r pick key < <(python3 - "$work/configs.json" "$kdir/manifest.json" "$kdir/baked/bake.json" <<'PY'
import json, sys
configs, manifest, bake = (json.load(open(p)) for p in sys.argv[1:4])
taken = {manifest["default_id"]} | {e["config"] for t in bake["tables"] for e in t["entries"]}
pick = next(c["id"] for c in configs["configs"] if c["id"] not in taken)
key = " ".join(f"{d}={manifest['keys'][0][d]}" for d in manifest["key_dims"])
print(pick, key)
PY
)
db=$build/ktune-db/sgemm
mkdir -p "$db"
"$make_db" "$db/NVIDIA_A100-SXM4-80GB.json" "$kdir/manifest.json" "$hash80" "NVIDIA A100-SXM4-80GB" 108 "$pick" 0.5 "$key" 8.0
"$make_db" "$db/Tesla_T4.json" "$kdir/manifest.json" "$hash80" "Tesla T4" 40 "$pick" 2.0 "$key" 7.5
"$make_db" "$db/Mystery.json" "$kdir/manifest.json" "$hash80" "Mystery GPU" 0 "$pick" 1.0 "$key" 0.0
cmake --build "$build" --target ktune_sgemm >"$work/build2.log" 2>&1 || { cat "$work/build2.log"; fail "build with the A100 DB"; }
grep -E "ktune: sgemm: baked NVIDIA A100-SXM4-80GB \(1 keys, from .*NVIDIA_A100-SXM4-80GB.json\);.* NVIDIA H200 .* \[sm_80: 2 cubins, [0-9]+ KiB; sm_90: " \
  "$work/build2.log" || { grep "ktune: sgemm" "$work/build2.log"; fail "the A100 table was not baked with an sm_80 winner"; }
grep -q "warning: Tesla T4 (.*Tesla_T4.json) is sm_75, which none of the architectures this build lists (80, 90) runs cubins for: no GPU could choose its table" \
  "$work/build2.log" || { grep "ktune: sgemm" "$work/build2.log"; fail "no warning for the T4 table"; }
grep -q "warning: Mystery GPU (.*Mystery.json) records compute capability 0.0" "$work/build2.log" ||
  fail "no warning for the table of an unknown compute capability"
embedded "$kdir/baked/ktune_sgemm_baked.cpp" >"$work/sgemm2.cubins"
cat "$work/sgemm2.cubins"
index=$(grep -n "^  {\"$pick\"" <(sed -n '/BakedConfig configs\[\]/,/^};/p' "$kdir/baked/ktune_sgemm_baked.cpp") | cut -d: -f1)
[[ -n $index ]] || fail "the A100 winner $pick is not embedded"
[[ $(grep "^$((index - 2)) " "$work/sgemm2.cubins") == "$((index - 2)) 80 80" ]] ||
  fail "the A100 winner is not embedded for sm_80 alone: $(grep "^$((index - 2)) " "$work/sgemm2.cubins")"
grep -q '"NVIDIA A100-SXM4-80GB", 8, 0, 108,' "$kdir/baked/ktune_sgemm_baked.cpp" || fail "the A100 table's identity"
echo PASS
