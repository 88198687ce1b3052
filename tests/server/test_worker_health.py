"""GET /api/v1/health lists each runner of jobs with its device and memory: a real `headdiv worker` process
(scaled, on the CPU here), or the API process itself (embedded)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from headdiv.workers.queue.device_info import describe_memory, device_probe
from tests.server.conftest import rq_settings
from tests.server.helpers import workers


def test_the_embedded_health_lists_its_own_process(client: TestClient) -> None:
    body = client.get("/api/v1/health").json()
    assert body["queue"] == "inline" and len(body["worker_details"]) == 1, body
    (me,) = body["worker_details"]
    assert me["name"] == "embedded" and me["device"] == body["device"]
    assert me["rss_bytes"] > 10 << 20 and me["reported_at"] > time.time() - 60


def test_a_cpu_probe_names_the_cpu_and_reports_no_gpu_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEADDIV_DEVICE", "cpu")
    from headdiv.schemas.engine_settings import get_engine_settings

    get_engine_settings.cache_clear()
    device_probe.cache_clear()
    try:
        probe = device_probe()
        assert (probe.kind, probe.index, probe.label) == ("cpu", None, "cpu")
        assert probe.memory() == (None, None) and describe_memory(probe.memory()) == ""
    finally:
        get_engine_settings.cache_clear()
        device_probe.cache_clear()
    assert describe_memory((80 << 30, 79 << 30)) == ", 80.0 GiB GPU memory (79.0 GiB free)"


@pytest.mark.redis
@pytest.mark.slow
def test_health_shows_each_workers_device_and_memory(redis_url: str, queue_name: str, tmp_path: Path) -> None:
    """Two workers on the CPU: both listed by name with device 'cpu', their resident memory and a recent
    heartbeat; a worker that stops disappears from the list."""
    app = create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)
    with TestClient(app) as client, workers(redis_url, queue_name, tmp_path, count=2) as procs:
        body: dict[str, Any] = client.get("/api/v1/health").json()
        assert body["status"] == "ok" and body["workers"] == 2, body
        details = body["worker_details"]
        assert sorted(w["name"].rsplit(".", 1)[1] for w in details) == sorted(str(p.proc.pid) for p in procs)
        for w in details:
            assert w["name"].startswith("headdiv.cpu.") and w["device"] == "cpu", w
            assert w["memory_total_bytes"] is None and w["memory_free_bytes"] is None
            assert w["rss_bytes"] > 50 << 20, w  # torch is loaded
            assert time.time() - 60 < w["reported_at"] <= time.time() + 1
        first = details[0]["reported_at"]
        time.sleep(3)  # heartbeats every 2 s here (maintenance_interval_s): the report is refreshed
        again = client.get("/api/v1/health").json()["worker_details"]
        assert again[0]["reported_at"] > first, again
        procs[0].stop()
        left = client.get("/api/v1/health").json()
    assert [w["name"].endswith(f".{procs[1].proc.pid}") for w in left["worker_details"]] == [True], left
