"""How fast this process runs the engine, in work units per second (the work budget's measure).

Measured on a run of the dashboard's usual shape (d_k = 4, a few thousand training points), whose work
is its NW count: this run fixes what a work unit is (`headdiv.schemas.cost`). Every other part of
a run is weighted in that unit, so work / speed estimates any run's seconds within about 2x on one
machine (bench/bench_cost.py). The run grows until it lasts long enough to time (a GPU finishes a small
one in launch overheads).

`engine_speed` is what a server or a worker uses: measured once per installed version and machine setup
(device, dtype, compilation, threads, torch, cores) and kept on disk (`headdiv.plumbing.kept`), not at every
start, where it cost several seconds of both cores.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time

import torch

from headdiv.plumbing.kept import keep, read_kept
from headdiv.schemas import Scenario
from headdiv.schemas.engine_settings import get_engine_settings
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


def _setup(device: str | None) -> str:
    """What the speed depends on, as the name of its kept file."""
    from headdiv.workers.engine.device import resolve_device, resolve_dtype

    settings = get_engine_settings()
    dev = resolve_device(device)
    facts = {
        "device": torch.cuda.get_device_name(dev) if dev.type == "cuda" else platform.processor() or platform.machine(),
        "kind": dev.type,
        "dtype": str(resolve_dtype(None)),
        "compile": settings.compile,
        "threads": torch.get_num_threads(),
        "cores": os.cpu_count(),
        "torch": torch.__version__,
        "calibration": CALIBRATION,
    }
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:24]
    return f"{dev.type}-{digest}.json"


def kept_speed(device: str | None = None) -> float | None:
    """The speed an earlier start of this version measured on this setup, or None."""
    raw = read_kept("speed", _setup(device))
    if raw is None:
        return None
    try:
        speed = float(json.loads(raw)["work_per_s"])
    except (ValueError, KeyError, TypeError):
        return None
    return speed if speed > 0 else None


def engine_speed(device: str | None = None) -> float:
    """This machine's engine speed: kept from an earlier start of this version, else measured and kept."""
    speed = kept_speed(device)
    if speed is None:
        speed = measure_speed(device)
        keep("speed", _setup(device), json.dumps({"work_per_s": speed, "measured": time.time()}).encode())
    return speed
