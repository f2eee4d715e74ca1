#!/usr/bin/env bash
# The main job: configure and build ktune with its example kernels, which compiles every
# valid config of each example space to its own cubin in parallel under Ninja.
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
