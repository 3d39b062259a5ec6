#!/usr/bin/env bash
# How long the analyzer takes on a realistic store (a benchmark: it prints, asserts nothing).
# Measures RUNS short runs of lat.wakeup and ctxsw.sem with --raw 100000 as a campaign (two cells,
# RUNS/2 repetitions each; ctxsw.sem keeps about 90,000 raw samples a run, every one of which compare's
# Mann–Whitney counts), then times `compare` of the cells, `compare` of every run alone, and `report`
# of the campaign; the goal is compare of the cells + report under 2 s for 20 runs.
# Each command is timed TRIES times and its best time shown (a shared machine's noise only adds time);
# the CPU time beside it is the same run's.
# With STORE, the runs are measured into that results database only when it does not exist yet, and it
# is kept: timing two checkouts on one store compares the analyzers, not the measurements.
# Last, the runs are exported as result files and validated as files are when read (goal: 20 in under
# 0.5 s), in one process, so that start-up does not count.
# Usage: evaluation/analyzer.sh [RUNS [STORE]]   (default 20 runs, a temporary store; TRIES=3)
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-20}
tries=${TRIES:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RTSCOPE_DB=${2:-$work/results.sqlite}
if [[ ! -e $RTSCOPE_DB ]]; then
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
fi
ids=$(sqlite3 "$RTSCOPE_DB" "SELECT id FROM runs ORDER BY rowid")
timed() { # LABEL COMMAND…: the best wall-clock seconds of TRIES rtscope invocations, and their CPU seconds
    local label=$1 best=""
    shift
    for ((try = 0; try < tries; try++)); do
        /usr/bin/time -o "$work/time" -f "%e %U %S" "$repo/rtscope" "$@" >/dev/null
        best=$(awk -v best="$best" '{ if (best == "" || $1 < best + 0) print $1, $2 + $3; else print best }' \
               "$work/time")
    done
    awk -v label="$label" -v best="$best" 'BEGIN { split(best, t, " ")
        printf "%-36s %6.2f s  (CPU %.2f s)\n", label, t[1], t[2] }'
    echo "${best%% *}" > "$work/$label.best"
}
printf 'store: %s runs, %s MB; best of %s\n' "$(echo "$ids" | wc -l)" "$(du -m "$RTSCOPE_DB" | cut -f1)" "$tries"
timed "rtscope --version (start-up)" --version
timed "compare campaign:analyzer (cells)" compare campaign:analyzer
# shellcheck disable=SC2086 # one argument per run id
timed "compare of $runs runs, each alone" compare $ids --by run
timed "report campaign:analyzer" report campaign:analyzer -o "$work/report.html"
printf 'report: %s kB\n' "$(du -k "$work/report.html" | cut -f1)"
awk '{ total += $1 } END { printf "compare (cells) + report: %.2f s (goal: under 2 s)\n", total }' \
    "$work/compare campaign:analyzer (cells).best" "$work/report campaign:analyzer.best"
mkdir "$work/files"
for id in $ids; do
    "$repo/rtscope" export "$id" --format json -o "$work/files/$id.json"
done
PYTHONPATH=$repo/src "$repo/.venv/bin/python" - "$work/files" "$tries" <<'PY'
import sys, time
from pathlib import Path
from rtscope.model import result
paths = sorted(Path(sys.argv[1]).glob("*.json"))


def validate_all() -> float:
    start = time.perf_counter()
    for path in paths:
        result.load(path)
    return time.perf_counter() - start


best = min(validate_all() for _ in range(int(sys.argv[2])))
megabytes = sum(p.stat().st_size for p in paths) / 1e6
print(f"validate {len(paths)} result files ({megabytes:.0f} MB): {best:.2f} s (goal: 20 in under 0.5 s)")
PY
