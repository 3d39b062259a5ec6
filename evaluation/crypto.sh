#!/usr/bin/env bash
# Crypto throughput: the crypto.* benches beside `openssl speed -evp` for the
# same algorithm and message size, in the same run, both on the last CPU as
# ordinary processes (a benchmark, not a test: it asserts nothing, it prints).
# Two pairs of figures, because openssl speed divides by its user CPU time
# unless given -elapsed:
#   rtscope's median batch   / openssl speed          (neither counts time another process took)
#   rtscope's overall figure / openssl speed -elapsed (all bytes over all wall time of the timing)
# On a quiet machine the pairs agree; on a busy one the first is the fair one. Goal: within ±5 %.
# A third figure is the loop openssl speed runs, timed straight (evaluation/evp_loop.c, its CPU time): where
# openssl speed's own figure differs from its loop's, the difference is in openssl speed's reporting
# (AES-128-GCM with -aead, here), and rtscope's figure is set beside the loop as well.
# Each pair is measured REPEAT times, rtscope and openssl alternating, and the medians compared: on a
# shared machine one run of either moves by 20 % from the next.
# Usage: evaluation/crypto.sh [SECONDS [SIZE…]]   (default 2 s, 16384 and 1024 bytes; REPEAT=3)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-2}
repeat=${REPEAT:-3}
shift $(($# > 0 ? 1 : 0))
sizes=("$@")
((${#sizes[@]})) || sizes=(16384 1024)
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "evaluation/crypto.sh: SECONDS is a whole number (openssl speed's)" >&2; exit 2; }
# $RTSCOPE_PROBE, as for rtscope itself: another build of the probe (e.g. CRYPTO=… or another compiler)
probe=${RTSCOPE_PROBE:-$repo/probe/build/rtscope-probe}
[[ -n ${RTSCOPE_PROBE:-} ]] || make -s -C "$repo/probe"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s -C "$repo/probe" build/evp_loop
evp_loop=$repo/probe/build/evp_loop
cpu=$(($(nproc) - 1))
# bench id, the name openssl speed -evp takes (bench/crypto_algorithms.c has both) and, for the AEADs,
# -aead: a message per buffer (IV, a 13-byte AAD, data, tag) as rtscope times it (without AAD); without
# it OpenSSL 3.0's speed streams them through one context, with no IV or tag per buffer
benches=(crypto.aes128_cbc:aes-128-cbc: crypto.aes128_gcm:aes-128-gcm:-aead crypto.sha256:sha256:
         crypto.chacha20_poly1305:chacha20-poly1305:-aead)

speed() { # NAME SIZE FLAGS…: openssl speed's bytes/s
    taskset -c "$cpu" openssl speed -evp "$1" -bytes "$2" -seconds "$seconds" "${@:3}" -mr 2>/dev/null |
        awk -F: '/^\+F:/ { print $NF }'
}
row() { # BENCH SIZE: the medians of the results in $work/*.json and of $work/openssl, $work/elapsed
    python3 -c '
import glob, json, statistics, sys
bench, size, work = sys.argv[1:4]
metrics = [next(m for m in json.load(open(path))["metrics"] if m["id"] == bench)
           for path in sorted(glob.glob(work + "/*.json"))]
p50 = statistics.median(m["stats"]["p50"] for m in metrics)
overall = statistics.median(m["checks"]["overall_bytes_per_s"] for m in metrics)
cpu_time, elapsed, loop = (statistics.median(map(float, open(work + name).read().split()))
                           for name in ("/openssl", "/elapsed", "/loop"))
invalid = [m["invalid_reason"] for m in metrics if not m["valid"]]
mark = "  INVALID: " + invalid[0] if invalid else ""
print(f"  {bench:<26} {size:>6} {p50 / 1e6:11.1f} {cpu_time / 1e6:11.1f} {p50 / cpu_time:7.3f}"
      f" {overall / 1e6:11.1f} {elapsed / 1e6:11.1f} {overall / elapsed:7.3f}"
      f" {loop / 1e6:11.1f} {p50 / loop:7.3f}{mark}")' "$1" "$2" "$work"
}

echo "$(openssl version), rtscope-probe and openssl on CPU $cpu, $seconds s each, medians of $repeat," \
     "MB/s = 10^6 bytes/s"
printf '  %-26s %6s %11s %11s %7s %11s %11s %7s %11s %7s\n' bench size "rtscope p50" "openssl" ratio \
    "rts overall" "-elapsed" ratio "its loop" ratio
for size in "${sizes[@]}"; do
    for pair in "${benches[@]}"; do
        IFS=: read -r bench name flags <<<"$pair"
        rm -f "$work"/*.json "$work"/openssl "$work"/elapsed "$work"/loop
        for ((r = 0; r < repeat; r++)); do
            "$probe" run "$bench" --param size="$size" --cpus "$cpu" --policy other --no-mlock \
                --duration "$seconds" --quiet --json "$work/$r.json"
            speed "$name" "$size" $flags >>"$work/openssl"
            speed "$name" "$size" $flags -elapsed >>"$work/elapsed"
            taskset -c "$cpu" "$evp_loop" "$name" "$size" "$seconds" ${flags:+aead} >>"$work/loop"
        done
        row "$bench" "$size"
    done
done
