#!/usr/bin/env bash
# Tuning wall time of the same kernels and spaces on 1 GPU and on every visible GPU, back to
# back (run on the GPU machine, after the build of the examples): each kernel's retune
# target with KTUNE_GPUS=0, then with KTUNE_GPUS empty (all). Prints both wall times, the
# ratio (goal >= 1.8x on 2 GPUs) and, per key, the best time each run chose (goal: within
# 3 %). With one GPU visible it prints the 1-GPU figures and says the other run is missing.
# usage: multi_gpu.sh <build dir with the examples> [kernel...]   (default: sgemm softmax_f32)
set -euo pipefail
build=$(cd "${1:-build/default}" && pwd)
shift || true
kernels=("$@")
((${#kernels[@]})) || kernels=(sgemm softmax_f32)
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
work=$(mktemp -d)
trap 'rm -rf "$work"; cmake -DKTUNE_GPUS= "$build" >/dev/null' EXIT

run() {  # run <label> <KTUNE_GPUS> <kernel>: wall seconds of the retune; tune.json kept
  cmake -DKTUNE_GPUS="$2" "$build" >/dev/null
  local start=$EPOCHREALTIME
  cmake --build "$build" --target "ktune_$3_retune" >"$work/$1_$3.log" 2>&1 ||
    { tail -n 30 "$work/$1_$3.log"; exit 1; }
  awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN{printf "%.2f", a-b}' >"$work/$1_$3.s"
  cp "$build/_ktune/$3/tune.json" "$work/$1_$3.json"
}

echo "GPUs visible: $gpus"
for k in "${kernels[@]}"; do
  run one 0 "$k"
  if ((gpus > 1)); then run all "" "$k"; fi
  python3 - "$work" "$k" "$gpus" <<'PY'
import json, os, sys
work, k, gpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
def load(label):
    s = json.load(open(os.path.join(work, f"{label}_{k}.json")))
    t = float(open(os.path.join(work, f"{label}_{k}.s")).read())
    return s, t
one, t1 = load("one")
print(f"{k}: 1 GPU: {t1:.2f} s wall, {sum(x['measured_now'] for x in one['keys'])} measurements, "
      f"GPUs used {one['gpus']}")
if gpus < 2:
    print(f"{k}: {gpus} GPU visible: the {gpus + 1}-GPU run is missing (needs a machine with several GPUs)")
    sys.exit(0)
allg, tn = load("all")
n = len(allg["gpus"])
print(f"{k}: {n} GPUs: {tn:.2f} s wall; speedup {t1 / tn:.2f}x (goal >= 1.8x on 2); dropped {allg['dropped_gpus']}")
for a, b in zip(one["keys"], allg["keys"]):
    d = abs(a["best_ms"] - b["best_ms"]) / a["best_ms"] * 100
    print(f"  {a['key']:<28} best 1 GPU {a['best_ms']:.4f} ms, {n} GPUs {b['best_ms']:.4f} ms: "
          f"{d:.1f} % apart ({'ok' if d <= 3 else 'over 3 %'}); measured per GPU {b['measured_on']}")
PY
done
