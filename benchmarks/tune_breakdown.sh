#!/usr/bin/env bash
# Where tuning time goes, on a 200-config sgemm space and two keys (run on the GPU machine):
# compile wall vs (sum of nvcc CPU time / jobs), and tune wall split into harness setup,
# load, verify, measure and overhead, vs (sum of all timed samples). Goal: total <= 1.3x
# the sum of the two bounds (the space compiled whole by the build, KTUNE_EAGER_LIMIT raised,
# so the two phases are apart). Also the chosen config's time and the DEFAULT's. The reference
# is cuBLAS, as in kernels/.
# usage: tune_breakdown.sh <ktune build dir (bin/ktune, tuner/ libs)>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kbuild=$(cd "${1:-$root/build/default}" && pwd)
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cat >"$work/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(tune_breakdown LANGUAGES CXX)
find_package(ktune CONFIG REQUIRED)
ktune_add_kernel(sgemm200
  SOURCE       $root/kernels/sgemm/sgemm.cu
  ENTRY        sgemm
  PARAMS       "TM=32,64,128,256" "TN=32,64,128,256" "TK=8,16,32,64" "OCC=1,2,3,4"
  WHERE        "TM * TN <= 16384" "32 <= TM * TK <= 8192"
  DEFAULT      "TM=64 TN=64 TK=16 OCC=1"
  FLAGS        -O3
  KEYS         "M=1024 N=1024 K=1024" "M=2048 N=384 K=1000"
  HARNESS      $root/kernels/sgemm/sgemm_harness.cpp)
target_include_directories(ktune_sgemm200_tuner PRIVATE $root/kernels/sgemm)
find_package(CUDAToolkit REQUIRED)
target_link_libraries(ktune_sgemm200_tuner PRIVATE CUDA::cublas)
target_compile_definitions(ktune_sgemm200_tuner PRIVATE KTUNE_SGEMM_CUBLAS=1)
CMAKE
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$EPOCHREALTIME" -v b="$1" 'BEGIN{printf "%.2f", a-b}'; }

cmake -S "$work/src" -B "$work/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -Dktune_DIR="$root/cmake" -DKTUNE_EAGER_LIMIT=10000 \
  -DKTUNE_HOST_TOOL="$kbuild/bin/ktune" -DKTUNE_TUNER_LIBS="$kbuild/tuner" -DKTUNE_TUNE=ON \
  -DKTUNE_COMPILE_JOBS="$jobs" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
grep "sgemm200:" "$work/configure.log"
cmake --build "$work/b" --target ktune_sgemm200_tuner >/dev/null
t=$(now); cmake --build "$work/b" --target ktune_sgemm200_cubins -- -j "$jobs" >"$work/compile.log" 2>&1
compile_wall=$(since "$t")
t=$(now); cmake --build "$work/b" --target ktune_sgemm200_tune >"$work/tune.log" 2>&1 || { cat "$work/tune.log"; exit 1; }
tune_wall=$(since "$t")
grep -A4 "^ktune: sgemm200 on" "$work/tune.log"
"$kbuild/bin/ktune" cubins --json "$work/b/_ktune/sgemm200/manifest.json" >"$work/cubins.json"
python3 - "$work/cubins.json" "$work/b/_ktune/sgemm200/tune.json" "$compile_wall" "$tune_wall" "$jobs" <<'PY'
import json, sys
cubins, tune = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
compile_wall, tune_wall, jobs = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
phases = {}
samples_s = 0.0
for k in tune["keys"]:
    for p, s in k["phases_s"].items(): phases[p] = phases.get(p, 0) + s
    samples_s += k["samples_ms_total"] / 1000
overhead = tune_wall - sum(phases.values())
compile_bound = cubins["compiler_cpu_s"] / jobs
total, bound = compile_wall + tune_wall, compile_bound + samples_s
print(f"\nsgemm200: {cubins['configs']} configs ({cubins['compiled']} compiled, "
      f"{cubins['compile_failed']} failed), {len(tune['keys'])} keys, {jobs} jobs")
rows = [("compile (wall)", compile_wall, f"bound: nvcc CPU {cubins['compiler_cpu_s']:.1f} s / {jobs} = {compile_bound:.1f} s"),
        ("tune (wall)", tune_wall, "")]
for p in ("harness", "load", "verify", "measure"):
    rows.append((f"  {p}", phases.get(p, 0), ""))
rows.append(("  overhead", overhead, "tuner, worker starts, DB writes"))
rows[-2] = (rows[-2][0], rows[-2][1], f"bound: sum of samples {samples_s:.2f} s")
rows.append(("total", total, f"{total / bound:.2f}x the bounds' sum {bound:.1f} s (goal <= 1.3x)"))
for name, s, note in rows: print(f"{name:<16} {s:9.2f} s   {note}")
print()
for k in tune["keys"]:
    print(f"{k['key']:<24} best {k['best_ms']:.4f} ms  DEFAULT {k['default_ms']:.4f} ms  "
          f"speedup {k['default_ms'] / k['best_ms']:.2f}x  {k['counts']}")
PY
