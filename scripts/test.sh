#!/usr/bin/env bash
# The tests: unit and cmake suites here; gpu tests run too and skip, saying so, where no
# GPU is visible. The test preset compiles no example space (see tests/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset test "$@"
cmake --build --preset test
ctest --preset test --output-on-failure
