#!/usr/bin/env bash
# Tuning past one machine with Slurm, on a real single-node Slurm that this test starts
# (munged, slurmctld and slurmd as its own processes, stopped at the end): the cubins of
# tests/cmake/slurm compiled as `srun` job steps through CMAKE_CUDA_COMPILER_LAUNCHER, then
# the kernel tuned with the fake measuring worker on this machine and as job arrays written
# by `ktune slurm` (3 tasks split by config, 2 split by key), each merged by its own job
# into one DB that must hold exactly the single-machine run's measurements.
# usage: slurm.sh <ktune source> <ktune tool> <tuner libs dir> <fake measuring worker> <work dir>
set -euo pipefail
root=$1 tool=$2 libs=$3 fake=$4 work=$5
fail() { echo "FAIL: $*"; exit 1; }
for p in munged slurmctld slurmd srun sbatch squeue; do
  command -v "$p" >/dev/null || fail "$p not found: scripts/deps.sh installs slurm-wlm and munge"
done
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)

# --- A single-node Slurm of this machine's own.
source "$root/tests/cmake/slurm_node.sh"
start_slurm_node "$work/slurm"
echo "ok: a single-node Slurm ($host) is up: slurmctld, slurmd and munged started by this test"

# --- The compile path: every cubin compiled by nvcc run as a Slurm job step.
cat >"$work/in_job.sh" <<'WRAP'
#!/bin/sh
# The launcher's last word: notes the Slurm job each compile ran in, then runs nvcc.
echo "${SLURM_JOB_ID:-none} ${SLURM_STEP_ID:-none}" >>"$(dirname "$0")/compiles_in_jobs.txt"
exec "$@"
WRAP
chmod +x "$work/in_job.sh"
cp -r "$root/tests/cmake/slurm" "$work/src"
build=$work/build
cmake -S "$work/src" -B "$build" -G Ninja -Dktune_DIR="$root/cmake" -DKTUNE_HOST_TOOL="$tool" -DKTUNE_TUNER_LIBS="$libs" \
  -DKTUNE_TUNE=OFF -DKTUNE_CUDA_ARCH=90 -DKTUNE_EAGER_LIMIT=512 -DKTUNE_COMPILE_JOBS=2 \
  "-DCMAKE_CUDA_COMPILER_LAUNCHER=srun;--quiet;-N1;-n1;$work/in_job.sh" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail configure; }
cmake --build "$build" --target ktune_spread_cubins ktune_spread_tuner >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail build; }
kdir=$build/_ktune/spread
[[ $(grep -l '"status": "ok"' "$kdir"/records/*.json | wc -l) == 12 ]] || fail "expected 12 ok compile records"
[[ $(wc -l <"$work/compiles_in_jobs.txt") == 12 ]] || fail "expected 12 compiles in Slurm jobs: $(cat "$work/compiles_in_jobs.txt")"
if grep -q '^none' "$work/compiles_in_jobs.txt"; then fail "a compile ran outside a Slurm job"; fi
echo "ok: 12 cubins compiled as Slurm job steps ($(cut -d' ' -f1 "$work/compiles_in_jobs.txt" | sort -u | wc -l) jobs)"

# --- The tuning: one machine, then job arrays.
tuner=$build/ktune_spread_tuner
"$tuner" --manifest "$kdir/manifest.json" --db-dir "$work/single" --worker-program "$fake" --strategy exhaustive \
  >"$work/single.log" 2>&1 || { cat "$work/single.log"; fail "the single-machine run"; }
same() {  # the measurements of two DB directories: equal but for when they were made
  python3 - "$1" "$2" <<'PY'
import json, sys, pathlib
def load(d):
    out = {}
    for f in sorted(pathlib.Path(d).glob("*.json")):
        for digest, fp in json.load(open(f))["fingerprints"].items():
            for key, entries in fp["keys"].items():
                for cid, e in entries.items():
                    m = e["measurement"]
                    out[(f.name, digest, key, cid)] = (m["status"], m["median_ms"], m["samples_ms"], e["values"])
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a and a == b, (len(a), len(b), sorted(set(a) ^ set(b))[:5])
print(f"{len(a)} measurements")
PY
}
array() {  # array <name> <ktune slurm options...>: writes, submits and waits for it
  local name=$1
  shift
  "$tool" slurm --tuner "$tuner" --manifest "$kdir/manifest.json" --out-dir "$work/$name" --gpus-per-task 0 "$@" \
    -- --worker-program "$fake" >"$work/$name.txt" || fail "ktune slurm $*"
  read -r jid mid < <(bash "$work/$name/submit.sh") || fail "$name: submit.sh"
  for _ in $(seq 240); do
    [[ -z $(squeue -h -j "$jid,$mid" 2>/dev/null) ]] && break
    sleep 0.5
  done
  [[ -z $(squeue -h -j "$jid,$mid" 2>/dev/null) ]] && [[ -d $work/$name/merged ]] ||
    { cat "$work/$name"/logs/*.log; fail "$name: the array and its merge did not finish"; }
  echo "ok: $name: $(same "$work/single" "$work/$name/merged"), the same as the single-machine run's"
}
array by_config --tasks 3 --split config
[[ $(ls -d "$work/by_config"/task_* | wc -l) == 3 ]] || fail "by_config: expected 3 tasks' DB directories"
array by_key --tasks 2 --split key
grep -q -- '--key' "$work/by_key/tune.sbatch" || fail "by_key: the script passes no --key"
# Split by key, each task tuned only its keys: task 0 N=1000 and N=3000, task 1 N=2000.
python3 - "$work/by_key" <<'PY' || fail "by_key: the tasks' keys"
import json, pathlib, sys
keys = lambda t: sorted({k for f in pathlib.Path(sys.argv[1], t).glob("*.json")
                         for fp in json.load(open(f))["fingerprints"].values() for k in fp["keys"]})
assert keys("task_0") == ["N=1000", "N=3000"] and keys("task_1") == ["N=2000"], (keys("task_0"), keys("task_1"))
PY
if "$tool" slurm --tuner "$tuner" --manifest "$kdir/manifest.json" --out-dir "$work/bad" --tasks 4 --split key \
     >"$work/bad.txt" 2>&1; then fail "4 tasks for 3 keys split by key were accepted"; fi
grep -q "has 3 key(s)" "$work/bad.txt" || { cat "$work/bad.txt"; fail "the refusal of 4 tasks"; }
echo PASS
