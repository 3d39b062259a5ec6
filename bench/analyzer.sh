#!/usr/bin/env bash
# How long the analyzer takes on a realistic store (a benchmark: it prints, asserts nothing).
# Measures RUNS short runs of lat.wakeup and ctxsw.sem with --raw 100000 as a campaign (two cells,
# RUNS/2 repetitions each), then times `compare` of the cells, `compare` of every run alone, and
# `report` of the campaign; the goal is compare + report under 3 s for 20 runs.
# Usage: bench/analyzer.sh [RUNS]   (default 20)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RTSCOPE_DB=$work/results.sqlite
cat > "$work/spec.toml" <<SPEC
name = "analyzer"
benches = ["lat.wakeup", "ctxsw.sem"]
repetitions = $((runs / 2))
duration = "1s"
raw = 100000
[params]
"lat.wakeup:interval_us" = [1000, 500]
[[configs]]
cpus = "$(($(nproc) - 1))"
SPEC
echo "measuring $runs runs…" >&2
"$repo/rtscope" campaign "$work/spec.toml" >/dev/null 2>&1
ids=$(sqlite3 "$RTSCOPE_DB" "SELECT id FROM runs ORDER BY rowid")
timed() { # LABEL COMMAND…: wall-clock seconds of one rtscope invocation
    local label=$1 start end
    shift
    start=$EPOCHREALTIME
    "$repo/rtscope" "$@" >/dev/null
    end=$EPOCHREALTIME
    awk -v label="$label" -v s="$start" -v e="$end" 'BEGIN { printf "%-36s %6.2f s\n", label, e - s }'
}
printf 'store: %s runs, %s MB\n' "$(echo "$ids" | wc -l)" "$(du -m "$RTSCOPE_DB" | cut -f1)"
timed "rtscope --version (start-up)" --version
timed "compare campaign:analyzer (cells)" compare campaign:analyzer
# shellcheck disable=SC2086 # one argument per run id
timed "compare of $runs runs, each alone" compare $ids --by run
timed "report campaign:analyzer" report campaign:analyzer -o "$work/report.html"
printf 'report: %s kB\n' "$(du -k "$work/report.html" | cut -f1)"
