#!/usr/bin/env bash
# Figures for the latency suite, beside cyclictest run with the same settings
# in the same run (a benchmark, not a test: it asserts nothing, it prints).
#   1. idle: lat.wakeup on every CPU, then cyclictest -m -p80 -i1000 -a ALL -t N
#      (one thread per CPU, one interval, histogram); then the rest of the
#      latency suite on the last CPU
#   2. the same on the last CPU with a CPU hog (a normal-priority busy loop) there
#   3. the Metrics Number of this machine under the published profile
# Usage: evaluation/latency.sh [SECONDS]   (default 10 per bench; run as root)
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
cyclic() { # CPUS: cyclictest with lat.wakeup's settings, one thread per CPU
    local threads
    threads=$(tr ',' '\n' <<<"$1" | wc -l)
    cyclictest -m -p 80 -i 1000 -a "$1" -t "$threads" -D "$seconds" -q -h 20000 >"$work/cyclic.txt" 2>/dev/null
    python3 "$repo/bench/cyclictest_hist.py" "$work/cyclic.txt" "$1"
}
measure() { # NAME CPUS BENCHES…
    local name=$1 cpus=$2
    shift 2
    "$probe" run "$@" --cpus "$cpus" --duration "$seconds" --quiet --json "$work/$name.json"
    row "$work/$name.json"
}

all=$(seq -s, 0 $(($(nproc) - 1)))
echo "== 1. idle, fifo 80, $seconds s per bench: lat.wakeup and cyclictest on CPUs $all, the rest on CPU $cpu"
measure idle-wakeup "$all" lat.wakeup
cyclic "$all"
measure idle "$cpu" lat.preempt lat.preempt_timer lat.irq
echo "== 2. a normal-priority busy loop on CPU $cpu"
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
measure hog "$cpu" latency
cyclic "$cpu"
kill "$hog"
hog=
echo "== 3. Metrics Number, published profile (mean), and worst case (max)"
"$probe" run ctxsw.sem lat.preempt lat.irq --cpus "$cpu" --duration "$seconds" --quiet --json "$work/score.json"
"$repo/rtscope" score "$work/score.json" | sed -n '3,9p'
"$repo/rtscope" score "$work/score.json" --stat max | sed -n '8,9p'
