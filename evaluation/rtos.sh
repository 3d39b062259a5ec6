#!/usr/bin/env bash
# Figures for the RTOS targets, all in one time base (instruction time on QEMU, one instruction a ns):
# FreeRTOS and ThreadX on the emulated Cortex-M3 in their dev and bench configurations, and the Linux
# guest (aarch64, Debian's stock kernel) beside them (a benchmark, not a test: it asserts nothing).
#   1. the images' sizes (text, data, bss) per kernel and configuration, the microcontroller builds' too
#   2. micro: mean instructions per operation, side by side (compare --ops)
#   3. Thread-Metric: counts per period and ratios to tm.basic, beside the ThreadX figures its authors
#      published (compare --published threadx-thread-metric)
# Usage: evaluation/rtos.sh   (about 10 minutes on a quiet 2-CPU machine; the runs go to a store of its own)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/setup.sh" >/dev/null 2>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RTSCOPE_DB=$work/results.sqlite
rtscope=$repo/rtscope
boards=(qemu:mps2-an385:freertos qemu:mps2-an385:freertos:config=bench
        qemu:mps2-an385:threadx qemu:mps2-an385:threadx:config=bench)

# run TARGET SUITE [ARGS…]: the run's id (its first 8 digits), the run stored in the bench's own store.
run() {
    local target=$1 suite=$2
    shift 2
    "$rtscope" --target "$target" run "$suite" "$@" --label "$target $suite" >"$work/out" 2>&1 ||
        { cat "$work/out" >&2; exit 1; }
    "$rtscope" runs --format json | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['id'][:8])"
}

micro=() threadmetric=()
for target in "${boards[@]}"; do
    micro+=("$(run "$target" micro)")
    threadmetric+=("$(run "$target" threadmetric)")
done
micro+=("$(run qemu:aarch64:stock micro --duration 0.5)")

# The microcontroller builds (MCU=small) are built for their sizes only: they measure what the full
# images do (docs/rtos.md; the slow test of the small build holds it).
for build in "freertos dev" "threadx dev" "threadx bench"; do
    read -r kernel config <<<"$build"
    make -C "$repo/probe" PORT="$kernel" BOARD=mps2-an385 CONFIG="$config" MCU=small >"$work/out" 2>&1 ||
        { cat "$work/out" >&2; exit 1; }
done

echo "== 1. image sizes (arm-none-eabi-size; -small: MCU=small, at most 128 KiB of code)"
for build in freertos-mps2-an385 freertos-mps2-an385-bench threadx-mps2-an385 threadx-mps2-an385-bench \
    freertos-mps2-an385-small threadx-mps2-an385-small threadx-mps2-an385-bench-small; do
    image=$repo/probe/build/$build/rtscope-probe
    [[ -f $image ]] && arm-none-eabi-size "$image" | tail -n 1 | awk -v b="$build" '{printf "  %-31s text %8d  data %6d  bss %9d\n", b, $1, $2, $3}'
done
echo
echo "== 2. micro, mean per operation (A FreeRTOS dev, B FreeRTOS bench, C ThreadX dev, D ThreadX bench, E Linux aarch64 guest)"
"$rtscope" compare --ops "${micro[@]}"
echo
echo "== 3. Thread-Metric (A FreeRTOS dev, B FreeRTOS bench, C ThreadX dev, D ThreadX bench), beside ThreadX's published"
"$rtscope" compare --published threadx-thread-metric "${threadmetric[@]}"
