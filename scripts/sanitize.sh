#!/usr/bin/env bash
# The unit and cmake suites under AddressSanitizer and UBSan: preset asan, in build/asan.
# The sample projects the cmake suite configures build with the same flags (CXXFLAGS and
# LDFLAGS of the preset), since they link this build's libraries; the cubins nvcc makes
# are device code and are not instrumented. cmake.example_bake (all ten examples, each
# with its tuner program for the launch check: about 12 minutes instrumented) runs in the
# plain suite only; cmake.multi_arch bakes two of them here.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset asan "$@"
cmake --build --preset asan
ctest --preset asan
