"""Scaled mode against a real Redis and real worker processes (`run_worker`, as `headdiv worker` runs it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from tests.server.conftest import rq_settings
from tests.server.helpers import RUN_SEED as SEED
from tests.server.helpers import (
    ServerThread,
    WorkerProcess,
    maximal_simulation,
    overlong_surface,
    poll,
    run_async,
    slow_surface,
    small,
    watch_surface,
    workers,
)

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def stack(redis_url: str, queue_name: str, tmp_path: Path) -> Iterator[tuple[TestClient, WorkerProcess]]:
    """API in scaled mode plus one worker process on a private queue."""
    with (
        workers(redis_url, queue_name, tmp_path) as procs,
        TestClient(create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)) as client,
    ):
        yield client, procs[0]


def test_end_to_end_job_progress_and_cache_hit(stack: tuple[TestClient, WorkerProcess]) -> None:
    client, worker = stack
    health = client.get("/api/v1/health").json()
    assert health == {**health, "status": "ok", "cache": "redis", "queue": "rq", "workers": 1, "device": "cpu"}

    scenario = small(H=2, theta=60.0)
    r = client.post("/api/v1/simulations", json=scenario, params={"wait": 60})
    assert r.status_code == 200, r.text
    job = r.json()
    assert job["status"] == "finished" and job["cached"] is False
    assert job["result"]["scenario"]["theta"] == 60.0
    assert worker.successful_jobs() == 1

    again = client.post("/api/v1/simulations", json=scenario)
    assert again.status_code == 200 and again.json()["cached"] is True
    assert again.json()["result"] == job["result"]
    assert worker.successful_jobs() == 1  # the second answer came from the Redis cache

    # progress of a surface, published by the worker through job.meta
    body, seen = watch_surface(client)
    assert any(0 < p < 1 for p in seen), seen
    assert len(body["result"]["metrics"]["mse"]) == 4


def test_single_flight_across_100_concurrent_requests(redis_url: str, queue_name: str, tmp_path: Path) -> None:
    scenario = small(H=3, seed=SEED + 7)

    async def burst(url: str) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=100)) as c:
            return await asyncio.gather(
                *(c.post("/api/v1/simulations", json=scenario, params={"wait": 60}) for _ in range(100))
            )

    app = create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)
    with workers(redis_url, queue_name, tmp_path, count=2) as procs, ServerThread(app) as server:
        responses = run_async(burst(server.url))
        runs = sum(p.successful_jobs() for p in procs)
    assert [r.status_code for r in responses] == [200] * 100, {r.status_code for r in responses}
    assert len({r.json()["job_id"] for r in responses}) == 1
    assert len({r.content.split(b'"result":', 1)[1] for r in responses}) == 1
    assert runs == 1  # two workers, 100 requests, one engine run


def test_cancel_queued_and_running_jobs(stack: tuple[TestClient, WorkerProcess]) -> None:
    client, _ = stack
    running = client.post("/api/v1/surfaces", json=slow_surface(6, seed=SEED + 777)).json()["job_id"]
    poll(client, running, ("running",), 60)
    queued = client.post("/api/v1/surfaces", json=slow_surface(6, seed=SEED + 778)).json()["job_id"]
    assert client.get(f"/api/v1/jobs/{queued}").json()["status"] == "queued"  # the only worker is busy

    r = client.delete(f"/api/v1/jobs/{queued}")
    assert r.status_code == 200 and r.json()["status"] == "canceled"
    r = client.delete(f"/api/v1/jobs/{running}")
    assert r.status_code in (200, 202)
    body = poll(client, running, ("finished", "failed", "canceled"), 60)
    assert body["status"] == "canceled" and body["error"]["type"] == "canceled"
    # resubmitting a canceled request starts it again
    again = client.post("/api/v1/surfaces", json=slow_surface(6, seed=SEED + 778)).json()
    assert again["status"] in ("queued", "running")
    client.delete(f"/api/v1/jobs/{again['job_id']}")
    assert poll(client, again["job_id"], ("finished", "failed", "canceled"), 60)["status"] == "canceled"


def kill_the_worker_mid_job(
    client: TestClient, path: str, body: dict[str, Any], redis_url: str, queue_name: str, tmp_path: Path
) -> tuple[str, float]:
    """Submit a job to a lone worker and SIGKILL that worker once the job runs; the job id and the moment."""
    victim = WorkerProcess(redis_url, queue_name, tmp_path / "victim.log")
    try:
        victim.wait_registered()
        job_id = client.post(path, json=body).json()["job_id"]
        poll(client, job_id, ("running",), 60)
        victim.kill()
        return job_id, time.monotonic()
    finally:
        victim.stop()


@pytest.mark.parametrize("retries", [1, 0])
def test_a_killed_worker_loses_only_its_chunk(redis_url: str, queue_name: str, tmp_path: Path, retries: int) -> None:
    """SIGKILL the worker mid-surface: the surface still finishes once a worker is back. With a retry
    left, RQ runs the lost chunk again; without, the chunk fails as abandoned and the surface itself
    (which waits for its chunks, failures allowed) computes the cells that chunk left."""
    settings = rq_settings(redis_url, queue_name, job_retries=retries, job_timeout_s=1800)
    request = slow_surface(6, seed=SEED + 900 + retries)
    with TestClient(create_app(settings, mount_dashboard=False)) as client:
        job_id, killed_at = kill_the_worker_mid_job(
            client, "/api/v1/surfaces", request, redis_url, queue_name, tmp_path
        )
        with workers(redis_url, queue_name, tmp_path):
            body = poll(client, job_id, ("finished", "failed"), 180)
        assert body["status"] == "finished", body
        assert body["cells"]["total"] == 24 and all(
            v is not None for row in body["result"]["metrics"]["mse"] for v in row
        )
        assert time.monotonic() - killed_at < 180


def test_a_killed_worker_fails_a_simulation_as_abandoned_without_a_retry(
    redis_url: str, queue_name: str, tmp_path: Path
) -> None:
    """A single simulation is not fanned out: with no retry left and no worker alive, the API's maintenance
    marks it failed (abandoned) within the heartbeat TTL, though its own timeout is 30 minutes."""
    settings = rq_settings(redis_url, queue_name, job_retries=0, job_timeout_s=1800)
    heavy = {"replicates": 1000, "queries": 64, "n": 2048, "H": 8, "seed": SEED + 901}
    with TestClient(create_app(settings, mount_dashboard=False)) as client:
        job_id, killed_at = kill_the_worker_mid_job(
            client, "/api/v1/simulations", heavy, redis_url, queue_name, tmp_path
        )
        body = poll(client, job_id, ("finished", "failed"), 120)
        assert body["status"] == "failed" and body["error"]["type"] == "abandoned", body
        assert time.monotonic() - killed_at < 120


def test_resubmitting_a_job_abandoned_twice_starts_it_afresh(redis_url: str, queue_name: str, tmp_path: Path) -> None:
    """Its worker SIGKILLed on the first run and on the retry, the job fails as abandoned; asking again
    answers a fresh job (RQ may have lost the old run's execution records: never a 500)."""
    settings = rq_settings(redis_url, queue_name, job_retries=1, job_timeout_s=1800)
    request = maximal_simulation(seed=SEED + 902)
    with TestClient(create_app(settings, mount_dashboard=False), raise_server_exceptions=False) as client:
        job_id = client.post("/api/v1/simulations", json=request).json()["job_id"]
        for attempt in range(2):
            if attempt:  # the killed run still reads as running until the API's maintenance requeues it (retry)
                poll(client, job_id, ("queued",), 120)
            victim = WorkerProcess(redis_url, queue_name, tmp_path / f"victim-{attempt}.log")
            try:
                victim.wait_registered()
                poll(client, job_id, lambda b: b["status"] == "running" and b["progress"] > 0, 120)
                victim.kill()
            finally:
                victim.stop()
        body = poll(client, job_id, ("finished", "failed"), 120)
        assert body["status"] == "failed" and body["error"]["type"] == "abandoned", body
        with workers(redis_url, queue_name, tmp_path):
            for _ in range(3):  # at once, and again while the fresh run is queued or running
                again = client.post("/api/v1/simulations", json=request)
                assert again.status_code == 202 and again.json()["job_id"] == job_id, again.text
                assert again.json()["status"] in ("queued", "running")
            client.delete(f"/api/v1/jobs/{job_id}")
            assert poll(client, job_id, ("finished", "failed", "canceled"), 30)["status"] == "canceled"


def test_two_workers_share_one_surface_cell_by_cell(redis_url: str, queue_name: str, tmp_path: Path) -> None:
    """A surface is split into chunks of cells that both workers take; while it runs, its state counts the
    cells done and carries the partial result, null where a cell is not done yet."""
    request = slow_surface(4, seed=SEED + 600)
    settings = rq_settings(redis_url, queue_name)
    with (
        workers(redis_url, queue_name, tmp_path, count=2) as procs,
        TestClient(create_app(settings, mount_dashboard=False)) as client,
    ):
        first = client.post("/api/v1/surfaces", json=request).json()
        assert first["cells"] is None or first["cells"]["total"] == 16
        job_id, partials = first["job_id"], []
        deadline = time.monotonic() + 180
        body = first
        while body["status"] not in ("finished", "failed") and time.monotonic() < deadline:
            body = client.get(f"/api/v1/jobs/{job_id}").json()
            if body["partial"] is not None:
                partials.append(body)
            time.sleep(0.05)
        assert body["status"] == "finished", body
        assert body["cells"] == {"total": 16, "done": 16, "from_cache": 0}
        assert all(p["cells"]["total"] == 16 and p["cells"]["done"] > 0 for p in partials)
        halfway = [p for p in partials if p["cells"]["done"] < 16]
        assert halfway, "no partial result was seen while the surface ran"
        grid = halfway[0]["partial"]["metrics"]["mse"]
        assert sum(v is None for row in grid for v in row) == 16 - halfway[0]["cells"]["done"]
        assert [p.successful_jobs() >= 1 for p in procs] == [True, True]  # both workers computed chunks


def test_cells_are_shared_across_job_kinds(stack: tuple[TestClient, WorkerProcess]) -> None:
    client, _ = stack
    base = small(H=3, seed=SEED + 4242)
    surface = {
        "base": base,
        "x": {"param": "theta", "values": [0, 45, 90]},
        "y": {"param": "noise", "values": [0.5, 1]},
    }
    done = client.post("/api/v1/surfaces", json=surface, params={"wait": 60}).json()
    assert done["status"] == "finished" and done["cells"]["from_cache"] == 0
    cell = client.post("/api/v1/simulations", json={**base, "theta": 45, "noise": 1}).json()
    assert cell["cached"] is True and cell["result"]["mse"] == done["result"]["metrics"]["mse"][1][1]
    sweep = {"base": {**base, "noise": 0.5}, "thetas": [0, 45, 60, 90]}
    swept = client.post("/api/v1/sweeps/diversity", json=sweep, params={"wait": 60}).json()
    assert swept["status"] == "finished" and swept["cells"] == {"total": 4, "done": 4, "from_cache": 3}
    assert swept["result"]["points"][1]["mse"] == done["result"]["metrics"]["mse"][0][1]


def test_a_job_past_its_timeout_fails_with_a_reason(redis_url: str, queue_name: str, tmp_path: Path) -> None:
    settings = rq_settings(redis_url, queue_name, job_timeout_s=1)
    with workers(redis_url, queue_name, tmp_path), TestClient(create_app(settings, mount_dashboard=False)) as client:
        job_id = client.post("/api/v1/surfaces", json=overlong_surface(SEED + 55)).json()["job_id"]
        body = poll(client, job_id, ("finished", "failed", "canceled"), 60)
    assert body["status"] == "failed" and body["error"]["type"] == "timeout", body
    assert "time limit of 1 s" in body["error"]["message"]


def test_health_is_degraded_without_workers(redis_url: str, queue_name: str) -> None:
    with TestClient(create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)) as client:
        body = client.get("/api/v1/health").json()
    assert body["status"] == "degraded" and body["workers"] == 0 and body["queue"] == "rq"
    assert "no worker" in body["detail"]
