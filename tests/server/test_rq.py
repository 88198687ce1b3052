"""Scaled mode against a real Redis and real worker processes (`run_worker`, as `headdiv worker` runs it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from server.main import create_app
from tests.server.conftest import rq_settings
from tests.server.helpers import RUN_SEED as SEED
from tests.server.helpers import ServerThread, WorkerProcess, run_async, slow_surface, small, workers

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def poll(client: TestClient, job_id: str, until: tuple[str, ...], timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/jobs/{job_id}").json()
        if body["status"] in until:
            return body
        time.sleep(0.1)
    raise TimeoutError(f"job {job_id} still {body.get('status')} after {timeout} s")


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
    r = client.post("/api/v1/surfaces", json=slow_surface(6))
    assert r.status_code == 202
    job_id = r.json()["job_id"]
    seen: list[float] = []
    deadline = time.monotonic() + 180
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/jobs/{job_id}").json()
        seen.append(body["progress"])
        if body["status"] == "finished":
            break
        time.sleep(0.05)
    assert body["status"] == "finished", body
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


@pytest.mark.parametrize("retries", [1, 0])
def test_worker_sigkill_mid_job_is_retried_or_failed_quickly(
    redis_url: str, queue_name: str, tmp_path: Path, retries: int
) -> None:
    """SIGKILL the worker mid-job: with a retry left another worker finishes it; without, it is
    marked failed (abandoned) by the API's maintenance, with no worker alive. The job's own
    timeout stays at 30 minutes: only the heartbeat TTL decides how soon the loss is seen."""
    settings = rq_settings(redis_url, queue_name, job_retries=retries, job_timeout_s=1800)
    request = slow_surface(6, seed=SEED + 900 + retries)
    with TestClient(create_app(settings, mount_dashboard=False)) as client:
        victim = WorkerProcess(redis_url, queue_name, tmp_path / "victim.log")
        try:
            victim.wait_registered()
            job_id = client.post("/api/v1/surfaces", json=request).json()["job_id"]
            poll(client, job_id, ("running",), 60)
            victim.kill()
            killed_at = time.monotonic()
        finally:
            victim.stop()
        if retries:
            with workers(redis_url, queue_name, tmp_path):
                body = poll(client, job_id, ("finished", "failed"), 120)
            assert body["status"] == "finished", body
            assert body["result"]["metrics"]["mse"]
        else:
            body = poll(client, job_id, ("finished", "failed"), 120)
            assert body["status"] == "failed" and body["error"]["type"] == "abandoned", body
        assert time.monotonic() - killed_at < 120


def test_a_job_past_its_timeout_fails_with_a_reason(redis_url: str, queue_name: str, tmp_path: Path) -> None:
    settings = rq_settings(redis_url, queue_name, job_timeout_s=1)
    with workers(redis_url, queue_name, tmp_path), TestClient(create_app(settings, mount_dashboard=False)) as client:
        job_id = client.post("/api/v1/surfaces", json=slow_surface(12, replicates=64, seed=SEED + 55)).json()["job_id"]
        body = poll(client, job_id, ("finished", "failed", "canceled"), 60)
    assert body["status"] == "failed" and body["error"]["type"] == "timeout", body
    assert "time limit of 1 s" in body["error"]["message"]


def test_health_is_degraded_without_workers(redis_url: str, queue_name: str) -> None:
    with TestClient(create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)) as client:
        body = client.get("/api/v1/health").json()
    assert body["status"] == "degraded" and body["workers"] == 0 and body["queue"] == "rq"
    assert "no worker" in body["detail"]
