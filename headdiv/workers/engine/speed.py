"""How fast this process runs the engine, in work units per second (the work budget's measure).

Measured on a run of the dashboard's usual shape (d_k = 4, a few thousand training points). The cost of a
work unit varies with the shape, within about 3x either way on one machine: at d_k = 1 the exponentials
of the attention scores, not their dot products, set the pace, so a unit costs more; at large d_k less.
The run grows until it lasts long enough to time (a GPU finishes a small one in launch overheads).
"""

from __future__ import annotations

import time

from headdiv.workers.engine.simulation import simulate
from headdiv.workers.schemas import Scenario

CALIBRATION = {"replicates": 4, "H": 8, "queries": 64, "n": 4096, "d_k": 4, "seed": 1}
MIN_SECONDS = 0.3
MAX_REPLICATES = 512


def measure_speed(device: str | None = None) -> float:
    """Work units per second of the calibration run (after one untimed run of each size)."""
    replicates = int(CALIBRATION["replicates"])
    while True:
        scenario = Scenario.model_validate({**CALIBRATION, "replicates": replicates})
        simulate(scenario, device=device)  # allocations, lazy imports, the compiled kernel's first call
        started = time.perf_counter()
        simulate(scenario, device=device)
        seconds = time.perf_counter() - started
        if seconds >= MIN_SECONDS or replicates >= MAX_REPLICATES:
            return scenario.work / max(seconds, 1e-9)
        replicates = min(MAX_REPLICATES, replicates * 4)
