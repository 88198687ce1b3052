"""The function RQ runs for every job: compute, publish progress, honour cancel, cache the result.

Expected outcomes (finished, failed for a reason the user can act on, canceled) are *returned*, so
RQ's `Retry` is spent only on what it is for: a crash, a lost worker, an unreachable cache.
The result itself goes to the result cache, not to RQ's result store, so it is stored once.
"""

from __future__ import annotations

import logging
import time
from functools import lru_cache
from typing import Any

from redis.exceptions import RedisError
from rq import get_current_job
from rq.job import Job
from rq.timeouts import JobTimeoutException

from server.cache.base import encode_result
from server.cache.redis_cache import RedisCache
from server.jobs.failures import describe_failure
from server.jobs.keys import cancel_key
from server.redis_client import connect
from server.settings import get_server_settings

log = logging.getLogger(__name__)
PROGRESS_EVERY_S = 0.2
CANCEL_EVERY_S = 0.25


@lru_cache(maxsize=1)
def _cache() -> RedisCache:
    settings = get_server_settings()
    url = settings.cache_redis_url or settings.redis_url
    if url is None:
        raise RuntimeError("REDIS_URL (or CACHE_REDIS_URL) must be set for a queue worker")
    return RedisCache(connect(url, max(5.0, settings.redis_socket_timeout_s)), settings.cache_ttl_s)


class _JobHooks:
    """Progress into `job.meta` and the cancel flag out of Redis, both throttled to a few per second."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self._last_progress = 0.0
        self._last_check = 0.0
        self._canceled = False

    def progress(self, value: float) -> None:
        now = time.monotonic()
        if value < 1.0 and now - self._last_progress < PROGRESS_EVERY_S:
            return
        self._last_progress = now
        self.job.meta["progress"] = max(0.0, min(1.0, float(value)))
        try:
            self.job.save_meta()
        except RedisError as exc:  # progress is best effort: a Redis blip must not fail the job
            log.warning("progress of job %s not published: %s", self.job.id, exc)

    def should_cancel(self) -> bool:
        now = time.monotonic()
        if not self._canceled and now - self._last_check >= CANCEL_EVERY_S:
            self._last_check = now
            try:
                self._canceled = bool(self.job.connection.exists(cancel_key(self.job.id)))
            except RedisError as exc:  # cannot tell: keep working, and ask again at the next step
                log.warning("cancel flag of job %s unreadable: %s", self.job.id, exc)
        return self._canceled


def run(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Run one job; returns `{outcome: finished|failed|canceled, error: {message, type} | null}`."""
    from workers.engine import run_job

    job = get_current_job()
    if job is None:
        raise RuntimeError("workers.queue.tasks.run must run inside an RQ worker")
    hooks = _JobHooks(job)
    if hooks.should_cancel():
        return {"outcome": "canceled", "error": {"message": "canceled on request", "type": "canceled"}}
    try:
        result = run_job(kind, payload, progress=hooks.progress, should_cancel=hooks.should_cancel)
        raw = encode_result(result)
    except JobTimeoutException:
        timeout = job.timeout
        message = f"the job ran past its time limit of {timeout} s; ask for less work or raise HEADDIV_JOB_TIMEOUT_S"
        return {"outcome": "failed", "error": {"message": message, "type": "timeout"}}
    except Exception as exc:
        error = describe_failure(exc)
        if error.message.startswith("internal error"):
            raise  # a bug or a crash: let RQ record the traceback and spend a retry on it
        outcome = "canceled" if error.type == "canceled" else "failed"
        return {"outcome": outcome, "error": error.model_dump()}
    _cache().set(job.id, raw)  # unreachable cache: raises, and RQ retries the job
    hooks.progress(1.0)
    return {"outcome": "finished", "error": None}
