"""What the API adds to a simulation: S1 through `POST /simulations?wait=` against the same `simulate` in this
process, side by side in one run.

A fresh `headdiv serve` (embedded, no warm start, nothing kept) and this process each compile the engine
first; then, interleaved so that both meet the same moments of a shared machine, `--repeat` simulations with
seeds never computed (no cache hit) each way, and between them the job protocol alone (`run_job`: hashing,
the cache, the result's bytes). Prints the medians and the ratios to `simulate`.

Run: `python bench/bench_api_overhead.py` (about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import embedded_server  # noqa: E402
from headdiv.schemas import Scenario  # noqa: E402
from headdiv.workers.engine.simulation import simulate  # noqa: E402
from headdiv.workers.instant_reports import warm_up  # noqa: E402
from headdiv.workers.runner import run_job  # noqa: E402

WARM_S = 15.0
S1 = {"H": 8, "d_k": 8, "n": 512, "replicates": 200, "queries": 64}


def _timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    env = {**os.environ, "HEADDIV_CACHE_DIR": "off", "HEADDIV_WARM_START": "0"}
    with embedded_server(env) as (url, _proc, _to_health):
        warm_up()
        client = httpx.Client(timeout=120)

        def api(seed: int) -> None:
            answer = client.post(url + "/api/v1/simulations", params={"wait": 60}, json={**S1, "seed": seed})
            assert answer.json()["status"] == "finished", answer.text

        # the server compiles its engine in the background after health (bench_startup.py measures that
        # part): first calls both ways until it has had WARM_S, and at least five
        seed, since = 0, time.monotonic()
        while seed < 5 or time.monotonic() - since < WARM_S:
            api(10_000 + seed)
            simulate(Scenario(**S1, seed=20_000 + seed))
            seed += 1
        times: dict[str, list[float]] = {"simulate": [], "run_job": [], "API": []}
        for i in range(args.repeat):
            times["simulate"].append(_timed(partial(simulate, Scenario(**S1, seed=30_000 + i))))
            times["run_job"].append(_timed(partial(run_job, "simulation", Scenario(**S1, seed=40_000 + i))))
            times["API"].append(_timed(partial(api, 50_000 + i)))
        base = statistics.median(times["simulate"])
        print(f"| S1, {args.repeat} runs each, interleaved | median | / in-process `simulate` |")
        print("|---|---|---|")
        for name, label in (
            ("simulate", "`simulate` in-process"),
            ("run_job", "`run_job` in-process (the job protocol)"),
            ("API", "`POST /simulations?wait=` to `headdiv serve`"),
        ):
            median = statistics.median(times[name])
            print(f"| {label} | {median * 1000:.0f} ms | {median / base:.2f} |")


if __name__ == "__main__":
    main()
