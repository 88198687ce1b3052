"""A job's estimated cost against its measured time, over the corners of the scenario schema.

The work measure (`Scenario.work`: the NW steps' replicates*H*queries*n*(d_k+3) plus building dense heads,
`Geometry.layout_work`) decides the fast lane, the work budget and admission's time limit, so it must track
time whatever part of a run dominates. Each corner is simulated (after one warm-up run of the same shapes,
so compilation is left out) and its time compared with work / rate, the rate measured on S1 in the same run;
the table prints the ratio measured / estimated, which should stay within a small factor of 1.

Run: `python bench/bench_cost.py` (about a minute on 2 cores).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CORNERS: dict[str, dict[str, Any]] = {
    "S1 (the rate)": {"replicates": 200, "H": 8, "queries": 64, "n": 512, "d_k": 8},
    "default": {},
    "long n": {"replicates": 4, "H": 2, "queries": 16, "n": 65536, "d_k": 4},
    "wide d_k": {"replicates": 20, "H": 4, "queries": 32, "n": 512, "d_k": 256},
    "many heads": {"replicates": 20, "H": 64, "queries": 32, "n": 256, "d_k": 1},
    "many replicates": {"replicates": 5000, "H": 2, "queries": 8, "n": 64, "d_k": 2},
    "dense heads, tiny n": {"replicates": 2, "H": 16, "queries": 1, "n": 2, "d_k": 64, "geometry": "random", "p": 1024},
    "dense, p > H d_k": {"replicates": 2, "H": 8, "queries": 1, "n": 2, "d_k": 64, "geometry": "random", "p": 2048},
    "dense, H d_k > p": {"replicates": 2, "H": 32, "queries": 1, "n": 2, "d_k": 64, "geometry": "random", "p": 512},
    "dense, both": {"replicates": 50, "H": 8, "queries": 32, "n": 512, "d_k": 32, "geometry": "random", "p": 512},
}


def seconds(fields: dict[str, Any], repeat: int = 3) -> float:
    from headdiv.workers.engine.simulation import simulate
    from headdiv.workers.schemas import Scenario

    s = Scenario.model_validate(fields)
    simulate(s, device="cpu")
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        simulate(s, device="cpu")
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    from headdiv.workers.schemas import Scenario

    rate = 0.0
    print(f"{'corner':22} {'work':>9} {'measured s':>10} {'estimated s':>11} {'measured/est':>12}")
    for label, fields in CORNERS.items():
        work = Scenario.model_validate(fields).work
        took = seconds(fields)
        rate = rate or work / took  # the first corner sets the rate
        print(f"{label:22} {work:9.3g} {took:10.3f} {work / rate:11.3f} {took / (work / rate):12.2f}", flush=True)


if __name__ == "__main__":
    main()
