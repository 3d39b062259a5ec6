#!/usr/bin/env bash
# Every test: the lint and type gate (ruff, mypy), the probe's C unit tests and checks, then the analyzer's
# pytest suite, which also runs the real probe, QEMU, sshd and Chromium. Prepares the machine first (setup.sh).
#   ./test.sh --fast   the gate, the C unit tests and the tests that need none of those (tests/conftest.py)
# Other arguments go to pytest: ./test.sh --fast -k stats
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd "$repo"
probe_tests=test
for arg in "$@"; do
    [[ $arg == --fast ]] && probe_tests=test-unit
done
./setup.sh
.venv/bin/ruff check --quiet
.venv/bin/ruff format --check --quiet
.venv/bin/mypy
make -s -C probe "$probe_tests"
# --fast goes on to pytest too: conftest.py's option.
exec .venv/bin/python -m pytest -q tests "$@"
