#!/usr/bin/env bash
# A square wave from bash (docs/wave.md, "The generator"): the pin's byte is
# written in place with printf (1<> opens it for reading and writing, so it
# is never truncated), and each half-period is slept with sleep, a program
# taking fractional seconds (bash has no sleep of its own): the way a shell
# script toggles a line.
set -u
pin=$RTSCOPE_PIN
half_ns=$RTSCOPE_HALF_PERIOD_NS
wanted=$((2 * RTSCOPE_PERIODS))
# The half-period in seconds, 9 decimals: bash has no floating point.
half_s=$(printf '%d.%09d' $((half_ns / 1000000000)) $((half_ns % 1000000000)))

# SIGTERM (sent to the whole group) stops the wave early. The sleep runs in
# the background so that wait returns to the trap at once (the group's
# signal ends the sleep quietly); the trap only sets a flag, so a toggle
# written is always counted.
stop=0
trap 'stop=1' TERM

toggles=0
level=0
printf 0 1<>"$pin"
while ((toggles < wanted)); do
    sleep "$half_s" &
    wait $!
    ((stop)) && break
    level=$((1 - level))
    printf %s "$level" 1<>"$pin"
    toggles=$((toggles + 1))
done
echo "toggles $toggles"
