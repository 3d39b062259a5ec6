#!/usr/bin/env bash
# Figures for app.workload (a benchmark, not a test: it asserts nothing, it prints).
#   1. The instrumentation's cost: the mean execution time with the per-thread
#      measurement (measure=full: scheduler statistics read around each
#      operation, the lock timed) over the mean without it (measure=exec: two
#      clock reads), each op at one size, runs alternated so that drift
#      cancels; the ratio of the medians over the repetitions.
#   2. The study's table on this machine: N = 2 … 32 threads, quick and
#      matrix_mul, all on one CPU under SCHED_RR: execution, waiting and
#      response time, mean and p99, and the mean's ratio to N = 2.
# Usage: bench/app.sh [REPETITIONS]   (default 5; run as root for SCHED_RR)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
repetitions=${1:-5}
make -s -C "$repo/probe"
probe=$repo/probe/build/rtscope-probe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # OUT PARAM…: app.workload on the last CPU under SCHED_RR
    local out=$1; shift
    "$probe" run app.workload --policy rr --quiet --duration 600 --json "$out" $(printf -- '--param %s ' "$@")
}

echo "1. instrumentation cost (8 threads, 50 iterations, $repetitions runs of each, alternated)"
for case in "quick 100000" "matrix_mul 40000" "quick 10000"; do
    set -- $case
    for r in $(seq "$repetitions"); do
        for measure in full exec; do
            run "$work/$measure-$r.json" threads=8 iterations=50 op="$1" size="$2" measure="$measure"
        done
    done
    python3 - "$work" "$repetitions" "$1" "$2" <<'PY'
import json, statistics, sys
work, reps, op, size = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def exec_mean(measure, r):
    doc = json.load(open(f"{work}/{measure}-{r}.json"))
    m = next(m for m in doc["metrics"] if m["id"] == "app.exec")
    assert m["valid"], m["invalid_reason"]
    return m["stats"]["mean"]
full = [exec_mean("full", r) for r in range(1, reps + 1)]
bare = [exec_mean("exec", r) for r in range(1, reps + 1)]
ratio = statistics.median(full) / statistics.median(bare)
spread = (max(bare) - min(bare)) / statistics.median(bare)
print(f"  {op:<10} size {size:>6}: exec mean {statistics.median(full)/1e6:8.3f} ms measured, "
      f"{statistics.median(bare)/1e6:8.3f} ms bare: ratio {ratio:.4f} ({100*(ratio-1):+.2f} %; "
      f"bare runs spread {100*spread:.1f} %)")
PY
done

echo "2. N = 2 … 32 threads on one CPU, SCHED_RR (20 iterations; quick on 100000 integers, matrix_mul 100 x 100)"
for op_size in "quick 100000" "matrix_mul 10000"; do
    set -- $op_size
    for n in 2 4 8 16 32; do
        run "$work/sweep-$1-$n.json" threads="$n" iterations=20 op="$1" size="$2"
    done
done
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
print(f"  {'op':<10} {'N':>3}  {'exec mean':>10} {'p99':>9}  {'wait mean':>10} {'p99':>9}  "
      f"{'resp mean':>10} {'p99':>9}  {'exec/N=2':>8}  {'wait/exec':>9}  valid")
for op in ("quick", "matrix_mul"):
    base = None
    for n in (2, 4, 8, 16, 32):
        doc = json.load(open(f"{work}/sweep-{op}-{n}.json"))
        m = {x["id"]: x for x in doc["metrics"]}
        e, w, r = (m[k]["stats"] for k in ("app.exec", "app.wait", "app.response"))
        base = base or e["mean"]
        ms = lambda v: f"{v/1e6:8.3f}ms"
        print(f"  {op:<10} {n:>3}  {ms(e['mean']):>10} {ms(e['p99']):>9}  {ms(w['mean']):>10} {ms(w['p99']):>9}  "
              f"{ms(r['mean']):>10} {ms(r['p99']):>9}  {e['mean']/base:8.2f}  {w['mean']/e['mean']:9.2f}  "
              f"{all(x['valid'] for x in m.values())}")
PY
