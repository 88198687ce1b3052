"""The embedded runner keeps outcomes, not results: a finished job's result lives only in the bounded cache,
so memory stays within HEADDIV_CACHE_MAX_BYTES however many jobs ran, and a result the cache let go is not
served from anywhere else (asked again, it is computed again)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings
from tests.server.helpers import RUN_SEED, small


def test_records_hold_no_results_and_an_evicted_result_is_not_served() -> None:
    settings = embedded_settings(cache_max_bytes=64 << 10)
    with TestClient(create_app(settings, mount_dashboard=False)) as client:
        ids = []
        for k in range(12):
            resp = client.post("/api/v1/simulations", params={"wait": 30}, json=small(H=8, seed=RUN_SEED + 100 + k))
            assert resp.status_code == 200 and resp.json()["status"] == "finished", resp.text
            ids.append(resp.json()["job_id"])
        backend = client.app.state.backend  # type: ignore[attr-defined]
        records = [backend._runs[i].state for i in ids if i in backend._runs]
        assert records and all(r._result_json is None and r.result is None for r in records)
        assert backend.cache.size_bytes <= 64 << 10
        first = client.get(f"/api/v1/jobs/{ids[0]}")
        assert first.status_code == 404, first.text[:200]  # evicted: gone, not served from a record
        last = client.get(f"/api/v1/jobs/{ids[-1]}")
        assert last.status_code == 200 and last.json()["result"]["mse"] > 0
        again = client.post("/api/v1/simulations", params={"wait": 30}, json=small(H=8, seed=RUN_SEED + 100))
        assert again.json()["job_id"] == ids[0] and again.json()["status"] == "finished"
