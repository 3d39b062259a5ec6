#!/usr/bin/env bash
# Figures for app.workload (a benchmark, not a test: it asserts nothing, it prints).
#   1. The instrumentation's cost, in one run per op: measure=both times
#      even iterations with the per-thread measurement (scheduler statistics
#      read around each operation, the lock timed: app.exec) and odd ones
#      with two clock reads only (app.exec.bare), so that the machine's
#      drift, which moves separate runs by 20 % on a shared VM, falls on both
#      alike; the ratio of their medians and of their means.
#   2. The study's table on this machine: N = 2 … 32 threads, quick and
#      matrix_mul, all on one CPU under SCHED_RR: execution, waiting and
#      response time, mean and p99, and the mean's ratio to N = 2.
# Usage: evaluation/app.sh [ITERATIONS]   (default 200, of each op in part 1; run as root for SCHED_RR)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
iterations=${1:-200}
make -s -C "$repo/probe"
probe=$repo/probe/build/rtscope-probe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # OUT PARAM…: app.workload on the last CPU under SCHED_RR
    local out=$1; shift
    "$probe" run app.workload --policy rr --quiet --duration 600 --json "$out" $(printf -- '--param %s ' "$@")
}

echo "1. instrumentation cost (8 threads, ${iterations} iterations alternating measured and bare, one run per op)"
for case in "quick 100000" "matrix_mul 40000" "quick 10000"; do
    set -- $case
    run "$work/both.json" threads=8 iterations="$iterations" op="$1" size="$2" measure=both
    python3 - "$work/both.json" "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
m = {x["id"]: x for x in doc["metrics"]}
assert all(x["valid"] for x in m.values()), [x["invalid_reason"] for x in m.values()]
full, bare = m["app.exec"]["stats"], m["app.exec.bare"]["stats"]
print(f"  {sys.argv[2]:<10} size {sys.argv[3]:>6}: exec p50 {full['p50']/1e6:7.3f} ms measured, "
      f"{bare['p50']/1e6:7.3f} ms bare: ratio {full['p50']/bare['p50']:.4f}; means {full['mean']/bare['mean']:.4f}; "
      f"minima {full['min']/bare['min']:.4f}")
PY
done

echo "2. N = 2 … 32 threads on one CPU, SCHED_RR (20 iterations; quick on 100000 integers, matrix_mul 100 x 100)"
echo "   exec/N=2: the mean's ratio to N = 2; wait/exec: the means' ratio"
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
