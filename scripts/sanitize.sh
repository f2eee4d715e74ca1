#!/usr/bin/env bash
# The unit and cmake suites under AddressSanitizer and UBSan: preset asan, in build/asan.
# The sample projects the cmake suite configures build with the same flags (CXXFLAGS and
# LDFLAGS of the preset), since they link this build's libraries; the cubins nvcc makes
# are device code and are not instrumented. Two run in the plain suite only:
# cmake.example_bake (all ten examples, each with its tuner program for the launch check:
# about 12 minutes instrumented) and cmake.install (it builds and installs the whole of
# ktune again, instrumented: 416 s of a 2,183 s stage, for code this build already checks).
# cmake.multi_arch bakes two examples here.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset asan "$@"
cmake --build --preset asan
ctest --preset asan
