#!/usr/bin/env bash
# What the spike trace costs (issue 24's goal: at most 5 % on lat.wakeup's p99): the same benches,
# lat.wakeup and lat.preempt, with the tracer recording (--param trace=each, a threshold no sample
# passes, so nothing is ever kept: only the recording of the events on every wake-up costs) and without
# it, in the same run of this script (a benchmark, not a test: it asserts nothing, it prints).
#   1. this machine, hardware time: REPEATS runs each, untraced and traced alternating so that the
#      machine's drift and noise fall on both alike; compared as two groups (their repetitions)
#   2. the deterministic x86_64 stock guest, instruction time: one run each (reruns are identical)
# Usage: evaluation/trace_cost.sh [SECONDS [REPEATS]]   (default 3 s, 6 repeats; run as root, on a quiet
# machine: about 2 + 2 minutes)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-3}
repeats=${2:-6}
"$repo/setup.sh" >/dev/null 2>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/ids"
export RTSCOPE_DB=$work/results.sqlite
rtscope=$repo/rtscope
cpu=$(($(nproc) - 1))

# measure TARGET LABEL TRACE [ARGS…]: one run of both benches, stored under LABEL; its id goes to $work/ids
measure() {
    local target=$1 label=$2 trace=$3
    shift 3
    "$rtscope" --target "$target" run lat.wakeup lat.preempt --duration "$seconds" --param threshold_us=1000000 \
        --param trace="$trace" --label "$label" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
    "$rtscope" runs --format json | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['id'][:8])" >>"$work/ids"
}
# compare_ids: the runs since the last call, grouped by their label
compare_ids() {
    mapfile -t ids <"$work/ids"
    : >"$work/ids"
    "$rtscope" compare --by label --stat p50,p90,p99,max "${ids[@]}"
}

echo "== 1. this machine (hardware time), on CPU $cpu, $repeats × $seconds s a bench, untraced and traced alternating"
for _ in $(seq "$repeats"); do
    measure local "local untraced" off --cpus "$cpu"
    measure local "local traced" each --cpus "$cpu"
done
compare_ids
echo
echo "== 2. the x86_64 stock guest (instruction time, one instruction a ns), $seconds s a bench"
measure qemu:x86_64:stock "guest untraced" off
measure qemu:x86_64:stock "guest traced" each
compare_ids
