"""Redis stopped mid-run: the API keeps answering (degraded health, fast 503s), then recovers.

Uses a private redis-server on a free port, never the shared one."""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from tests.conftest import need
from tests.server.conftest import rq_settings
from tests.server.helpers import RUN_SEED as SEED
from tests.server.helpers import RedisServer, slow_surface, small, workers

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    try:
        server = RedisServer(tmp_path)
    except FileNotFoundError as exc:
        need(str(exc))
    server.start()
    yield server
    server.stop()


def test_redis_stopped_mid_run(private_redis: RedisServer, tmp_path: Path) -> None:
    url = private_redis.url
    with (
        workers(url, "outage", tmp_path),
        TestClient(create_app(rq_settings(url, "outage"), mount_dashboard=False)) as client,
    ):
        before = client.post("/api/v1/simulations", json=small(H=2), params={"wait": 60}).json()
        assert before["status"] == "finished"
        assert client.get("/api/v1/health").json()["status"] == "ok"

        private_redis.stop()
        for _ in range(3):
            t0 = time.monotonic()
            health = client.get("/api/v1/health")
            assert health.status_code == 200 and health.json()["status"] == "degraded"
            submit = client.post("/api/v1/simulations", json=small(H=3), params={"wait": 5})
            assert submit.status_code == 503 and "unavailable" in submit.json()["detail"]
            # the operator's log names the Redis address and errno; the client is told neither
            port = str(private_redis.port)
            assert port not in submit.text and port not in health.text and "Errno" not in submit.text
            poll = client.get(f"/api/v1/jobs/{before['job_id']}")
            assert poll.status_code == 503
            cancel = client.delete(f"/api/v1/jobs/{before['job_id']}")
            assert cancel.status_code == 503
            assert time.monotonic() - t0 < 10  # short socket timeouts: no hang
        assert client.get("/api/v1/theory/architecture").status_code == 200  # cheap endpoints need no Redis

        private_redis.start()  # same port, empty: the API and the worker reconnect by themselves
        deadline = time.monotonic() + 60
        while client.get("/api/v1/health").json()["status"] != "ok":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        after = client.post("/api/v1/simulations", json=small(H=3), params={"wait": 60})
        if after.status_code == 202:  # the worker may still be in its reconnect back-off
            after = client.get(f"/api/v1/jobs/{after.json()['job_id']}", params={"wait": 60})
        assert after.status_code == 200 and after.json()["status"] == "finished", after.text[:300]


def test_redis_paused_mid_job_the_job_still_finishes(private_redis: RedisServer, tmp_path: Path) -> None:
    """Redis stops answering (SIGSTOP: a hung server or a network partition) while a worker runs a
    surface: the API degrades and answers 503 quickly; once Redis is back the job still finishes."""
    url = private_redis.url
    assert private_redis.proc is not None
    with (
        workers(url, "paused", tmp_path),
        TestClient(create_app(rq_settings(url, "paused"), mount_dashboard=False)) as client,
    ):
        job_id = client.post("/api/v1/surfaces", json=slow_surface(6, seed=SEED + 31)).json()["job_id"]
        deadline = time.monotonic() + 60
        while client.get(f"/api/v1/jobs/{job_id}").json()["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        private_redis.proc.send_signal(signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            assert client.get("/api/v1/health").json()["status"] == "degraded"
            assert client.get(f"/api/v1/jobs/{job_id}").status_code == 503
            assert time.monotonic() - t0 < 10
        finally:
            private_redis.proc.send_signal(signal.SIGCONT)
        body = client.get(f"/api/v1/jobs/{job_id}", params={"wait": 60}).json()
        while body["status"] in ("queued", "running") and time.monotonic() < deadline + 120:
            body = client.get(f"/api/v1/jobs/{job_id}", params={"wait": 30}).json()
        assert body["status"] == "finished", body
        assert len(body["result"]["metrics"]["mse"]) == 4


def test_a_job_accepted_before_redis_restarted_empty_is_enqueued_again(
    private_redis: RedisServer, tmp_path: Path
) -> None:
    """Redis restarted without persistence forgets a queued job: the API that accepted it (202) enqueues it
    again from its normalised request when asked, instead of answering 404 from then on; it then finishes."""
    url = private_redis.url
    app = create_app(rq_settings(url, "lost"), mount_dashboard=False)
    with TestClient(app) as client:
        accepted = client.post("/api/v1/simulations", json=small(H=2, seed=SEED + 61))
        assert accepted.status_code == 202, accepted.text  # no worker yet: it waits in the queue
        job_id = accepted.json()["job_id"]
        private_redis.stop()
        private_redis.start()  # same port, empty
        deadline = time.monotonic() + 30
        while (again := client.get(f"/api/v1/jobs/{job_id}")).status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.1)  # the API's connection notices the restart
        assert again.status_code == 202 and again.json()["status"] == "queued", again.text  # not 404
        with workers(url, "lost", tmp_path):
            done = client.get(f"/api/v1/jobs/{job_id}", params={"wait": 60}).json()
        assert done["status"] == "finished", done


def test_a_full_redis_costs_no_worker_and_no_job(private_redis: RedisServer, tmp_path: Path) -> None:
    """The queue's Redis at maxmemory with `noeviction` refuses writes while a surface runs: the worker waits
    and comes back (before: it exited for good, its name still registered), the surface ends (finished, or
    failed with a reason), and once memory is freed a new job runs."""
    import redis

    url = private_redis.url
    admin = redis.Redis.from_url(url)
    app = create_app(rq_settings(url, "full"), mount_dashboard=False)
    with workers(url, "full", tmp_path) as (proc,), TestClient(app) as client:
        surface = client.post("/api/v1/surfaces", json=slow_surface(cells=8, seed=SEED + 71))
        job_id = surface.json()["job_id"]
        deadline = time.monotonic() + 60
        while client.get(f"/api/v1/jobs/{job_id}").json()["status"] != "running" and time.monotonic() < deadline:
            time.sleep(0.1)
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + (1 << 20))
        with contextlib.suppress(redis.exceptions.OutOfMemoryError):
            for i in range(1000):
                admin.set(f"junk:{i}", b"x" * (64 << 10))
        deadline = time.monotonic() + 60  # the worker meets the full Redis at its next write, and waits
        while "Redis unusable" not in proc.log_path.read_text() and time.monotonic() < deadline:
            assert proc.proc.poll() is None, proc.log_path.read_text()[-2000:]
            time.sleep(0.2)
        assert "Redis unusable" in proc.log_path.read_text()
        admin.delete(*[f"junk:{i}" for i in range(1000)])
        admin.config_set("maxmemory", 0)
        ended = client.get(f"/api/v1/jobs/{job_id}", params={"wait": 60}).json()
        deadline = time.monotonic() + 120
        while ended["status"] in ("queued", "running") and time.monotonic() < deadline:
            ended = client.get(f"/api/v1/jobs/{job_id}", params={"wait": 30}).json()
        assert ended["status"] == "finished" or (ended["status"] == "failed" and ended["error"]["message"]), ended
        assert proc.proc.poll() is None, "the worker lives on"
        after = client.post("/api/v1/simulations", params={"wait": 60}, json=small(H=2, seed=SEED + 72))
        assert after.json()["status"] == "finished", after.text
        # the names the full Redis kept registered are gone: health counts the one worker there is
        assert client.get("/api/v1/health").json()["workers"] == 1
