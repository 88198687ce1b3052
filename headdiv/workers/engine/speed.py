"""How fast this process runs the engine, in work units per second (the work budget's measure).

Measured on a run of the dashboard's usual shape (d_k = 4, a few thousand training points), whose work
is its NW count: this run fixes what a work unit is (`headdiv.schemas.cost`). Every other part of
a run is weighted in that unit, so work / speed estimates any run's seconds within about 2x on one
machine (bench/bench_cost.py). The run grows until it lasts long enough to time (a GPU finishes a small
one in launch overheads).
"""

from __future__ import annotations

import time

from headdiv.schemas import Scenario
from headdiv.workers.engine.simulation import simulate

CALIBRATION = {"replicates": 4, "H": 8, "queries": 64, "n": 4096, "d_k": 4, "seed": 1}
MIN_SECONDS = 0.3
MAX_REPLICATES = 512
TIMINGS = 3


def measure_speed(device: str | None = None) -> float:
    """Work units per second of the calibration run: the fastest of `TIMINGS` runs after one untimed run of
    each size (the fastest, because a shared machine only ever slows a run down)."""
    replicates = int(CALIBRATION["replicates"])
    while True:
        scenario = Scenario.model_validate({**CALIBRATION, "replicates": replicates})
        simulate(scenario, device=device)  # allocations, lazy imports, the compiled kernel's first call
        seconds = min(_timed(scenario, device) for _ in range(TIMINGS))
        if seconds >= MIN_SECONDS or replicates >= MAX_REPLICATES:
            return scenario.work / max(seconds, 1e-9)
        replicates = min(MAX_REPLICATES, replicates * 4)


def _timed(scenario: Scenario, device: str | None) -> float:
    started = time.perf_counter()
    simulate(scenario, device=device)
    return time.perf_counter() - started
