"""Cells: batching, a surface against its exp floors, the first partial result, and fan-out across workers.

Measured side by side in one run (medians of `--repeat` runs where it says so):
  batch     a 16-angle diversity sweep of the default scenario simulated in batches (as a job does)
            against the same 16 scenarios simulated one by one, the two interleaved; the ratio separate /
            batched of the medians, and each one's range
  surface   the default 7 x 5 surface (theta x H) computed cold, cell by cell into a fresh cache, against
            the sum of its cells' floors (one torch.exp over R*H*queries*n float32 elements per cell)
  partial   through the embedded API: seconds from submitting the default surface (and the default
            diversity sweep) to the first poll that shows a partial result, and to the finished one
  fan-out   a 12 x 12 surface (theta x noise) on a real Redis with one `headdiv worker`, then with two,
            each limited to one compute thread (HEADDIV_THREADS=1); the ratio one / two workers
            (skipped, saying why, when no Redis answers at --redis-url); and the machine's own ceiling: the
            same engine work in one single-threaded process and in two at once, no queue involved

Run: `python bench/bench_cells.py` (a few minutes on 2 cores; the engine is compiled first);
`--only batch` runs one step.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.timing import median_time  # noqa: E402


def batch_ratio(repeat: int) -> None:
    """Separate and batched runs interleaved (one warm-up each), so a busy machine slows both alike."""
    from headdiv.schemas import Scenario
    from headdiv.workers.engine.simulation import simulate, simulate_many

    cells = [Scenario.model_validate({"theta": 6.0 * k}) for k in range(16)]
    runs: dict[str, Callable[[], object]] = {
        "separate": lambda: [simulate(c) for c in cells],
        "batched": lambda: list(simulate_many(cells)),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for fn in runs.values():
        fn()
    for _ in range(repeat):
        for name, fn in runs.items():
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
    separate, batched = (statistics.median(times[name]) for name in runs)
    spread = ", ".join(f"{name} {min(t):.3f}-{max(t):.3f}" for name, t in times.items())
    print(
        f"batch    16-angle sweep: separate {separate:.3f} s, batched {batched:.3f} s, ratio {separate / batched:.2f}"
        f" (medians of {repeat}; range {spread})"
    )


def surface_against_floors() -> None:
    import torch

    from headdiv.jobs.cache.memory_cache import MemoryCache
    from headdiv.schemas import SurfaceRequest
    from headdiv.workers.runner import run_job

    request = SurfaceRequest.model_validate(
        {
            "x": {"param": "theta", "values": [0, 15, 30, 45, 60, 75, 90]},
            "y": {"param": "H", "values": [1, 2, 4, 8, 16]},
        }
    )
    floors = 0.0
    for cell in request.scenarios():
        size = cell.replicates * cell.H * cell.queries * cell.n
        scores = torch.randn(size)
        floors += median_time(lambda s=scores: torch.exp(s), 3)  # type: ignore[misc]
    started = time.perf_counter()
    run_job("surface", request, MemoryCache(1 << 30))
    cold = time.perf_counter() - started
    print(f"surface  default 7x5 cold {cold:.2f} s, sum of exp floors {floors:.2f} s, ratio {cold / floors:.2f}")


def first_partial() -> None:
    from fastapi.testclient import TestClient

    from headdiv.server.main import create_app
    from headdiv.server.server_settings import ServerSettings

    app = create_app(ServerSettings(redis_url=None, warm_up=False, warm_start=False), mount_dashboard=False)
    bodies = {
        "surface": (
            "/api/v1/surfaces",
            {
                "x": {"param": "theta", "values": [0, 15, 30, 45, 60, 75, 90]},
                "y": {"param": "H", "values": [1, 2, 4, 8, 16]},
            },
        ),
        "diversity sweep": ("/api/v1/sweeps/diversity", {}),
    }
    with TestClient(app) as client:
        for label, (path, body) in bodies.items():
            started = time.perf_counter()
            state = client.post(path, json=body).json()
            partial_at = None
            while state["status"] not in ("finished", "failed", "canceled"):
                if partial_at is None and state.get("partial") is not None:
                    partial_at = time.perf_counter() - started
                time.sleep(0.01)
                state = client.get(f"/api/v1/jobs/{state['job_id']}").json()
            done = time.perf_counter() - started
            shown = f"{partial_at:.2f} s" if partial_at is not None else "none before the end"
            print(f"partial  {label}: first partial {shown}, finished {done:.2f} s ({state['cells']['total']} cells)")


def fan_out(redis_url: str, repeat: int) -> None:
    import redis

    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        print(f"fan-out  skipped: no Redis at {redis_url} ({exc})")
        return
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeat):  # interleaved, so a noisy moment slows both alike
        for count in times:
            times[count].append(fan_out_once(redis_url, count))
    one, two = (statistics.median(times[count]) for count in times)
    spread = ", ".join(f"{count} worker(s) {min(t):.2f}-{max(t):.2f} s" for count, t in times.items())
    print(f"fan-out  12x12 surface: one worker {one:.2f} s, two {two:.2f} s, ratio {one / two:.2f}")
    print(f"fan-out  (medians of {repeat}; range {spread})")
    parallel_ceiling(repeat)


def fan_out_once(redis_url: str, count: int) -> float:
    """Seconds for `count` fresh workers (one compute thread each) to finish a 12x12 surface of a new seed."""
    from rq import Worker

    from bench.queues import delete_queue
    from headdiv.jobs.ids import job_id
    from headdiv.schemas import SurfaceRequest
    from headdiv.schemas.fields import canonical
    from headdiv.server.backends.rq import RQBackend
    from headdiv.server.server_settings import ServerSettings

    queue = f"bench-{secrets.token_hex(4)}"
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "HEADDIV_QUEUE_NAME": queue,
        "HEADDIV_THREADS": "1",
        "HEADDIV_WORKER_NICE": "0",
        "HEADDIV_WARM_UP": "0",
        "HEADDIV_COMPILE": "off",
        "HEADDIV_CACHE_TTL_S": "600",
    }
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "headdiv.cli", "worker"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    try:
        settings = ServerSettings(redis_url=redis_url, queue_name=queue, cache_ttl_s=600)
        backend = RQBackend(settings)
        while Worker.count(connection=backend.redis, queue=backend.queue) < count:
            time.sleep(0.2)
        request = SurfaceRequest.model_validate(
            {
                "base": {"replicates": 100, "seed": secrets.randbelow(2**31)},
                "x": {"param": "theta", "values": [7.5 * k for k in range(12)]},
                "y": {"param": "noise", "values": [0.1 * (k + 1) for k in range(12)]},
            }
        )
        jid = job_id("surface", canonical(request))
        started = time.perf_counter()
        state = backend.submit("surface", request, jid)
        while not state.done:
            time.sleep(0.05)
            state = backend.get(jid) or state
        if state.status != "finished":
            raise RuntimeError(f"the 12x12 surface ended {state.status}")
        return time.perf_counter() - started
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        delete_queue(redis_url, queue)


CEILING_JOB = """
import time
from headdiv.workers.engine.simulation import simulate_many
from headdiv.schemas import Scenario
cells = [Scenario.model_validate({"replicates": 100, "theta": 3.75 * k, "seed": 1}) for k in range(24)]
list(simulate_many(cells[:2]))
started = time.perf_counter()
list(simulate_many(cells))
print(time.perf_counter() - started)
"""


def parallel_ceiling(repeat: int) -> None:
    """What two single-threaded processes gain on this machine with no queue at all: the same engine work
    in one process, then in two at once. Two vCPUs that share a physical core gain far less than 2x."""
    env = {**os.environ, "HEADDIV_THREADS": "1", "HEADDIV_COMPILE": "off"}

    def run(count: int) -> float:
        procs = [
            subprocess.Popen([sys.executable, "-c", CEILING_JOB], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(count)
        ]
        return max(float(p.communicate()[0].split()[-1]) for p in procs)

    runs: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeat):
        for count in runs:
            runs[count].append(run(count))
    alone, together = (statistics.median(runs[count]) for count in runs)
    print(
        f"fan-out  machine ceiling: the same cells in one process {alone:.2f} s, in each of two at once "
        f"{together:.2f} s: two processes do {2 * alone / together:.2f}x the work of one (medians of {repeat})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--redis-url", default=os.environ.get("HEADDIV_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"))
    steps_named = ["batch", "surface", "partial", "fan-out"]
    parser.add_argument("--skip", nargs="*", default=[], choices=steps_named)
    parser.add_argument("--only", nargs="*", default=steps_named, choices=steps_named, help="run only these steps")
    args = parser.parse_args()
    os.environ.setdefault("HEADDIV_COMPILE", "on")
    from headdiv.workers.engine.nw import warm_up

    started = time.perf_counter()
    compiled = warm_up()
    print(f"engine compiled={compiled} in {time.perf_counter() - started:.1f} s (excluded below)")
    steps: dict[str, Callable[[], None]] = {
        "batch": lambda: batch_ratio(args.repeat),
        "surface": surface_against_floors,
        "partial": first_partial,
        "fan-out": lambda: fan_out(args.redis_url, args.repeat),
    }
    for name, step in steps.items():
        if name in args.only and name not in args.skip:
            step()


if __name__ == "__main__":
    main()
