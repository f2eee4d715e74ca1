#!/usr/bin/env bash
# `ktune tune --t1` without a GPU (CUDA_VISIBLE_DEVICES= hides any there is): the spec is
# checked, the reference config (the Default) compiled with Kernel Tuner's macros, then "no
# GPU visible" and exit code 1; --compile-only compiles every config (12 tiny configs of
# tests/gpu/t1_tune/scaled_sum.T1.json) in parallel, exits 0, and compiles nothing again;
# --json prints one JSON object on stdout; bad input is exit 1 naming the file, the field
# and the fix; a Default that does not compile hands the reference to the first valid
# config, saying so; a bad command line is exit 2.
# usage: t1_tune.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
export CUDA_VISIBLE_DEVICES=""
spec=$root/tests/gpu/t1_tune/scaled_sum.T1.json
out=$work/out

# expect <exit code> <log file> <ktune arguments...>
expect() {
  local want=$1 log=$2 code=0
  shift 2
  "$tool" "$@" >"$log" 2>&1 || code=$?
  [[ $code == "$want" ]] || { cat "$log"; fail "ktune $*: exit code $code, not $want"; }
}
# says <log file> <text the log must hold>
says() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 does not say: $2"; }; }

# 1. The reference compiled, then no GPU: exit 1.
expect 1 "$work/run1.txt" tune --t1 "$spec" --out "$out" --arch 90 --jobs 2
cat "$work/run1.txt"
says "$work/run1.txt" "ktune: scaled_sum from $spec: 12 configs of 12 points; Default block_size_x=128 tile_size_x=1 bug=0; 1 problem size; cubins for sm_90 (--arch), 2 parallel nvcc jobs"
says "$work/run1.txt" "ktune: scaled_sum: compiled 2 configs in "
says "$work/run1.txt" "s: 2 ok, 0 failed to compile"
says "$work/run1.txt" "ktune: scaled_sum: reference outputs: the Default's values, block_size_x=128 tile_size_x=1 bug=0"
says "$work/run1.txt" "ktune: error: scaled_sum: no GPU visible ("
says "$work/run1.txt" "): the cubins are compiled in $out/kernel, nothing was measured and no DB or T4 file written"
[[ ! -e $out/db ]] || fail "a DB directory without a GPU"
python3 - "$out/kernel" <<'PY'
import json, os, sys
kdir = sys.argv[1]
m = json.load(open(os.path.join(kdir, "manifest.json")))
assert m["kernel"] == "scaled_sum" and m["entry"] == "scaled_sum" and m["build"] == "on-demand", m
assert m["valid"] == 12 and "configs" not in m, m
# Kernel Tuner's macros besides the parameters: block_size_y/z (no parameter: 1) and kernel_tuner.
assert m["defines"] == {"block_size_y": 1, "block_size_z": 1, "kernel_tuner": 1}, m["defines"]
# The reference (the Default) and the first valid config, its stand-in should it not run.
records = sorted(os.listdir(os.path.join(kdir, "records")))
assert len(records) == 2 and m["default_id"] + ".json" in records, records
for record in records:
    assert json.load(open(os.path.join(kdir, "records", record)))["status"] == "ok"
assert os.path.getsize(os.path.join(kdir, "cubins", m["default_id"] + ".cubin")) > 0
wrapper = open(os.path.join(kdir, "scaled_sum.t1.cu")).read()
assert 'extern "C" {\n#include "scaled_sum.cu"\n}' in wrapper, wrapper
print("ok: the reference's cubin and its stand-in's compiled, inside extern \"C\"; the manifest holds Kernel Tuner's macros")
PY

# 2. --compile-only --json: every config compiled, exit 0, one JSON object on stdout; run
# again, nothing is compiled again.
expect 0 "$work/run2a.txt" tune --t1 "$spec" --out "$out" --arch 90 --jobs 2 --compile-only
says "$work/run2a.txt" "ktune: scaled_sum: compiled 12 configs in "
says "$work/run2a.txt" "s: 12 ok, 0 failed to compile"
[[ $(ls "$out/kernel/cubins" | wc -l) == 12 ]] || fail "--compile-only did not compile the 12 configs"
before=$(stat -c %Y "$out"/kernel/cubins/*.cubin | sort | md5sum)
code=0
"$tool" tune --t1 "$spec" --out "$out" --arch 90 --jobs 2 --compile-only --json >"$work/run2.json" 2>"$work/run2.err" || code=$?
[[ $code == 0 ]] || { cat "$work/run2.err"; fail "--compile-only exited with $code"; }
[[ $(stat -c %Y "$out"/kernel/cubins/*.cubin | sort | md5sum) == "$before" ]] || fail "a second run compiled again"
python3 - "$work/run2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["kernel"] == "scaled_sum" and r["configs"] == 12 and r["tuned"] is False, r
assert r["compile"]["asked"] == 12 and r["compile"]["ok"] == 12 and r["compile"]["failed"] == 0, r
assert r["keys"] == ["X=100003"] and r["strategy"] == "exhaustive" and r["arch"] == "90", r
print("ok: --compile-only --json")
PY

# 3. --json without a GPU: the JSON still comes (tuned false, why), then exit 1.
code=0
"$tool" tune --t1 "$spec" --out "$out" --arch 90 --jobs 2 --json >"$work/run3.json" 2>"$work/run3.err" || code=$?
[[ $code == 1 ]] || fail "--json without a GPU exited with $code"
says "$work/run3.err" "no GPU visible"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["tuned"] is False and r["why"], r' "$work/run3.json"

# 4. A budget compiles only the reference and its stand-in first (the tuner compiles what
# its strategy proposes).
expect 1 "$work/run4.txt" tune --t1 "$spec" --out "$work/budget" --arch 90 --strategy random --budget 4
says "$work/run4.txt" "compiled 2 configs in "
says "$work/run4.txt" "the tuner compiles the configs its strategy proposes"
[[ $(ls "$work/budget/kernel/records" | wc -l) == 2 ]] || fail "a budget compiled more than the reference and its stand-in"

# 5. Bad input: exit 1, naming the file, the field and the fix.
python3 - "$spec" "$work" <<'PY'
import json, shutil, sys, os
spec, work = sys.argv[1], sys.argv[2]
doc = json.load(open(spec))
kernel = os.path.join(os.path.dirname(spec), doc["KernelSpecification"]["KernelFile"])
def write(name, change, kernel_text=None):
    d = json.loads(json.dumps(doc))
    change(d)
    os.makedirs(os.path.join(work, name), exist_ok=True)
    if kernel_text is None:
        shutil.copy(kernel, os.path.join(work, name, "scaled_sum.cu"))
    else:
        open(os.path.join(work, name, "scaled_sum.cu"), "w").write(kernel_text)
    json.dump(d, open(os.path.join(work, name, "spec.T1.json"), "w"), indent=1)
write("generator", lambda d: d["KernelSpecification"]["Arguments"][1].update(FillType="Generator"))
write("opencl", lambda d: d["KernelSpecification"].update(Language="OpenCL"))
write("nofile", lambda d: d["KernelSpecification"].update(KernelFile="elsewhere.cu"))
write("pso", lambda d: d.update(Search={"Name": "pso"}))
def broken_default(d):
    d["ConfigurationSpace"]["TuningParameters"][2]["Default"] = 1
write("broken", broken_default, open(kernel).read().replace("#if bug", "#if bug\n#error deliberately broken\n#endif\n#if bug"))
PY
expect 1 "$work/bad1.txt" tune --t1 "$work/generator/spec.T1.json" --out "$work/bad" --arch 90
says "$work/bad1.txt" "ktune: error: $work/generator/spec.T1.json: KernelSpecification.Arguments[1] (x).FillType \"Generator\" is not supported; use \"Constant\""
expect 1 "$work/bad2.txt" tune --t1 "$work/opencl/spec.T1.json" --out "$work/bad" --arch 90
says "$work/bad2.txt" "KernelSpecification.Language \"OpenCL\" is not supported: ktune tunes CUDA kernels"
expect 1 "$work/bad3.txt" tune --t1 "$work/nofile/spec.T1.json" --out "$work/bad" --arch 90
says "$work/bad3.txt" "KernelSpecification.KernelFile \"elsewhere.cu\" not found"
says "$work/bad3.txt" "pass --source KERNEL.cu"
expect 1 "$work/bad5.txt" tune --t1 "$spec" --out "$work/bad5" --arch 90 --max-points 5
says "$work/bad5.txt" "ktune: error: $spec: ConfigurationSpace: the space has 12 points"
says "$work/bad5.txt" "more than 5 points were visited before the enumeration ended"
says "$work/bad5.txt" "raise --max-points"
[[ ! -e $work/bad5 ]] || fail "--max-points: something was written"
# A spec's Search.Name from Kernel Tuner's list that ktune has no counterpart for: refused
# before anything is compiled, naming where the name came from, ktune's strategies and the
# Kernel Tuner names that map to them.
expect 1 "$work/bad6.txt" tune --t1 "$work/pso/spec.T1.json" --out "$work/bad6" --arch 90
# The list is the strategy table's (checked against the docs by docs_cli.py), not written here.
says "$work/bad6.txt" "ktune: error: $work/pso/spec.T1.json: Search.Name 'pso' is not a search strategy; use one of exhaustive, random, "
says "$work/bad6.txt" ", default (Kernel Tuner's brute_force"
[[ ! -e $work/bad6/kernel/cubins ]] || [[ -z $(ls "$work/bad6/kernel/cubins") ]] || fail "--strategy pso: something was compiled"
# A Default that does not compile: the first valid config gives the reference, and it says so.
expect 1 "$work/bad4.txt" tune --t1 "$work/broken/spec.T1.json" --out "$work/broken/out" --arch 90 --budget 2
says "$work/bad4.txt" "ktune: warning: scaled_sum: the Default's values did not compile: "
says "$work/bad4.txt" "deliberately broken"
says "$work/bad4.txt" "log: $work/broken/out/kernel/logs/"
says "$work/bad4.txt" "reference outputs: the first valid config (the Default's values did not compile"
says "$work/bad4.txt" "block_size_x=64 tile_size_x=1 bug=0"
says "$work/bad4.txt" "no GPU visible"
# A Default outside the values (block_size_x=96): its values give the reference, and the
# first line names the baseline as what it is, not as the Default.
mkdir -p "$work/outside"
cp "$root/tests/gpu/t1_tune/scaled_sum.cu" "$work/outside/"
python3 - "$spec" "$work/outside/spec.T1.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["ConfigurationSpace"]["TuningParameters"][0]["Default"] = 96
json.dump(doc, open(sys.argv[2], "w"))
PY
expect 1 "$work/outside.txt" tune --t1 "$work/outside/spec.T1.json" --out "$work/outside/out" --arch 90 --budget 2
says "$work/outside.txt" "12 configs of 12 points; baseline block_size_x=64 tile_size_x=1 bug=0 (the spec's Default is outside the space: the first valid config); "
says "$work/outside.txt" "the Default block_size_x=96 is not among the values of block_size_x"
says "$work/outside.txt" "reference outputs: the Default's values, block_size_x=96 tile_size_x=1 bug=0"
# --source replaces KernelFile.
expect 1 "$work/source.txt" tune --t1 "$work/nofile/spec.T1.json" --source "$work/nofile/scaled_sum.cu" --out "$work/source" --arch 90 --budget 1
says "$work/source.txt" "compiled 2 configs in "

# 6. A bad command line: exit 2; --help: exit 0, with the exit codes.
expect 2 "$work/cl1.txt" tune --out "$work/x"
says "$work/cl1.txt" "--t1 is required"
expect 2 "$work/cl2.txt" tune --t1 "$work/missing.json"
expect 2 "$work/cl3.txt" tune --t1 "$spec" --problem-size 4096x4096
says "$work/cl3.txt" "is not a positive integer"
expect 2 "$work/cl4.txt" tune --t1 "$spec" --strategy fastest
says "$work/cl4.txt" "--strategy: \"fastest\" is not one of exhaustive"
expect 2 "$work/cl5.txt" tune --t1 "$spec" --budget 0
expect 0 "$work/help.txt" tune --help
says "$work/help.txt" "Exit codes: 0 tuned"
echo PASS
