#!/usr/bin/env bash
# Figures for the latency suite, beside cyclictest run with the same settings
# in the same run (a benchmark, not a test: it asserts nothing, it prints).
#   1. idle: the latency suite, and cyclictest -m -p80 -i1000 on the same CPU
#   2. the same with a CPU hog (a normal-priority busy loop) on that CPU
#   3. the Metrics Number of this machine under the published profile
# Usage: bench/latency.sh [SECONDS]   (default 10 per bench; run as root)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-10}
"$repo/setup.sh" >/dev/null 2>&1
make -s -C "$repo/probe"
probe=$repo/probe/build/rtscope-probe
work=$(mktemp -d)
cpu=$(($(nproc) - 1))
hog=
trap '[[ -n $hog ]] && kill "$hog" 2>/dev/null; rm -rf "$work"' EXIT

row() { # FILE: min / p50 / p99 / max in us per metric
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for m in d['metrics']:
    s = m['adjusted']
    print(f\"  {m['id']:<18} min {s['min']/1e3:7.1f}  p50 {s['p50']/1e3:7.1f}  p99 {s['p99']/1e3:7.1f}  max {s['max']/1e3:8.1f} us  {'valid' if m['valid'] else 'INVALID'}\")" "$1"
}
cyclic() {
    cyclictest -m -p 80 -i 1000 -a "$cpu" -t 1 -D "$seconds" -q -h 20000 2>/dev/null |
        awk '/^# Min Latencies/ {mn=$4} /^# Avg Latencies/ {av=$4} /^# Max Latencies/ {mx=$4}
             /^[0-9]+ / {n=$1+0; c=$2+0; if (c > 0) { seen += c; hist[n] = c } }
             END { half = seen / 2; for (i = 0; i <= 20000; i++) { acc += hist[i]; if (acc >= half) { md = i; break } }
                   printf "  cyclictest         min %7.1f  p50 %7.1f  avg %7.1f  max %8.1f us\n", mn, md, av, mx }'
}
measure() {
    "$probe" run latency --cpus "$cpu" --duration "$seconds" --quiet --json "$work/$1.json"
    row "$work/$1.json"
    cyclic
}

echo "== 1. idle, CPU $cpu, fifo 80, $seconds s per bench"
measure idle
echo "== 2. a normal-priority busy loop on CPU $cpu"
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
measure hog
kill "$hog"
hog=
echo "== 3. Metrics Number, published profile (mean), and worst case (max)"
"$probe" run ctxsw.sem lat.preempt lat.irq --cpus "$cpu" --duration "$seconds" --quiet --json "$work/score.json"
"$repo/rtscope" score "$work/score.json" | sed -n '3,9p'
"$repo/rtscope" score "$work/score.json" --stat max | sed -n '8,9p'
