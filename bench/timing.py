"""The one way a bench times a call: the median of `repeat` runs after one warm-up run (compilation, caches
and page faults of a first call are not what the numbers compare)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_time(fn: Callable[[], object], repeat: int = 5) -> float:
    """Median seconds of `fn()` over `repeat` runs, after one run that is not counted."""
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)
