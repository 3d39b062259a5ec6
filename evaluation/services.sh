#!/usr/bin/env bash
# Figures for the OS-service suites, each beside a reference measured in the
# same run (a benchmark, not a test: it asserts nothing, it prints).
#   1. the micro table: mean cost per operation in cycles, fifo 80 and policy other
#   2. switches and hand-overs on one CPU beside perf bench sched pipe and
#      rt-tests' ptsematest (mutex hand-over) and pmqtest (message queue hand-over)
#   3. Thread-Metric: median count per period and the ratio to tm.basic
# Usage: evaluation/services.sh [TM_PERIOD [TM_PERIODS]]   (Thread-Metric defaults: 30 s x 3)
# Run as root for real-time priority; without it every row says what was granted.
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
tm_period=${1:-30}
tm_periods=${2:-3}
"$repo/setup.sh" >/dev/null 2>&1
make -s -C "$repo/probe"
probe=$repo/probe/build/rtscope-probe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpu=$(($(nproc) - 1))

# json FILE EXPR: evaluate a Python expression over the result document d (m: metrics by id).
json() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m={x['id']: x for x in d['metrics']}; print($2)" "$1"
}

echo "== 1. micro: mean cost per operation, cycles (3 s per bench, CPU $cpu)"
for policy in fifo other; do
    "$probe" run micro --policy "$policy" --cpus "$cpu" --duration 3 --quiet --json "$work/micro-$policy.json" || true
done
python3 - "$work/micro-fifo.json" "$work/micro-other.json" <<'EOF'
import json, sys
fifo, other = (json.load(open(path)) for path in sys.argv[1:])
def mean_cycles(doc, metric):
    cycles = metric["cycles"]
    if cycles is None:
        return None
    return max(0.0, cycles["mean"] - metric["overhead_ns"] * doc["timing"]["cycles_per_ns"])
others = {m["id"]: m for m in other["metrics"]}
print(f"  {'operation':<14} {'fifo 80':>10} {'other':>10}  other/fifo  (granted: {fifo['config']['granted']['policy']}"
      f" / {other['config']['granted']['policy']})")
for m in fifo["metrics"]:
    a, b = mean_cycles(fifo, m), mean_cycles(other, others[m["id"]])
    mark = "" if m["valid"] and others[m["id"]]["valid"] else "  (invalid in a run)"
    ratio = f"{b / a:.2f}x" if a and b is not None else "-"
    print(f"  {m['id']:<14} {a if a is None else round(a):>10} {b if b is None else round(b):>10}  {ratio:>10}{mark}")
EOF

echo "== 2. one CPU ($cpu), fifo 80: rtscope p50 / mean (ns) beside the reference tools"
"$probe" run ctxsw.sem ctxsw.yield mutex.handoff msgq.ops --cpus "$cpu" --duration 5 --quiet --json "$work/pairs.json"
json "$work/pairs.json" "'\n'.join(f\"  {k:<14} p50 {round(m[k]['adjusted']['p50']):>6}  mean {round(m[k]['adjusted']['mean']):>6}  {'valid' if m[k]['valid'] else 'INVALID'}\" for k in ('ctxsw.sem', 'ctxsw.yield', 'mutex.handoff', 'msgq.wake'))"
perf_bin=perf
if ! perf bench sched pipe -l 10 >/dev/null 2>&1; then # Debian's wrapper wants a matching kernel
    perf_bin=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -1 || true)
fi
if [[ -n $perf_bin ]] && out=$(chrt -f 80 taskset -c "$cpu" "$perf_bin" bench sched pipe -T -l 500000 2>/dev/null); then
    awk '/usecs\/op/ {printf "  perf bench sched pipe -T   %6.0f ns per switch (round trip / 2)\n", $1 * 1000 / 2}' <<<"$out"
else
    echo "  perf bench sched pipe: unavailable"
fi
# rt-tests print "#1 -> #0, Min m, Cur c, Avg a, Max x" in microseconds.
for tool in ptsematest pmqtest; do
    if command -v "$tool" >/dev/null; then
        "$tool" -a "$cpu" -p 80 -i 1000 -l 5000 -q 2>/dev/null | tr -d ',' |
            awk -v t="$tool" '/->/ {printf "  %-26s min %s us  avg %s us  max %s us (%s)\n", t, $5, $9, $11, $1 " " $2 " " $3}'
    else
        echo "  $tool: not installed (apt-get install rt-tests)"
    fi
done

echo "== 3. Thread-Metric: $tm_periods periods of $tm_period s on CPU $cpu"
"$probe" run threadmetric --cpus "$cpu" --param "period=$tm_period" --param "periods=$tm_periods" --quiet \
    --json "$work/tm.json" || true
json "$work/tm.json" "'\n'.join(f\"  {x['id']:<15} median {round(x['stats']['p50']):>12,}  x tm.basic {x['baseline']['ratio'] if x['baseline']['ratio'] is not None else '-':>8}  periods {x['periods']}  {'valid' if x['valid'] else 'INVALID: ' + x['invalid_reason']}\" for x in d['metrics'])"
