#!/usr/bin/env bash
# The example kernels as the build tuned them on this GPU: for every kernel and key, the
# DEFAULT config and the chosen one ran and matched the kernel's reference (the tuner
# verifies every config it measures; `ok` is only given to matching output); then
# ktune-demo launches each tuned choice through the baked dispatcher and checks its output
# against the DEFAULT's. Prints every status that is not ok. Exit 77 (skipped) without a GPU.
# usage: examples_tuned.sh <build dir> <ktune tool> <ktune-demo>
set -euo pipefail
build=$1 tool=$2 demo=$3
gpu=$("$tool" gpu --json)
grep -q '"gpu": null' <<<"$gpu" && { echo "SKIPPED: no GPU: $(sed -n 's/.*"why": "\(.*\)".*/\1/p' <<<"$gpu")"; exit 77; }
python3 - "$build/_ktune" <<'PY'
import json, os, sys
root, bad = sys.argv[1], 0
kernels = open(os.path.join(root, "..", "kernels", "examples.txt")).read().split()
if not kernels:
    print("FAIL: no example kernels listed in kernels/examples.txt"); sys.exit(1)
for kernel in kernels:
    path = os.path.join(root, kernel, "tune.json")
    if not os.path.exists(path):
        print(f"FAIL: {kernel}: no {path}: the build did not tune it (KTUNE_TUNE=OFF?)"); bad += 1; continue
    s = json.load(open(path))
    if not s.get("tuned"):
        print(f"FAIL: {kernel}: not tuned: {s.get('why')}"); bad += 1; continue
    for k in s["keys"]:
        others = {st: n for st, n in k["counts"].items() if st != "ok"}
        ok = k["default_ms"] > 0 and k["best_ms"] > 0
        print(f"{'ok  ' if ok else 'FAIL'} {kernel:13} {k['key']:28} DEFAULT {k['default_ms']:.4f} ms, best {k['best_ms']:.4f} ms"
              f" ({k['counts'].get('ok', 0)} ok{', other: ' + str(others) if others else ''})")
        bad += not ok
sys.exit(1 if bad else 0)
PY
"$demo"
echo PASS
