#!/usr/bin/env bash
# Every test: the lint and type gate (ruff, mypy), the probe's C unit tests and checks, then the analyzer's
# pytest suite, which also runs the real probe, QEMU, sshd and Chromium. Prepares the machine first (setup.sh).
#   ./test.sh --fast   the gate, the C unit tests and the tests that need none of those (tests/conftest.py)
# Other arguments go to pytest: ./test.sh --fast -k stats; ./test.sh -n 0 runs the suite in one process.
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd "$repo"
probe_tests=test
# The full suite on three workers for the two CPUs of the machine it is timed on: while ALONE's tests
# have the CPUs, one worker runs the fast tests beside them and the third waits; after, the third runs
# while the others' tests wait on their runs, boots and daemons (tests/conftest.py groups the tests that
# share a boot, or need the CPUs to themselves, and orders what xdist hands out: hence no reordering by
# xdist). The fast tier's tests take less than the workers' start-up.
workers=(-n 3 --dist loadgroup --no-loadscope-reorder)
for arg in "$@"; do
    if [[ $arg == --fast ]]; then
        probe_tests=test-unit
        workers=()
    fi
done
./setup.sh --only packages
# The probe and its checks (make's builds and its simulators' runs) beside the Python environment (pip, one
# CPU) and then the gate (mypy, one CPU): make takes every CPU, so that the builds go on on both once
# those are done.
make -s -j"$(nproc)" -C probe all "$probe_tests" &
probe_checks=$!
trap 'kill "$probe_checks" 2>/dev/null || true' EXIT
./setup.sh --only python
.venv/bin/ruff check --quiet
.venv/bin/ruff format --check --quiet
.venv/bin/mypy
wait "$probe_checks"
# --fast goes on to pytest too: conftest.py's option.
exec .venv/bin/python -m pytest -q "${workers[@]}" tests "$@"
