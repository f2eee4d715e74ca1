#!/usr/bin/env bash
# The unit and cmake suites under AddressSanitizer and UBSan: preset asan, in build/asan.
# The sample projects the cmake suite configures build with the same flags (CXXFLAGS and
# LDFLAGS of the preset), since they link this build's libraries; the cubins nvcc makes
# are device code and are not instrumented.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset asan "$@"
cmake --build --preset asan
ctest --preset asan
