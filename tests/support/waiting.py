"""Waiting in a test for the event it needs: polled, with a bound generous enough for a loaded machine, past
which the test fails naming what it waited for."""

import time
from collections.abc import Callable


def until(what: str, done: Callable[[], object], timeout_s: float = 60.0, poll_s: float = 0.05) -> None:
    """Return once ``done()`` is true; fail the test if it is not within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"not within {timeout_s:g} s: {what}"
        time.sleep(poll_s)
