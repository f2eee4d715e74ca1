#!/usr/bin/env bash
# Time to a good answer on a real Kernel Tuner kernel: the exhaustive run of its whole space
# (its optimum), then the default strategy at budgets of 1, 2 and 5 % over seeds 1..5, each
# run's wall time and its best's distance from the optimum. Prints the exhaustive run against
# its compile work (Σ nvcc CPU from the compile records over the jobs) and the table.
# usage: time_to_quality.sh <ktune tool> <T1 spec> <out dir> <jobs> exhaustive|sampled|table
#   exhaustive: runs (or resumes, when an earlier call was cut: its wall is added) the
#     exhaustive search in <out>/exhaustive; LIMIT_S cuts a call after that many seconds,
#     to be resumed by the next. Done when <out>/exhaustive.json holds the result.
#   sampled: the budgeted runs, each in a fresh directory (<out>/sampled.txt: their rows, with
#     each run's Σ nvcc CPU; a cut call is resumed by the next, the rows done kept).
#   table: both against each other, once both are done.
#   BUDGETS="5%" (default "1% 2% 5%") limits the sampled runs to those budgets.
#   RECORDING=<KT cache> EXHAUSTIVE_WALLS="<s> ...": table against an exhaustive run kept in
#     benchmarks/recordings (same card) when <out>/exhaustive.json is not there.
set -uo pipefail
tool=$1 spec=$2 out=$3 jobs=$4 what=$5
mkdir -p "$out"
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }

if [[ $what == exhaustive ]]; then
  start=$(now)
  # shellcheck disable=SC2086
  timeout --signal=TERM "${LIMIT_S:-100000}" "$tool" tune --t1 "$spec" --out "$out/exhaustive" --jobs "$jobs" \
    --strategy exhaustive --json >"$out/exhaustive.part.json" 2>>"$out/exhaustive.log"
  code=$?
  echo "$(since "$start")" >>"$out/exhaustive.walls"
  if [[ $code == 0 ]]; then
    mv "$out/exhaustive.part.json" "$out/exhaustive.json"
  else
    echo "exhaustive: cut or failed (exit $code) after $(tail -1 "$out/exhaustive.walls") s; run again to resume"
    tail -3 "$out/exhaustive.log"
    exit 0
  fi
fi

python3 - "$out" "$jobs" "$what" "$tool" "$spec" "${BUDGETS:-1% 2% 5%}" <<'PY'
import json, os, statistics, subprocess, sys, time
out, jobs, what, tool, spec, budgets = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]

def best_of(doc):
    keys = doc.get("summary", {}).get("keys", [])
    return min((k["best_ms"] for k in keys if k["best_ms"] > 0), default=None), \
           sum(sum(k["counts"].values()) for k in keys)

def compile_cpu(d):
    """Σ nvcc CPU seconds and the count of a run's compile records."""
    cpu, compiled = 0.0, 0
    records = os.path.join(d, "kernel", "records")
    for f in os.listdir(records) if os.path.isdir(records) else []:
        if f.endswith(".json"):
            cpu += json.load(open(os.path.join(records, f)))["cpu_s"]
            compiled += 1
    return cpu, compiled

if what == "sampled":
    # Resumable: the rows already in sampled.txt are kept and their runs not repeated.
    path = os.path.join(out, "sampled.txt")
    done = {tuple(l.split()[:2]) for l in open(path)} if os.path.exists(path) else set()
    with open(path, "a") as rows:
        for pct in budgets.split():
            for seed in range(1, 6):
                if (pct, str(seed)) in done:
                    continue
                d = os.path.join(out, f"default_{pct[:-1]}pct_seed{seed}")
                subprocess.run(["rm", "-rf", d])
                t = time.time()
                with open(d + ".json", "w") as f, open(d + ".log", "w") as log:
                    code = subprocess.call([tool, "tune", "--t1", spec, "--out", d, "--jobs", str(jobs),
                                            "--budget", pct, "--seed", str(seed), "--json"], stdout=f, stderr=log)
                w = time.time() - t
                best = best_of(json.load(open(d + ".json")))[0] if code == 0 else None
                cpu, compiled = compile_cpu(d)
                line = f"{pct} {seed} {w:.1f} {best if best else -1} {cpu:.1f} {compiled}"
                print(line, flush=True)
                rows.write(line + "\n")
                rows.flush()
    sys.exit(0)

recording = os.environ.get("RECORDING")
if recording and not os.path.exists(os.path.join(out, "exhaustive.json")):
    # The exhaustive run of an earlier call on the same card, as kept in benchmarks/recordings:
    # its optimum from the recorded times, its walls as that run measured them (EXHAUSTIVE_WALLS).
    import gzip
    cache = json.load(gzip.open(recording) if recording.endswith(".gz") else open(recording))["cache"]
    times = [c["time"] for c in cache.values() if isinstance(c["time"], (int, float))]
    opt, walls = min(times), [float(w) for w in os.environ["EXHAUSTIVE_WALLS"].split()]
    wall = sum(walls)
    print(f"exhaustive (recorded, {recording}): {len(times)} of {len(cache)} configs timed, wall {wall:.1f} s over "
          f"{len(walls)} call(s) ({' + '.join(f'{w:.1f}' for w in walls)}); optimum {opt:.4f} ms")
else:
    ex = json.load(open(os.path.join(out, "exhaustive.json")))
    opt, measured = best_of(ex)
    walls = [float(w) for w in open(os.path.join(out, "exhaustive.walls")).read().split()]
    wall = sum(walls)
    cpu, compiled = compile_cpu(os.path.join(out, "exhaustive"))
    # The compile records stay with the run's directory; a table made on another machine from
    # exhaustive.json and exhaustive.walls alone has no Σ nvcc CPU to show.
    work = (f"{compiled} compiled, Σ nvcc CPU {cpu:.1f} s, /{jobs} jobs = {cpu / jobs:.1f} s, ratio {wall / (cpu / jobs):.3f}"
            if compiled else "its compile records not here")
    print(f"exhaustive: {measured} configs measured, wall {wall:.1f} s over {len(walls)} call(s) "
          f"({' + '.join(f'{w:.1f}' for w in walls)}), {work}; optimum {opt:.4f} ms")
if what != "table":
    sys.exit(0)
rows = {}
print(f"\n{'budget':>7} {'seed':>4} {'compiled':>8} {'wall s':>7} {'cpu/jobs':>8} {'ratio':>6} {'best ms':>9} {'from opt':>9}")
for line in open(os.path.join(out, "sampled.txt")):
    pct, seed, w, best, cpu, compiled = line.split()
    w, best, bound = float(w), float(best), float(cpu) / jobs
    gap = best / opt - 1 if best > 0 else float("inf")
    rows.setdefault(pct, []).append((w, gap))
    print(f"{pct:>7} {seed:>4} {compiled:>8} {w:7.1f} {bound:8.1f} {w / bound if bound else 0:6.2f} {best:9.4f} "
          f"{100 * gap:8.2f}%")
print(f"\n{'budget':>7} {'mean wall s':>11} {'of exhaustive':>13} {'mean from opt':>13} {'worst':>7} {'within 3%':>9}")
for pct, r in rows.items():
    mw = statistics.mean(w for w, _ in r)
    gaps = [g for _, g in r]
    print(f"{pct:>7} {mw:11.1f} {mw / wall:12.3f}x {100 * statistics.mean(gaps):12.2f}% {100 * max(gaps):6.2f}% "
          f"{sum(g <= 0.03 for g in gaps):>5}/{len(gaps)}")
PY
