#!/usr/bin/env bash
# The unit and cmake suites under AddressSanitizer and UBSan: preset asan, in build/asan.
# The sample projects the cmake suite configures build with the same flags (CXXFLAGS and
# LDFLAGS of the preset), since they link this build's libraries; the cubins nvcc makes
# are device code and are not instrumented. Five run in the plain suite only (the asan
# test preset's exclude): cmake.example_bake (all ten examples, each with its tuner program
# for the launch check: about 12 minutes instrumented), cmake.install (it builds and
# installs the whole of ktune again, instrumented: 416 s of a 2,183 s stage, for code this
# build already checks), cmake.multi_arch (two examples baked for two architectures, 410 s
# instrumented; the bake's plan and emit for several architectures run here in the unit
# tests BakePlan.*, BakeEmit.* and ChooseTable.*), cmake.self_contained (each header
# compiled alone: a property of the sources, not of a build) and cmake.sample_build.makefiles
# (the Makefile generator's build of the sample runs the same ktune code as its Ninja twin,
# cmake.sample_build.ninja, which does run here: 97 s instrumented). The build keeps line
# tables only (-O1 -g1, as the fuzz preset): reports still name file and line, and each file
# compiles in about three quarters of the time full debug information takes (29 against 39 s
# for the tuner library's first unity batch).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
source scripts/env.sh
cmake --preset asan "$@"
cmake --build --preset asan
ctest --preset asan
