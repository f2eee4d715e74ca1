#!/usr/bin/env bash
# Packs the header-only dependencies and GoogleTest's sources into .deps/ (git-ignored) so
# the tree builds on a machine where nothing can be installed: carry .deps along.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
rm -rf .deps && mkdir -p .deps/include
cp -r /usr/include/nlohmann .deps/include/
cp -r /usr/include/CLI .deps/include/
cp -r /usr/src/googletest .deps/googletest
du -sh .deps
