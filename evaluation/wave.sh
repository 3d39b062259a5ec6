#!/usr/bin/env bash
# The square-wave study (examples/campaigns/wave-study.toml), timed: where its wall time went, and its
# envelopes (a benchmark, not a test: it asserts nothing, it prints).
#   1. the campaign, as its spec says (576 runs, planned under 30 min), or scaled to about RUNS runs:
#      one repetition, every model and load, the periods thinned evenly (longest and shortest kept)
#   2. wall time against measuring (the runs' bench elapsed times, from their result documents),
#      settling loads (the campaign's "settling" notes × the spec's settle) and the rest (start-up of
#      the probe and the generators, stopping loads, storing)
#   3. the envelope per load: rtscope compare campaign:NAME --by load
# Usage: evaluation/wave.sh [RUNS]   (run as root: the observer runs at fifo 80 and c-rt needs it)
# The runs go to a scratch database, deleted at the end, unless RTSCOPE_DB names one to keep.
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-}
"$repo/setup.sh" >/dev/null 2>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RTSCOPE_DB=${RTSCOPE_DB:-$work/results.sqlite}
export PYTHONPATH=$repo/src  # the inline Python below reads specs and the store with rtscope's modules
spec=$repo/examples/campaigns/wave-study.toml

if [[ -n $runs ]]; then
    spec=$work/wave-bench.toml
    "$repo/.venv/bin/python" - "$repo/examples/campaigns/wave-study.toml" "$runs" "$spec" <<'EOF'
import sys, tomllib
study, runs, out = tomllib.load(open(sys.argv[1], "rb")), int(sys.argv[2]), sys.argv[3]
periods, per_period = study["params"]["period_us"], len(study["params"]["model"]) * len(study["loads"])
count = min(len(periods), max(1, runs // per_period))
# Evenly over the sweep, its ends kept: 2 gives 100 ms and 10 µs, 4 every other half-decade …
kept = [periods[round(i * (len(periods) - 1) / max(count - 1, 1))] for i in range(count)]
text = open(sys.argv[1], encoding="utf-8").read()
text = text.replace(f'name = "{study["name"]}"', f'name = "{study["name"]}-{count * per_period}"')
text = text.replace(f'repetitions = {study["repetitions"]}', "repetitions = 1")
text = text.replace(f"period_us = {periods}", f"period_us = {kept}")
open(out, "w", encoding="utf-8").write(text)
EOF
fi
read -r name settle < <("$repo/.venv/bin/python" -c "
import sys, tomllib
from rtscope.model.values import duration
spec = tomllib.load(open(sys.argv[1], 'rb'))
print(spec['name'], duration(spec['settle']))" "$spec")

echo "== 1. $("$repo/rtscope" campaign "$spec" --dry-run | head -1)"
start=$(date +%s.%N)
status=0
"$repo/rtscope" campaign "$spec" >"$work/campaign.out" 2>"$work/campaign.err" || status=$?
end=$(date +%s.%N)
# 2 when the campaign's closing comparison refuses more cells than compare has letters (the runs are
# stored all the same): step 3 compares by load instead.
echo "  exit status $status; $(tail -1 "$work/campaign.err")"

echo "== 2. where the time went"
"$repo/.venv/bin/python" - "$name" "$start" "$end" "$settle" \
    "$(grep -c ': settling ' "$work/campaign.err" || true)" <<'EOF'
import os, sys
from pathlib import Path
from rtscope.store.database import Store
name, start, end, settle_s, settles = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
wall = end - start
with Store.open(Path(os.environ["RTSCOPE_DB"])) as store:
    docs = [run.doc for run in store.campaign_runs(name)]
measuring = sum(bench["elapsed_s"] for doc in docs for bench in doc["benches"])
settling = settles * settle_s
failed = sum(bench["status"] != "ok" for doc in docs for bench in doc["benches"])
print(f"  {len(docs)} runs ({failed} with a failed bench) in {wall:.0f} s wall, {wall / max(len(docs), 1):.2f} s a run")
for what, seconds in (("measuring", measuring), (f"settling ({settles} × {settle_s:g} s)", settling),
                      ("the rest", wall - measuring - settling)):
    print(f"  {what:<24} {seconds:8.1f} s  {100 * seconds / wall:5.1f} %")
EOF

echo "== 3. the envelope per load"
"$repo/rtscope" compare "campaign:$name" --by load | sed -n '/^Square waves/,/^metric /p' | sed '$d'
