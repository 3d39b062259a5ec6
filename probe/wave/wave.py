#!/usr/bin/env python3
"""A square wave from Python (docs/wave.md, "The generator").

The pin's byte is written in place with os.pwrite, and each half-period is
slept with time.sleep (relative): the way a Python script toggles a line.
"""

import os
import signal
import time

stopping = False


def on_term(signum, frame):
    """SIGTERM stops the wave early. Only a flag: a toggle written is always
    counted (time.sleep resumes after the handler, for at most a
    half-period)."""
    global stopping
    stopping = True


def main():
    half_s = int(os.environ["RTSCOPE_HALF_PERIOD_NS"]) / 1e9
    wanted = 2 * int(os.environ["RTSCOPE_PERIODS"])
    pin = os.open(os.environ["RTSCOPE_PIN"], os.O_WRONLY)
    signal.signal(signal.SIGTERM, on_term)
    toggles = 0
    os.pwrite(pin, b"0", 0)
    while toggles < wanted:
        time.sleep(half_s)
        if stopping:
            break
        os.pwrite(pin, b"1" if toggles % 2 == 0 else b"0", 0)
        toggles += 1
    print(f"toggles {toggles}", flush=True)


main()
