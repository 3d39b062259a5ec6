#!/usr/bin/env bash
# Crypto throughput: the crypto.* benches beside `openssl speed -evp` for the
# same algorithm and message size, in the same run, both on the last CPU as
# ordinary processes (a benchmark, not a test: it asserts nothing, it prints).
# Two pairs of figures, because openssl speed divides by its user CPU time
# unless given -elapsed:
#   rtscope's median batch   / openssl speed          (neither counts time another process took)
#   rtscope's overall figure / openssl speed -elapsed (all bytes over all wall time of the timing)
# On a quiet machine the pairs agree; on a busy one the first is the fair one. Goal: within ±5 %.
# Usage: bench/crypto.sh [SECONDS [SIZE…]]   (default 3 s, 16384 and 1024 bytes)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-3}
shift $(($# > 0 ? 1 : 0))
sizes=("$@")
((${#sizes[@]})) || sizes=(16384 1024)
# $RTSCOPE_PROBE, as for rtscope itself: another build of the probe (e.g. CRYPTO=… or another compiler)
probe=${RTSCOPE_PROBE:-$repo/probe/build/rtscope-probe}
[[ -n ${RTSCOPE_PROBE:-} ]] || make -s -C "$repo/probe"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpu=$(($(nproc) - 1))
# bench id and the name openssl speed -evp takes (bench/crypto_algorithms.c has both)
benches=(crypto.aes128_cbc:aes-128-cbc crypto.aes128_gcm:aes-128-gcm crypto.sha256:sha256
         crypto.chacha20_poly1305:chacha20-poly1305)

speed() { # NAME SIZE [-elapsed]: openssl speed's bytes/s
    taskset -c "$cpu" openssl speed -evp "$1" -bytes "$2" -seconds "$seconds" ${3:-} -mr 2>/dev/null |
        awk -F: '/^\+F:/ { print $NF }'
}
row() { # RESULT BENCH SIZE OPENSSL_BPS OPENSSL_ELAPSED_BPS
    python3 -c '
import json, sys
path, bench, size = sys.argv[1:4]
cpu_time, elapsed = float(sys.argv[4]), float(sys.argv[5])
metric = next(m for m in json.load(open(path))["metrics"] if m["id"] == bench)
p50, overall = metric["stats"]["p50"], metric["checks"]["overall_bytes_per_s"]
mark = "" if metric["valid"] else "  INVALID: " + metric["invalid_reason"]
print(f"  {bench:<26} {size:>6} {p50 / 1e6:11.1f} {cpu_time / 1e6:11.1f} {p50 / cpu_time:7.3f}"
      f" {overall / 1e6:11.1f} {elapsed / 1e6:11.1f} {overall / elapsed:7.3f}{mark}")' "$@"
}

echo "$(openssl version), rtscope-probe and openssl on CPU $cpu, $seconds s each, MB/s = 10^6 bytes/s"
printf '  %-26s %6s %11s %11s %7s %11s %11s %7s\n' bench size "rtscope p50" "openssl" ratio \
    "rts overall" "-elapsed" ratio
for size in "${sizes[@]}"; do
    for pair in "${benches[@]}"; do
        bench=${pair%%:*} name=${pair#*:}
        "$probe" run "$bench" --param size="$size" --cpus "$cpu" --policy other --no-mlock \
            --duration "$seconds" --quiet --json "$work/run.json"
        row "$work/run.json" "$bench" "$size" "$(speed "$name" "$size")" "$(speed "$name" "$size" -elapsed)"
    done
done
