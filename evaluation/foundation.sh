#!/usr/bin/env bash
# Figures for the probe's foundation, each beside a reference measured in the
# same run (a benchmark, not a test: it asserts nothing, it prints).
#   1. timestamp cost: the probe's clock read and cycle stamp vs a bare clock_gettime loop (goal <= 1.2x)
#   2. stripped static probe size (goal <= 300 KiB)
#   3. probe peak RSS while recording 10^7 samples (goal <= 8 MiB), dynamic and static, and their ratio
#      (the dynamic probe maps libc and libm, locked whole by mlockall; libcrypto only when a crypto bench runs)
#   4. ctxsw.sem median beside `perf bench sched pipe` on one CPU, at normal and at fifo priority
# Usage: evaluation/foundation.sh   (root gives the fifo rows real priority)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/setup.sh" 2>/dev/null
make -s -C "$repo/probe" all static build/bare_clock
probe=$repo/probe/build/rtscope-probe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# json FILE EXPR: evaluate a Python expression over the result document d.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }

echo "== 1. timestamp cost (median back-to-back delta)"
bare_clock=$repo/probe/build/bare_clock
bare=$(median3 "$("$bare_clock")" "$("$bare_clock")" "$("$bare_clock")")
"$probe" run clock.read --duration 2 --quiet --json "$work/clock.json"
probe_clock=$(json "$work/clock.json" "d['metrics'][0]['stats']['p50']")
stamp=$(json "$work/clock.json" "round(d['timing']['cycle_overhead_cycles'] / d['timing']['cycles_per_ns'], 1) if d['timing']['cycles_per_ns'] else d['timing']['clock_overhead_ns']")
counter=$(json "$work/clock.json" "d['timing']['cycle_counter'] or 'none'")
printf '  bare clock_gettime loop      %8s ns\n' "$bare"
printf '  probe clock read (clock.read) %7s ns   %sx bare\n' "$probe_clock" "$(ratio "$probe_clock" "$bare")"
printf '  probe stamp (counter: %s) %6s ns   %sx bare\n' "$counter" "$stamp" "$(ratio "$stamp" "$bare")"

echo "== 2. stripped static probe"
size=$(stat -c %s "$repo/probe/build/rtscope-probe-static")
printf '  %s bytes = %s KiB (goal <= 300 KiB)\n' "$size" "$((size / 1024))"

echo "== 3. peak RSS recording 10^7 samples (clock.read samples=10000000, mlockall as default)"
declare -A rss
for bin in rtscope-probe-static rtscope-probe; do
    rss[$bin]=$(/usr/bin/time -f %M "$repo/probe/build/$bin" run clock.read --param samples=10000000 --duration 600 \
                --quiet --json "$work/rss.json" 2>&1 >/dev/null | tail -1)
    count=$(json "$work/rss.json" "d['metrics'][0]['stats']['count']")
    printf '  %-22s %6s KiB = %s MiB for %s samples (goal <= 8 MiB)   %sx static\n' "$bin" "${rss[$bin]}" \
        "$(python3 -c "print(f'{${rss[$bin]} / 1024:.1f}')")" "$count" "$(ratio "${rss[$bin]}" "${rss[rtscope-probe-static]}")"
done

echo "== 4. context switch on one CPU: ctxsw.sem median vs perf bench sched pipe (threads, round trip / 2)"
cpu=$(($(nproc) - 1))
perf_bin=perf
if ! perf bench sched pipe -l 10 >/dev/null 2>&1; then # Debian's wrapper wants a matching kernel
    perf_bin=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -1 || true)
fi
for policy in other fifo; do
    "$probe" run ctxsw.sem --policy "$policy" --cpus "$cpu" --duration 5 --quiet --json "$work/ctxsw.json"
    ours=$(json "$work/ctxsw.json" "round(d['metrics'][0]['adjusted']['p50'])")
    granted=$(json "$work/ctxsw.json" "d['config']['granted']['policy']")
    chrt=(); [[ $policy == fifo ]] && chrt=(chrt -f 80)
    if [[ -n $perf_bin ]] && out=$("${chrt[@]}" taskset -c "$cpu" "$perf_bin" bench sched pipe -T -l 500000 2>/dev/null); then
        perf_op=$(awk '/usecs\/op/ {print $1}' <<<"$out")
        perf_ns=$(python3 -c "print(round(float('$perf_op') * 1000 / 2))")
        printf '  %-5s (granted %-5s) ctxsw.sem p50 %6s ns   perf pipe %6s ns/switch   ratio %s\n' "$policy" "$granted" \
            "$ours" "$perf_ns" "$(ratio "$ours" "$perf_ns")"
    else
        printf '  %-5s ctxsw.sem p50 %s ns   (perf bench unavailable)\n' "$policy" "$ours"
    fi
done
