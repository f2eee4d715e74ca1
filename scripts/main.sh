#!/usr/bin/env bash
# The main job: configure and build ktune with its example kernels (each space compiled in
# parallel under Ninja, tuned where a GPU is visible, baked), then run ktune-demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset default "$@"
cmake --build --preset default
echo
for m in build/default/_ktune/*/manifest.json; do
  build/default/bin/ktune space "$m"
done
echo
build/default/bin/ktune-demo
