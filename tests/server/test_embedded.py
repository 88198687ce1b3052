"""The embedded default: in-process runner and in-memory cache, running the real engine."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings, rq_settings
from tests.server.helpers import RUN_SEED as SEED
from tests.server.helpers import ServerThread, overlong_surface, run_async, slow_surface, small, watch_surface


def wait_done(client: TestClient, job_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/jobs/{job_id}", params={"wait": 5}).json()
        if body["status"] in ("finished", "failed", "canceled"):
            return body
    raise TimeoutError(job_id)


def test_health_reports_embedded_mode(client: TestClient) -> None:
    body = client.get("/api/v1/health").json()
    assert body["status"] == "ok" and body["cache"] == "memory" and body["queue"] == "inline"
    assert body["device"] == "cpu" and body["workers"] >= 1 and body["version"]


def test_simulation_runs_and_second_request_is_a_cache_hit(client: TestClient) -> None:
    scenario = small(H=3, theta=30.0)
    first = client.post("/api/v1/simulations", json=scenario, params={"wait": 60})
    assert first.status_code == 200, first.text
    job = first.json()
    assert job["status"] == "finished" and job["cached"] is False and job["progress"] == 1.0
    result = job["result"]
    parts = result["bias2"] + result["variance"] + result["covariance"]
    assert abs(result["mse"] - parts) <= 1e-6 * max(1.0, abs(result["mse"]))
    assert result["scenario"]["H"] == 3 and len(result["heads"]) == 3
    again = client.post("/api/v1/simulations", json=scenario)  # no wait: answered from the cache at once
    assert again.status_code == 200
    assert again.json()["cached"] is True and again.json()["result"] == result
    assert again.json()["job_id"] == job["job_id"]
    assert client.app.state.backend.runs == 1  # type: ignore[attr-defined]


def test_progress_is_visible_while_a_surface_runs(client: TestClient) -> None:
    body, seen = watch_surface(client)
    assert any(0 < p < 1 for p in seen), seen
    assert seen == sorted(seen)  # progress never goes back
    metrics = body["result"]["metrics"]
    assert len(metrics["mse"]) == 4 and len(metrics["mse"][0]) == 6


def test_cancel_a_running_surface(client: TestClient) -> None:
    job_id = client.post("/api/v1/surfaces", json=slow_surface(6, seed=SEED + 12345)).json()["job_id"]
    deadline = time.monotonic() + 60
    while client.get(f"/api/v1/jobs/{job_id}").json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    r = client.delete(f"/api/v1/jobs/{job_id}")
    assert r.status_code in (200, 202)
    body = wait_done(client, job_id)
    assert body["status"] == "canceled" and body["error"]["type"] == "canceled" and body["result"] is None
    # a canceled job is not cached: asking again runs it afresh
    again = client.post("/api/v1/surfaces", json=slow_surface(6, seed=SEED + 12345)).json()
    assert again["status"] in ("queued", "running") and again["cached"] is False
    client.delete(f"/api/v1/jobs/{job_id}")


def test_wait_until_progress_answers_with_the_first_cells(client: TestClient) -> None:
    """`?wait=&until=progress` holds a submission only until the job moves on: a surface answers with its
    first cells (partial, nulls where not done) long before its end, and `until=end` waits for the end."""
    request = slow_surface(6, seed=SEED + 777)
    first = client.post("/api/v1/surfaces", json=request, params={"wait": 60, "until": "progress"})
    assert first.status_code == 202, first.text
    body = first.json()
    assert body["status"] == "running" and 0 < body["cells"]["done"] < body["cells"]["total"] == 24
    grid = body["partial"]["metrics"]["mse"]
    assert sum(v is None for row in grid for v in row) == 24 - body["cells"]["done"]
    ended = client.get(f"/api/v1/jobs/{body['job_id']}", params={"wait": 60, "until": "end"}).json()
    assert ended["status"] == "finished" and ended["cells"]["done"] == 24
    bad = client.post("/api/v1/surfaces", json=request, params={"until": "soon"})
    assert bad.status_code == 422 and "until" in bad.text


def test_single_flight_100_concurrent_requests_run_the_engine_once() -> None:
    app = create_app(embedded_settings(), mount_dashboard=False)
    scenario = small(H=2, seed=SEED + 1)

    async def burst(url: str) -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:
            return await asyncio.gather(
                *(c.post("/api/v1/simulations", json=scenario, params={"wait": 60}) for _ in range(100))
            )

    with ServerThread(app) as server:
        responses = run_async(burst(server.url))
    assert [r.status_code for r in responses] == [200] * 100
    bodies = [r.json() for r in responses]
    assert len({b["job_id"] for b in bodies}) == 1
    assert all(b["status"] == "finished" for b in bodies)
    assert len({r.content.split(b'"result":', 1)[1] for r in responses}) == 1  # one result, byte for byte
    assert app.state.backend.runs == 1


def test_a_job_past_its_timeout_fails_with_a_reason() -> None:
    with TestClient(create_app(embedded_settings(job_timeout_s=1), mount_dashboard=False)) as c:
        r = c.post("/api/v1/surfaces", json=overlong_surface(SEED + 56), params={"wait": 60})
        body = r.json()
    assert r.status_code == 200 and body["status"] == "failed", body
    assert body["error"]["type"] == "timeout" and "time limit of 1 s" in body["error"]["message"]


@pytest.mark.parametrize("scaled", [False, True])
def test_engine_warm_up_runs_only_where_jobs_run(
    scaled: bool, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Embedded, the API computes and compiles the engine at start-up; scaled, the workers do, and the
    API must not spend a core compiling what it never runs."""
    import threading

    from headdiv.server import main

    settings = (
        rq_settings(request.getfixturevalue("redis_url"), "hdtest-warm", warm_up=True)
        if scaled
        else embedded_settings(warm_up=True)
    )
    called = threading.Event()
    monkeypatch.setattr(main, "start_up", lambda backend, settings, activity, stopped: called.set())
    with TestClient(create_app(settings, mount_dashboard=False)) as c:
        assert c.get("/api/v1/health").status_code == 200
        assert called.wait(2.0) is not scaled


def test_responses_are_compressed_for_clients_that_accept_it() -> None:
    """The dashboard's bundles and large API answers travel gzip-compressed; tiny answers are left as they are."""
    import gzip
    import re

    with TestClient(create_app(embedded_settings())) as c:
        page = c.get("/")
        bundle = re.search(r'src="(/_dash-component-suites/[^"]*dash_core_components\.[^"]*\.js)"', page.text)
        assert bundle, page.text[:500]
        zipped = c.get(bundle.group(1), headers={"Accept-Encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip" and "max-age" in zipped.headers["cache-control"]
        raw = c.get(bundle.group(1), headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in raw.headers and zipped.content == raw.content  # httpx decodes it
        assert int(raw.headers["content-length"]) > 3 * len(gzip.compress(raw.content))
        result = c.post("/api/v1/simulations?wait=60", json=small(), headers={"Accept-Encoding": "gzip"})
        assert result.headers["content-encoding"] == "gzip" and result.json()["status"] == "finished"
        assert "content-encoding" not in c.get("/api/v1/health", headers={"Accept-Encoding": "gzip"}).headers
