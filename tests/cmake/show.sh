#!/usr/bin/env bash
# `ktune show` on the DBs shipped in generated/: its JSON agrees with the files read
# independently here (per GPU and key: configs measured, statuses, the fastest ok one), the
# text names each GPU and key, and bad input is a clear error with exit code 1 (a bad
# command-line value: 2).
# usage: show.sh <ktune source> <ktune tool> <work dir>
set -euo pipefail
root=$1 tool=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$tool" show --top 3 --json "$root"/generated/*/ >"$work/show.json" || fail "show --json"
python3 - "$work/show.json" "$root"/generated/*/*.json <<'PY'
import json, sys
shown = {f["path"].split("generated/")[-1].replace("//", "/"): f for f in json.load(open(sys.argv[1]))["files"]}
assert len(shown) == len(sys.argv) - 2, (len(shown), len(sys.argv) - 2)
for path in sys.argv[2:]:
    db, f = json.load(open(path)), shown[path.split("generated/")[-1]]
    assert f["kernel"] == db["kernel"], (path, f["kernel"])
    assert len(f["fingerprints"]) == len(db["fingerprints"])
    for fp in f["fingerprints"]:
        keys = db["fingerprints"][fp["digest"]]["keys"]
        assert fp["gpu"]["name"] == db["fingerprints"][fp["digest"]]["fingerprint"]["gpu"]["name"]
        assert sorted(k["key"] for k in fp["keys"]) == sorted(keys), path
        for k in fp["keys"]:
            entries = keys[k["key"]]
            assert k["measured"] == len(entries)
            counts = {}
            for e in entries.values(): counts[e["measurement"]["status"]] = counts.get(e["measurement"]["status"], 0) + 1
            assert k["counts"] == counts, (path, k["key"], k["counts"], counts)
            ok = sorted((e["measurement"]["median_ms"], i) for i, e in entries.items()
                        if e["measurement"]["status"] == "ok" and not e["measurement"].get("abandoned"))
            assert [b["id"] for b in k["best"]] == [i for _, i in ok[:3]], (path, k["key"])
            assert k["best"][0]["values"] == entries[ok[0][1]]["values"]
print(f"ok: show --json agrees with {len(shown)} DB files read here")
PY
"$tool" show "$root/generated/sgemm/NVIDIA_H200.json" --key "M=1024 N=1024 K=1024" | tee "$work/show.txt"
grep -q "NVIDIA H200 (sm_90, 132 SMs" "$work/show.txt" || fail "text: no GPU line"
grep -q "K=1024,M=1024,N=1024 .* measured (ok " "$work/show.txt" || fail "text: no key line"
[[ $(grep -c " measured (" "$work/show.txt") == 1 ]] || fail "--key did not keep one key"
expect_error() {  # <exit code> <what the message must say> <ktune show arguments...>
  local code=$1 want=$2; shift 2
  local rc=0
  "$tool" show "$@" >"$work/out.txt" 2>&1 || rc=$?
  [[ $rc == "$code" ]] || { cat "$work/out.txt"; fail "show $*: exit code $rc, not $code"; }
  grep -q -- "$want" "$work/out.txt" || { cat "$work/out.txt"; fail "show $*: no '$want'"; }
}
expect_error 1 "no such file or directory" "$work/nope.json"
# Bad values are a bad command line (exit 2), found when it is parsed.
expect_error 2 "is not NAME=VALUE" --key "M4096" "$root/generated/sgemm"
expect_error 2 "not in range 1 to" --top 0 "$root/generated/sgemm"
printf '{"schema": "ktune.db", "schema_version": 99}' >"$work/future.json"
expect_error 1 "future.json" "$work/future.json"
echo PASS
