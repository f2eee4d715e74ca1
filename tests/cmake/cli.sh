#!/usr/bin/env bash
# The `ktune` tool's contract (docs/cli.md): exit code 0 for success and --help, 1 for bad
# input or failed work with one message naming the file, 2 for a bad command line; with
# --json, stdout is one JSON document, and without it human text. Every subcommand that
# prints a summary is run with --json on small inputs: a planned manifest and the sgemm
# DB shipped in generated/ (exported as T4, imported, merged, replayed, reported), and a
# bake of that manifest with its DEFAULT compiled (nvcc and Ninja).
# usage: cli.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

# expect_exit CODE ARGS...: runs the tool, output in $work/out.txt and $work/err.txt.
expect_exit() {
  local want=$1 got=0
  shift
  "$tool" "$@" >"$work/out.txt" 2>"$work/err.txt" || got=$?
  [[ $got == "$want" ]] || { cat "$work/out.txt" "$work/err.txt"; fail "ktune $*: exit $got, expected $want"; }
}
expect_exit 0 --help
for sub in $("$tool" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}'); do
  expect_exit 0 "$sub" --help
  grep -q "^Usage: .*ktune $sub" "$work/out.txt" || fail "ktune $sub --help: no usage line"
done
expect_exit 0 --version
version=$(sed -n 's/^set(KTUNE_VERSION \([0-9.]*\))$/\1/p' "$root/cmake/ktuneVersion.cmake")
[[ -n $version && $(cat "$work/out.txt") == "ktune $version" ]] || fail "ktune --version: '$(cat "$work/out.txt")', expected 'ktune $version'"
echo "ok: ktune --version prints ktune $version"
expect_exit 2
expect_exit 2 no-such-subcommand
expect_exit 2 space
expect_exit 2 space --no-such-option "$root/README.md"
expect_exit 2 space "$work/missing.json"
expect_exit 1 space "$root/README.md"
grep -q "README.md" "$work/err.txt" || fail "the error does not name the file"
[[ $(wc -l <"$work/err.txt") == 1 ]] || { cat "$work/err.txt"; fail "more than one line for one bad file"; }
echo "ok: exit codes 0 (help), 1 (bad input, one line naming the file), 2 (bad command line)"

# json NAME ARGS...: runs the tool with --json; stdout must be one JSON document, kept in $work/NAME.json.
json() {
  local name=$1
  shift
  "$tool" "$@" --json >"$work/$name.json" 2>"$work/$name.err" || { cat "$work/$name.err"; fail "ktune $* --json failed"; }
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/$name.json" ||
    { head -c 600 "$work/$name.json"; fail "ktune $* --json: stdout is not one JSON document"; }
}
field() {  # field NAME EXPR: a Python expression over the parsed document `d`
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(($2))" "$work/$1.json"
}
not_json() {  # the same command without --json prints text
  "$tool" "$@" >"$work/text.txt" 2>/dev/null || fail "ktune $*"
  ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/text.txt" 2>/dev/null ||
    fail "ktune $* without --json printed JSON"
}

# A manifest of a small space, as ktune_add_kernel() would plan it (nothing compiled).
echo 'extern "C" __global__ void k() {}' >"$work/k.cu"
"$tool" plan --kernel k --source "$work/k.cu" --out-dir "$work/k" --param "A=1,2,4" --param "B=1..3" \
  --where "A * B <= 6" --nvcc=nvcc --arch=90 >/dev/null || fail "ktune plan"
json space space "$work/k/manifest.json"
[[ $(field space 'd["product"], d["valid"], d["kind"]') == "(9, 7, 'manifest')" ]] || fail "space --json: $(field space d)"
not_json space "$work/k/manifest.json"
# 3 + 9 visits: --max-points 11 gives up, naming the constraint, --max-points 12 does not.
expect_exit 1 space "$work/k/manifest.json" --max-points 11
grep -qF 'constraint 1 "A * B <= 6" is checked only once A, B are all bound' "$work/err.txt" || { cat "$work/err.txt"; fail "space --max-points"; }
expect_exit 0 space "$work/k/manifest.json" --max-points 12
expect_exit 2 space "$work/k/manifest.json" --max-points 0
json cubins cubins "$work/k/manifest.json"
[[ $(field cubins 'd["configs"], d["not_built"], d["compiled"]') == "(7, 7, 0)" ]] || fail "cubins --json: $(field cubins d)"
not_json cubins "$work/k/manifest.json"
json gpu gpu
[[ $(field gpu '"gpu" in d and (d["gpu"] is None) == ("why" in d)') == True ]] || fail "gpu --json: $(field gpu d)"
not_json gpu
echo "ok: space, cubins and gpu print JSON with --json and text without"

# bake: the same space compiled on demand; `ktune compile` (the build's edge, as
# configs.cmake writes it) compiles its DEFAULT (the one cubin a bake needs), and the bake,
# with no DB, bakes the DEFAULT alone.
"$tool" plan --kernel k --source "$work/k.cu" --out-dir "$work/kd" --param "A=1,2,4" --param "B=1..3" \
  --where "A * B <= 6" --nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" --arch=90 --eager-limit 1 >/dev/null || fail "ktune plan (on demand)"
default_record=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sys.argv[2] + "/records/" + d["default_id"] + ".json")' \
  "$work/kd/manifest.json" "$work/kd")
python3 - "$work/kd/configs.cmake" >"$work/kd.compile.sh" <<'PY'
import re, shlex, sys
text = open(sys.argv[1]).read()
(args,) = re.findall(r'_ktune_cubin\(\w+ "A=\d+ B=\d+" "(.*)"\)', text)  # the DEFAULT's edge: values, a CMake list
print(" ".join(shlex.quote(a.replace('\\"', '"').replace("\\$", "$").replace("\\\\", "\\")) for a in args.split(";")))
PY
bash "$work/kd.compile.sh" >"$work/kd.compile.log" 2>&1 || { cat "$work/kd.compile.log"; fail "compiling the DEFAULT"; }
[[ -s $default_record ]] || fail "compiling the DEFAULT wrote no record"
json bake bake --manifest "$work/kd/manifest.json" --out-dir "$work/baked"
[[ $(field bake 'd["kernel"], d["tables"], d["files"]["header"].endswith("include/ktune_k.hpp")') == "('k', [], True)" ]] ||
  fail "bake --json: $(field bake d)"
cmp <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["files"]; print(json.dumps(d, sort_keys=True))' "$work/bake.json") \
  <(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$work/baked/bake.json") ||
  fail "bake --json differs from the bake.json it wrote"
not_json bake --manifest "$work/kd/manifest.json" --out-dir "$work/baked"
expect_exit 2 bake --manifest "$work/kd/manifest.json" --out-dir "$work/baked" --json --quiet
echo "ok: bake prints bake.json's content with --json and text without; --json with --quiet is a bad command line"

db=$root/generated/sgemm/NVIDIA_H200.json
key=K=1024,M=1024,N=1024
json show show "$db" --key "$key"
json export export --db "$db" --key "$key" --format t4 --out "$work/sgemm.t4.json"
configs=$(field export 'd["configs"]')
[[ $configs -gt 0 && $(field export 'd["format"], d["kernel"], d["key"]') == "('t4', 'sgemm', '$key')" ]] ||
  fail "export --json: $(field export d)"
not_json export --db "$db" --key "$key" --format kt-cache --out "$work/sgemm.kt.json"
json import import --t4 "$work/sgemm.t4.json" --into "$work/imported" --kernel sgemm --gpu "NVIDIA H200" --key "$key"
[[ $(field import 'd["configs"]') == "$configs" ]] || fail "import --json: $(field import d)"
json merge merge --into "$work/merged" "$work/imported"
[[ $(field merge 'len(d["files"]) if "files" in d else d') == 1 ]] || fail "merge --json: $(field merge d)"
json simulate simulate --db "$work/merged/NVIDIA_H200.json" --strategy random --budget 10 --seed 1
[[ $(field simulate 'd["evaluations"], d["configs"]') == "(10, $configs)" ]] || fail "simulate --json: $(field simulate d)"
not_json simulate --db "$work/merged/NVIDIA_H200.json" --strategy random --budget 10 --seed 1
# A prior of the same measurements (as a DB, and as the Kernel Tuner cache exported above):
# its best, measured right after the DEFAULT, is the recorded optimum.
for prior in "$db" "$work/sgemm.kt.json"; do
  json prior simulate --db "$db" --key "$key" --strategy random --budget 10 --seed 1 --prior "$prior"
  [[ $(field prior 'd["ratio"], d["prior"]["configs"], d["prior"]["measured_first"]') == "(1.0, $configs, 1)" ]] ||
    fail "simulate --prior $prior: $(field prior d)"
done
# One key syntax: simulate and export take the key with spaces, in any order, as show does.
spaced=$(tr ',' ' ' <<<"$key" | awk '{for (i = NF; i > 0; --i) printf "%s ", $i}')
json spaced simulate --db "$db" --key "$spaced" --strategy random --budget 10 --seed 1
json spaced_export export --db "$db" --key "$spaced" --format t4 --out "$work/spaced.t4.json"
[[ $(field spaced_export 'd["key"]') == "$key" ]] || fail "export --key \"$spaced\": $(field spaced_export d)"
json spaced_import import --t4 "$work/spaced.t4.json" --into "$work/imported_spaced" --kernel sgemm --gpu "NVIDIA H200" \
  --key "$spaced"
[[ $(field spaced_import 'd["configs"]') == "$configs" ]] || fail "import --key \"$spaced\": $(field spaced_import d)"
python3 -c "
import json, sys
db = json.load(open(sys.argv[1]))
assert [k for f in db['fingerprints'].values() for k in f['keys']] == [sys.argv[2]], db['fingerprints']" \
  "$work/imported_spaced/NVIDIA_H200.json" "$key" || fail "import --key \"$spaced\": the DB's key is not $key"
# A prior of another kernel (the cache with TM renamed) is refused, naming the parameter.
sed 's/"TM"/"XX"/g' "$work/sgemm.kt.json" >"$work/other.kt.json"
expect_exit 1 simulate --db "$db" --key "$key" --budget 10 --seed 1 --prior "$work/other.kt.json"
grep -q "has no parameter 'TM'" "$work/err.txt" || fail "a prior of another kernel: $(cat "$work/err.txt")"
json report report "$work/merged" --out "$work/report" --gnuplot false
[[ $(field report 'd["drawn"] == 0 and len(d["not_drawn"]) == len(d["plots"]) > 0') == True ]] ||
  fail "report --json: $(field report d)"
[[ -s $work/report/report.md ]] || fail "report: no report.md"
echo "ok: show, export, import, merge, simulate and report print JSON with --json"

# The report of the shipped sgemm DB: every measurement in the CSV (abandoned ones too),
# the per-parameter plots' count said, and one HTML file with its tables.
json report_db report "$db" --out "$work/report_db" --gnuplot false
[[ $(field report_db 'd["csv"].endswith("measurements.csv") and d["html"].endswith("report.html")') == True ]] ||
  fail "report --json names no CSV or HTML: $(field report_db d)"
python3 - "$db" "$work/report_db" <<'PY' || fail "report: the CSV or the HTML does not hold every measurement"
import csv, json, sys
db = json.load(open(sys.argv[1]))
entries = [(k, i, e["measurement"]) for fp in db["fingerprints"].values() for k, c in fp["keys"].items() for i, e in c.items()]
rows = list(csv.DictReader(open(sys.argv[2] + "/measurements.csv", newline="")))
assert len(rows) == len(entries), (len(rows), len(entries))
assert {(r["key"], r["id"]) for r in rows} == {(k, i) for k, i, _ in entries}
assert all(r["TM"].isdigit() for r in rows)
abandoned = sum(1 for _, _, m in entries if m["status"] == "ok" and m.get("abandoned"))
assert sum(r["abandoned"] == "true" for r in rows) == abandoned > 0
ok = sum(1 for _, _, m in entries if m["status"] == "ok")
md = open(sys.argv[2] + "/report.md").read()
assert f"show all {ok} ok measurements: {ok - abandoned} measured fully" in md, md
html = open(sys.argv[2] + "/report.html").read()
series = sum(len(fp["keys"]) for fp in db["fingerprints"].values())
# Two tables, each with its heading row: the winners (one row a series), every measurement.
assert html.startswith("<!DOCTYPE html>") and html.count("<tr>") == (1 + series) + (1 + len(entries)), html.count("<tr>")
PY
echo "ok: report writes measurements.csv with every measurement, report.html, and says how many ok ones its plots show"
echo PASS
