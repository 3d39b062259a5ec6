"""Summarise cyclictest's histogram output (-h US -q) per thread: min, p50, p99 and max in µs.

Usage: python3 evaluation/cyclictest_hist.py FILE CPU[,CPU…]   (the CPUs its threads were pinned to, in order)
min and max are cyclictest's own exact figures; p50 and p99 are read from its 1 µs histogram buckets.
"""

import math
import sys


def main(path: str, cpus: str) -> None:
    buckets: list[list[int]] = []
    exact: dict[str, list[int]] = {}
    with open(path, encoding="utf-8") as histogram:
        for line in histogram:
            fields = line.split()
            if fields and fields[0].isdigit():
                buckets.append([int(value) for value in fields[1:]])
            elif line.startswith(("# Min Latencies:", "# Max Latencies:", "# Histogram Overflows:")):
                name, values = line[2:].split(":", 1)
                exact[name] = [int(value) for value in values.split()]
    for thread, cpu in enumerate(cpus.split(",")):
        counts = [row[thread] for row in buckets]
        total = sum(counts) + exact["Histogram Overflows"][thread]
        print(
            f"  cyclictest cpu{cpu:<6} min {exact['Min Latencies'][thread]:7.1f}  "
            f"p50 {percentile(counts, total, 0.50):7.1f}  p99 {percentile(counts, total, 0.99):7.1f}  "
            f"max {exact['Max Latencies'][thread]:8.1f} us  ({total} samples)"
        )


def percentile(counts: list[int], total: int, q: float) -> float:
    """The bucket (µs) holding the ceil(q × total)-th smallest sample, by nearest rank."""
    rank, seen = max(1, math.ceil(q * total - 1e-9)), 0  # the epsilon: 0.99 × 2000 is 1980, not 1980.0000001
    for micros, count in enumerate(counts):
        seen += count
        if seen >= rank:
            return float(micros)
    return float("inf")


if __name__ == "__main__":
    main(*sys.argv[1:])
