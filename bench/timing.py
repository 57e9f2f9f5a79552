"""Timing helpers shared by the benchmark scripts (run them as ``python bench/NAME.py``)."""

import time

__all__ = ["best_of", "once"]


def best_of(fn, repeat=3):
    """Fastest of ``repeat`` calls of ``fn()``: ``(seconds, last result)``."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def once(fn):
    """One timed call of ``fn()``: ``(seconds, result)``."""
    return best_of(fn, 1)
