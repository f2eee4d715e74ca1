#!/usr/bin/env bash
# The tests: unit and cmake suites here; gpu tests run too and skip, saying so, where no
# GPU is visible. The test preset compiles no example space (see tests/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset test "$@"
cmake --build --preset test
status=0
ctest --preset test --output-on-failure || status=$?
# CTest lists skipped tests without their reason; print what each said.
grep -h "^SKIPPED" build/test/Testing/Temporary/LastTest.log 2>/dev/null | sort | uniq -c |
  sed 's/^/skip reason: /' || true
exit "$status"
