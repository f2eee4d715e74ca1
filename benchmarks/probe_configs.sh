#!/usr/bin/env bash
# Measures a chosen part of a kernel's space at one key, every config of it: the kernel's
# manifest narrowed by one more WHERE constraint, tuned exhaustively into a DB of its own.
# For comparing a technique against the same configs without it (an A/B of a kernel
# change), where a budgeted search would measure either side only by chance. Compiles what
# the build has not (the narrowed manifest sits beside the kernel's, so the cubins are
# shared) and prints every config measured, fastest first.
# usage: probe_configs.sh <build dir> <kernel> <key> <where> [jobs]
#   e.g. probe_configs.sh build/default hgemm_tma_f16 "M=4096 N=4096 K=4096" \
#          "BM == 128 and BN == 256 and CONSUMERS == 2 and GROUP_M == 8 and OCC == 1"
set -euo pipefail
(($# >= 4)) || { echo "usage: probe_configs.sh <build dir> <kernel> <key> <where> [jobs]" >&2; exit 2; }
build=$(cd "$1" && pwd) kernel=$2 key=$3 where=$4 jobs=${5:-16}
dir=$build/_ktune/$kernel
[[ -f $dir/manifest.json ]] || { echo "probe_configs: no $dir/manifest.json (configure the build first)" >&2; exit 1; }
tuner=$build/bin/ktune_${kernel}_tuner
[[ -x $tuner ]] || { echo "probe_configs: no $tuner (build it first)" >&2; exit 1; }
probe=$dir/probe_manifest.json db=$build/ktune-probe/$kernel
python3 - "$dir/manifest.json" "$probe" "$where" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["constraints"].append(sys.argv[3])
json.dump(m, open(sys.argv[2], "w"), indent=1)
EOF
# The count the narrowed space enumerates to, which the manifest must state.
valid=$("$build/bin/ktune" space "$probe" 2>&1 | sed -n 's/.*enumerates to \([0-9]*\) configs.*/\1/p' || true)
[[ -n $valid ]] || { "$build/bin/ktune" space "$probe"; exit 1; }
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); m['valid']=int(sys.argv[2]); json.dump(m,open(sys.argv[1],'w'),indent=1)" \
  "$probe" "$valid"
echo "probe: $valid configs of $kernel at $key where $where"
rm -rf "$db"
(cd "$build/kernels" && "$tuner" --manifest "$probe" --db-dir "$db" --key "$key" --strategy exhaustive \
  --compile-jobs "$jobs" --worker-log "$dir/probe_worker.log")
# Without a GPU the tuner says so and measures nothing.
compgen -G "$db/*.json" >/dev/null || { echo "probe_configs: nothing was measured (no GPU?)" >&2; exit 1; }
"$build/bin/ktune" show "$db" --top "$valid"
