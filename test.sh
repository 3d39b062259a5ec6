#!/usr/bin/env bash
# Every test: the probe's C unit tests, then the analyzer's pytest suite
# (which also runs the real probe). Prepares the machine first (setup.sh).
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd "$repo"
./setup.sh
make -s -C probe test
exec .venv/bin/python -m pytest -q tests "$@"
