"""Stopping and fairness, through the embedded API as users meet it.

Measured side by side in one run:
  cancel    seconds from DELETE on a running maximal simulation (two huge replicates, minutes of work)
            to the job reading `canceled`, over --repeat runs: median and worst
  timeout   with HEADDIV_JOB_TIMEOUT_S = 3, seconds past the limit at which a maximal simulation reads
            `failed` (timeout)
  fairness  seconds a small simulation takes to finish alone, and while two maximal simulations fill both
            runner threads: with the fast lane (the default) and without it (HEADDIV_FAST_LANE_WORK = 0,
            where it waits for a runner; cut off at --patience seconds); the ratios to alone
  admission 30 distinct maximal simulations submitted by one client: how many are accepted before 429,
            and the Retry-After it is told
  warm start seconds a person's S1 simulation takes through the API right after start-up, while the warm
            start computes the dashboard's first views at low priority, and with the warm start off
            (--repeat fresh servers each, interleaved): the background work must yield to the person

Run: `python bench/bench_admission.py` (about two minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from headdiv.server.main import create_app  # noqa: E402
from headdiv.server.server_settings import ServerSettings  # noqa: E402

ENDED = ("finished", "failed", "canceled")
SIMULATIONS = "/api/v1/simulations"


def maximal(seed: int) -> dict[str, Any]:
    return {"replicates": 2, "H": 64, "queries": 1024, "n": 65536, "d_k": 1, "seed": seed}


def small(seed: int) -> dict[str, Any]:
    return {"replicates": 20, "queries": 16, "n": 128, "seed": seed}


@contextmanager
def api(**settings: Any) -> Iterator[TestClient]:
    values = {"redis_url": None, "warm_start": False, **settings}
    with TestClient(create_app(ServerSettings(**values), mount_dashboard=False)) as client:
        deadline = time.monotonic() + 300  # measure once the engine is compiled and its speed known
        while client.get("/api/v1/health").json()["speed"] is None and time.monotonic() < deadline:
            time.sleep(0.2)
        yield client


def wait_for(client: TestClient, job_id: str, done: Callable[[dict[str, Any]], bool], limit: float) -> dict | None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/v1/jobs/{job_id}").json()
        if done(body):
            return body
        time.sleep(0.005)
    return None


def running(body: dict[str, Any]) -> bool:
    return (body["status"] == "running" and body["progress"] > 0) or body["status"] in ENDED


def cancel_latency(repeat: int) -> None:
    latencies = []
    with api() as client:
        for k in range(repeat):
            job_id = client.post(SIMULATIONS, json=maximal(9000 + k)).json()["job_id"]
            wait_for(client, job_id, running, 120)
            started = time.perf_counter()
            client.delete(f"/api/v1/jobs/{job_id}")
            body = wait_for(client, job_id, lambda b: b["status"] in ENDED, 60)
            assert body is not None and body["status"] == "canceled", body
            latencies.append(time.perf_counter() - started)
    print(f"cancel    DELETE -> canceled: median {statistics.median(latencies):.3f} s, worst {max(latencies):.3f} s")


def timeout_overshoot() -> None:
    with api(job_timeout_s=3, work_per_s=1e12) as client:  # a stated speed, so the job is not refused up front
        started = time.perf_counter()
        job_id = client.post(SIMULATIONS, json=maximal(9100)).json()["job_id"]
        body = wait_for(client, job_id, lambda b: b["status"] in ENDED, 60)
        assert body is not None and body["error"]["type"] == "timeout", body
        print(f"timeout   limit 3 s: failed (timeout) {time.perf_counter() - started - 3:.3f} s after the limit")


def small_job_seconds(client: TestClient, seed: int, patience: float) -> float | None:
    started = time.perf_counter()
    job_id = client.post(SIMULATIONS, json=small(seed)).json()["job_id"]
    body = wait_for(client, job_id, lambda b: b["status"] in ENDED, patience)
    return time.perf_counter() - started if body is not None else None


def fairness(patience: float) -> None:
    with api() as client:
        small_job_seconds(client, 9200, patience)  # the engine's first run pays its lazy imports
        alone = small_job_seconds(client, 9201, patience)
    assert alone is not None
    rows: list[str] = []
    for label, lane in (("fast lane", {}), ("no lane", {"fast_lane_work": 0})):
        with api(runner_threads=2, **lane) as client:
            jobs = [client.post(SIMULATIONS, json=maximal(9300 + k)).json()["job_id"] for k in range(2)]
            for job_id in jobs:
                wait_for(client, job_id, running, 120)
            behind = small_job_seconds(client, 9210 + len(rows), patience)
            for job_id in jobs:
                client.delete(f"/api/v1/jobs/{job_id}")
            for job_id in jobs:
                wait_for(client, job_id, lambda b: b["status"] in ENDED, 60)
        rows.append(
            f"{label} {behind:.2f} s ({behind / alone:.1f}x)" if behind else f"{label} > {patience:.0f} s (not done)"
        )
    print(f"fairness  small job alone {alone:.2f} s; behind two maximal jobs: " + "; ".join(rows))


def admission() -> None:
    with api() as client:
        answers = [client.post(SIMULATIONS, json=maximal(9400 + k)) for k in range(30)]
        accepted = [r.json()["job_id"] for r in answers if r.status_code == 202]
        refused = [r for r in answers if r.status_code == 429]
        retry = refused[0].headers["retry-after"] if refused else "-"
        for job_id in accepted:
            client.delete(f"/api/v1/jobs/{job_id}")
        for job_id in accepted:
            wait_for(client, job_id, lambda b: b["status"] in ENDED, 60)
    print(
        f"admission 30 maximal jobs from one client: {len(accepted)} accepted, {len(refused)} refused (429, Retry-After {retry} s)"
    )


def s1(seed: int) -> dict[str, Any]:
    return {"replicates": 200, "H": 8, "queries": 64, "n": 512, "d_k": 8, "seed": seed}


def warm_start_yields(repeat: int) -> None:
    times: dict[bool, list[float]] = {True: [], False: []}
    # the process's one-time costs paid by neither side: imports and first compiles, and the dashboard's
    # modules the warm start reads its requests from (`headdiv serve` has them loaded before it starts)
    with api(warm_start=True) as client:
        client.post(f"{SIMULATIONS}?wait=60", json=s1(9499))
    for k in range(repeat):
        for warm in (True, False) if k % 2 else (False, True):
            with api(warm_start=warm) as client:  # the warm start submits its jobs once the speed is known
                started = time.perf_counter()
                answer = client.post(f"{SIMULATIONS}?wait=60", json=s1(9500 + 2 * k + warm))
                assert answer.status_code == 200, answer.text
                times[warm].append(time.perf_counter() - started)
    on, off = (statistics.median(times[w]) for w in (True, False))
    print(
        f"warm start S1 through the API: median {on * 1000:.0f} ms during the warm start"
        f" (max {max(times[True]) * 1000:.0f}), {off * 1000:.0f} ms without (max {max(times[False]) * 1000:.0f});"
        f" {on / off:.2f}x; each (ms): on {[round(t * 1000) for t in times[True]]}, off {[round(t * 1000) for t in times[False]]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--patience", type=float, default=30.0)
    parser.add_argument("--only", choices=("cancel", "timeout", "fairness", "admission", "warm"))
    args = parser.parse_args()
    if args.only == "warm":
        warm_start_yields(args.repeat)
        return
    cancel_latency(args.repeat)
    timeout_overshoot()
    fairness(args.patience)
    admission()
    warm_start_yields(args.repeat)


if __name__ == "__main__":
    main()
