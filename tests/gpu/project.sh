# Sourced by the gpu tests that build a user's project against this tree ($root, $tool,
# $libs and $work set by the caller): fail, the GPU check and the project's configure.
fail() { echo "FAIL: $*"; exit 1; }

# Exit 77 (CTest: skipped, with the reason) when no GPU is visible. Else sets gpu_name, as
# the driver names the GPU, escaped for grep's basic regular expressions: the tests run on
# whichever card is there.
require_gpu() {
  local gpu
  gpu=$("$tool" gpu --json)
  if grep -q '"gpu": null' <<<"$gpu"; then
    echo "SKIPPED: no GPU: $(sed -n 's/.*"why": "\(.*\)".*/\1/p' <<<"$gpu")"
    exit 77
  fi
  gpu_name=$(python3 -c '
import json, re, sys
print(re.sub(r"([][.*^$\\])", r"\\\1", json.load(sys.stdin)["gpu"]["name"]))' <<<"$gpu")
  echo "GPU: $gpu_name"
}

# configure_project <source dir> <build dir> [cmake arguments...]: tuning on, ktune from this
# tree; the output goes to $work/configure.log, shown when it fails.
configure_project() {
  local src=$1 build=$2
  shift 2
  cmake -S "$src" -B "$build" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" \
    -DKTUNE_TUNER_LIBS="$libs" -DKTUNE_TUNE=ON "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail configure; }
}
