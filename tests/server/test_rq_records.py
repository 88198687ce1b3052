"""What RQ recorded of a failed job reaches the user as a plain reason: a crash's traceback (module paths,
class names, addresses) stays in the log."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from headdiv.server.backends.rq_records import failure_of

TRACEBACK = (
    'Traceback (most recent call last):\n  File "/srv/headdiv/workers/queue/tasks.py", line 9, in run\n'
    "headdiv.jobs.cache.result_cache.CacheUnavailable: Error 111 connecting to 10.0.0.5:6379. Connection refused.\n"
)


def _job(text: str, timeout: int = 60) -> Any:
    return SimpleNamespace(id="j1", timeout=timeout, latest_result=lambda: SimpleNamespace(exc_string=text))


def test_a_crash_is_a_plain_sentence() -> None:
    error = failure_of(_job(TRACEBACK))
    assert "headdiv." not in error.message and "10.0.0.5" not in error.message and "Error 111" not in error.message
    assert "failed in a worker" in error.message


def test_timeouts_and_lost_workers_keep_their_reasons() -> None:
    assert failure_of(_job("rq.timeouts.JobTimeoutException: Task exceeded", 7)).type == "timeout"
    assert failure_of(_job("rq.exceptions.AbandonedJobError")).type == "abandoned"


def test_a_bug_in_any_runner_is_a_plain_sentence_for_the_user() -> None:
    from headdiv.jobs.failures import describe_failure
    from headdiv.schemas.errors import EngineError

    error = describe_failure(RuntimeError("could not reach 10.0.0.5:6379 from /srv/headdiv/x.py"))
    assert "RuntimeError" not in error.message and "10.0.0.5" not in error.message and "/srv" not in error.message
    assert error.message.startswith("internal error")
    assert describe_failure(EngineError("n: too small")).message == "n: too small"  # the engine's own reasons stay


def test_a_queued_record_whose_result_is_cached_reports_the_result(redis_url: str, queue_name: str) -> None:
    """A job whose result exists reports it, whatever RQ's record still says (here: queued, no worker)."""
    from fastapi.testclient import TestClient

    from headdiv.jobs.cache.result_cache import encode_result
    from headdiv.server.main import create_app
    from headdiv.workers.runner import run_job
    from tests.server.conftest import rq_settings
    from tests.server.helpers import RUN_SEED, small

    body = small(H=2, seed=RUN_SEED + 81)
    app = create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)
    with TestClient(app) as client:
        queued = client.post("/api/v1/simulations", json=body)
        assert queued.status_code == 202 and queued.json()["status"] == "queued", queued.text
        job_id = queued.json()["job_id"]
        app.state.backend.cache.set(job_id, encode_result(run_job("simulation", body)))
        now = client.get(f"/api/v1/jobs/{job_id}")
        assert now.status_code == 200 and now.json()["status"] == "finished" and now.json()["result"]["mse"] > 0
