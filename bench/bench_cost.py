"""A job's estimated cost against its measured time, over the corners of the schemas.

The work measure (`headdiv.schemas.cost`: the NW steps plus every other part of a run, each
weighted in work units) decides the fast lane, the work budget and admission's time limit, so it must
track time whatever part of a run dominates. Each corner (simulations at the extremes of every field,
dense heads, AR(1) chains, gating, trainings, a covariance lab) is run after one warm-up run of the same
shapes, so compilation is left out, and its time is compared with work / rate, the rate measured by the
server's own calibration (`engine.speed.measure_speed`) in the same run: the table prints measured /
estimated (within 2x either way at every corner here), and how long a cancel could wait in each run.

`--fit` also prints the weights of `cost.PARTS` (and of a training's parts) that fit these corners best,
by least squares on the relative error: how the weights in the schema were chosen.

Run: `python bench/bench_cost.py [--fit] [--only LABEL ...]` (about four minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CALIBRATED = "the speed's calibration run"


def dense(p: int, **fields: Any) -> dict[str, Any]:
    """A corner with the `random` geometry's dense heads in R^p."""
    return {"geometry": "random", "p": p, **fields}


SIMULATIONS: dict[str, dict[str, Any]] = {
    "S1": {"replicates": 200, "H": 8, "queries": 64, "n": 512, "d_k": 8},
    "default": {},
    "smallest": {"replicates": 2, "H": 1, "queries": 1, "n": 2, "d_k": 1},
    "n = 65536": {"replicates": 4, "H": 2, "queries": 16, "n": 65536, "d_k": 4},
    "d_k = 256": {"replicates": 20, "H": 4, "queries": 32, "n": 512, "d_k": 256},
    "H = 64, d_k = 1": {"replicates": 20, "H": 64, "queries": 32, "n": 256, "d_k": 1},
    "H = 64, d_k = 4": {"replicates": 20, "H": 64, "queries": 32, "n": 256, "d_k": 4},
    "H = 16, d_k = 4": {"replicates": 80, "H": 16, "queries": 32, "n": 256, "d_k": 4},
    "5000 sets of n = 2": {"replicates": 5000, "H": 1, "queries": 1, "n": 2, "d_k": 1},
    "5000 sets of n = 64": {"replicates": 5000, "H": 2, "queries": 8, "n": 64, "d_k": 2},
    "64 heads' moments": {"replicates": 2000, "H": 64, "queries": 64, "n": 2, "d_k": 1},
    "queries = 1024": {"replicates": 20, "H": 8, "queries": 1024, "n": 512, "d_k": 8},
    "p = 16640 (H 64, d_k 256)": {"replicates": 2, "H": 64, "queries": 1, "n": 2000, "d_k": 256},
    "p = 4352 (H 16, d_k 256)": {"replicates": 4, "H": 16, "queries": 1, "n": 2000, "d_k": 256},
    "p = 1040 (H 64, d_k 16)": {"replicates": 20, "H": 64, "queries": 1, "n": 2000, "d_k": 16},
    "p = 9 (H 8, d_k 1), n = 8192": {"replicates": 100, "H": 8, "queries": 4, "n": 8192, "d_k": 1},
    "AR(1), n = 8192": {"replicates": 20, "H": 4, "queries": 16, "n": 8192, "d_k": 4, "dependence": "ar1", "phi": 0.5},
    "MAW gating": {"weights": "maw"},
    "softmax kernel": {"replicates": 200, "H": 8, "queries": 64, "n": 512, "d_k": 8, "kernel": "softmax"},
    "random, p = 4096, one head": dense(4096, replicates=20, H=1, queries=1, n=8000, d_k=1),
    "random, p = 128": dense(128, replicates=200, H=8, queries=64, n=512, d_k=8),
    "random, dense keys": dense(1024, replicates=4, H=16, queries=1, n=8000, d_k=64),
    "random, H d_k = p = 1024": dense(1024, replicates=2, H=16, queries=1, n=2, d_k=64),
    "random, p 2048 > H d_k": dense(2048, replicates=2, H=8, queries=1, n=2, d_k=64),
    "random, H d_k 2048 > p": dense(512, replicates=2, H=32, queries=1, n=2, d_k=64),
    "random, and NW work": dense(512, replicates=50, H=8, queries=32, n=512, d_k=32),
}
SMALL = {"replicates": 2, "H": 2, "queries": 1, "n": 2, "d_k": 1}
TRAININGS: dict[str, dict[str, Any]] = {
    "training, default": {},
    "training, 2000 tiny steps": {"steps": 2000, "batch": 1, "record_every": 2000, "base": SMALL},
    "training, 400 records": {"steps": 400, "batch": 1, "record_every": 1, "base": SMALL},
    "training, wide steps": {"steps": 20, "batch": 64, "record_every": 20, "base": {"replicates": 2, "n": 1024}},
    "training, dense p = 1024": {
        "steps": 20,
        "batch": 4,
        "record_every": 10,
        "base": {"replicates": 20, "H": 8, "d_k": 32, "geometry": "random", "p": 1024, "n": 512, "queries": 16},
    },
}
COVARIANCE: dict[str, dict[str, Any]] = {
    "covariance lab, default": {},
    "covariance, 16 heads": {"thetas": [0, 30, 60, 90], "base": {"H": 16, "replicates": 500, "queries": 64, "n": 64}},
}


def seconds(run: Callable[[], Any], repeat: int) -> float:
    run()  # allocations, lazy imports
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)  # a shared machine only ever slows a run down (as `measure_speed` reads it)


def corners() -> list[tuple[str, Any]]:
    """(label, request) of every corner, validated."""
    from headdiv.schemas import CovarianceRequest, Scenario
    from headdiv.schemas.training_request import TrainingRequest
    from headdiv.workers.engine.speed import CALIBRATION

    calibration = {CALIBRATED: {**CALIBRATION, "replicates": 64}}
    tables: list[tuple[type[Any], dict[str, dict[str, Any]]]] = [
        (Scenario, calibration),
        (Scenario, SIMULATIONS),
        (TrainingRequest, TRAININGS),
        (CovarianceRequest, COVARIANCE),
    ]
    return [(label, model.model_validate(fields)) for model, table in tables for label, fields in table.items()]


def run(request: Any, should_cancel: Callable[[], bool] | None = None) -> Any:
    """Compute `request` on the CPU as a job would: a simulation as its one cell, anything else by its runner."""
    from headdiv.schemas import Scenario
    from headdiv.workers.engine.dispatch import runner_for
    from headdiv.workers.engine.simulation import simulate_many

    if isinstance(request, Scenario):
        return list(simulate_many([request], device="cpu", should_cancel=should_cancel))
    return runner_for(request)(request, device="cpu", should_cancel=should_cancel)


def longest_wait(request: Any) -> float:
    """The longest a cancel could wait in one run of `request`: the longest time between the run's start,
    its checks of `should_cancel` and its end."""
    marks = [time.perf_counter()]

    def check() -> bool:
        marks.append(time.perf_counter())
        return False

    run(request, check)
    marks.append(time.perf_counter())
    return max(b - a for a, b in pairwise(marks))


def fit(rows: list[tuple[str, dict[str, float], float]]) -> dict[str, float]:
    """Weights (work units per count) minimising the squared relative error, the calibration run's counting
    five times: every estimate is work / the speed that run measures, so an error there skews them all."""
    import numpy as np
    from scipy.optimize import nnls

    from headdiv.schemas import Scenario
    from headdiv.workers.engine.speed import CALIBRATION

    names = sorted({name for _, counts, _ in rows for name in counts})
    a = np.array([[counts.get(name, 0.0) / took for name in names] for _, counts, took in rows])
    importance = np.array([5.0 if label == CALIBRATED else 1.0 for label, _, _ in rows])
    scale = a.max(axis=0)
    scale[scale == 0] = 1.0
    w, _ = nnls(a / scale * importance[:, None], importance)
    w = w / scale
    # The unit stays what it was: the calibration run's work is its NW count, so budgets keep their meaning.
    calibration = Scenario.model_validate({**CALIBRATION, "replicates": 64}).cost_counts()
    unit = sum(w[names.index(name)] * c for name, c in calibration.items()) / calibration["nw"]
    return {name: float(v / unit) for name, v in zip(names, w, strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fit", action="store_true", help="print the weights that fit these corners best")
    parser.add_argument("--only", nargs="*", default=None, help="labels of the corners to run")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    from headdiv.workers.engine.speed import measure_speed

    rate, worst, rows, waits = measure_speed("cpu"), [1.0, 1.0], [], 0.0
    print(f"rate: {rate:.3g} work units per second (engine.speed's calibration, as the server measures it)")
    print(
        f"{'corner':30} {'work':>9} {'measured s':>10} {'estimated s':>11} {'measured/est':>12} {'cancel wait s':>13}"
    )
    for label, request in corners():
        if args.only is not None and label not in args.only:
            continue
        took = seconds(partial(run, request), args.repeat)
        ratio = took / (request.work / rate)
        worst = [min(worst[0], ratio), max(worst[1], ratio)]
        wait = longest_wait(request)
        waits = max(waits, wait)
        print(
            f"{label:30} {request.work:9.3g} {took:10.3f} {request.work / rate:11.3f} {ratio:12.2f} {wait:13.3f}",
            flush=True,
        )
        rows.append((label, request.cost_counts(), took))
    print(f"measured / estimated from {worst[0]:.2f} to {worst[1]:.2f}; a cancel waits at most {waits:.2f} s")
    if args.fit:
        for name, weight in fit(rows).items():
            print(f"weight of {name}: {weight:.3g}")


if __name__ == "__main__":
    main()
