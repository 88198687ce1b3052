"""The one way a bench times a call: the median of `repeat` runs after one warm-up run (compilation, caches
and page faults of a first call are not what the numbers compare)."""

from __future__ import annotations

import json
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


def host_reference_ms() -> float:
    """Milliseconds of a fixed piece of pure-Python work (median of 5): the same code on the same machine kind
    has run 1.3-2x faster or slower between sessions, so each bench table names this beside its numbers, and a
    change is judged against numbers with the same reference, never against another day's table alone."""

    def work() -> None:
        total = 0
        for i in range(1_500_000):
            total += (i * i) % 7
        json.loads(json.dumps([{"x": list(range(50)), "name": str(i)} for i in range(1500)]))

    return 1000 * median_time(work)
