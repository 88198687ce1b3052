"""The function RQ runs for every job: compute, publish progress, honour cancel, cache the result.

Expected outcomes (finished, failed for a reason the user can act on, canceled) are *returned*, as the
job's `JobState` without its result, so RQ's `Retry` is spent only on what it is for: a crash, a lost
worker, an unreachable cache. The result itself goes to the result cache, not to RQ's result store,
so it is stored once.
"""

from __future__ import annotations

import json
import logging
import time
from functools import lru_cache
from typing import Any

from redis.exceptions import RedisError
from rq import get_current_job
from rq.job import Job
from rq.timeouts import JobTimeoutException

from headdiv.jobs.cache.redis_cache import RedisCache
from headdiv.jobs.cache.result_cache import CacheUnavailable
from headdiv.jobs.cells import Expansion, cached_summaries, cell_id
from headdiv.jobs.failures import UNWANTED, describe_failure, timed_out
from headdiv.jobs.job_settings import get_job_settings
from headdiv.jobs.keys import EVENTS, cancel_key, record_entry, wanted_key
from headdiv.jobs.kinds import job_kind
from headdiv.jobs.redis_client import connect
from headdiv.jobs.state import JobError, JobState, JobStatus
from headdiv.schemas import Scenario
from headdiv.workers.runner import JobRun, fill_cells, run_and_publish

log = logging.getLogger(__name__)
PUBLISH_EVERY_S = 0.2
CANCEL_EVERY_S = 0.25


@lru_cache(maxsize=1)
def _cache() -> RedisCache:
    settings = get_job_settings()
    url = settings.cache_redis_url or settings.redis_url
    if url is None:
        raise RuntimeError("REDIS_URL (or CACHE_REDIS_URL) must be set for a queue worker")
    return RedisCache(connect(url, max(5.0, settings.redis_socket_timeout_s)), settings.cache_ttl_s)


class _JobHooks:
    """Progress into `job.meta` and the cancel flags out of Redis, both throttled to a few per second.

    `also` names other jobs whose cancel flag stops this one too (a chunk stops with its parent). The job's
    time limit is checked here too: RQ's alarm only interrupts Python between bytecodes, so the engine's own
    checks (between blocks of attention scores) are what end a long run on time."""

    def __init__(self, job: Job, also: tuple[str, ...] = ()) -> None:
        self.job = job
        self.flags = [cancel_key(job.id), *(cancel_key(other) for other in also)]
        meta = job.meta or {}
        self.lease = wanted_key(meta.get("parent") or job.id) if meta.get("lease") else None
        """Computed ahead of a person: stops once no one wants it (the key is gone)."""
        self.unwanted = False
        self.deadline = time.monotonic() + job.timeout if job.timeout and job.timeout > 0 else None
        self._last_progress = 0.0
        self._last_check = 0.0
        self._canceled = False

    def progress(self, value: float) -> None:
        now = time.monotonic()
        if value < 1.0 and now - self._last_progress < PUBLISH_EVERY_S:
            return
        self._last_progress = now
        self.job.meta["progress"] = max(0.0, min(1.0, float(value)))
        try:
            self.job.save_meta()
        except RedisError as exc:  # progress is best effort: a Redis blip must not fail the job
            log.warning("progress of job %s not published: %s", self.job.id, exc)

    def canceled(self) -> JobError:
        """Why the job stopped before it started: on request, or no one wants it any more."""
        return JobError(message=UNWANTED if self.unwanted else "canceled on request", type="canceled")

    def timed_out(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def should_cancel(self) -> bool:
        if self.timed_out():
            return True
        now = time.monotonic()
        if not self._canceled and now - self._last_check >= CANCEL_EVERY_S:
            self._last_check = now
            try:
                self._canceled = bool(self.job.connection.exists(*self.flags))
                if self.lease is not None and not self._canceled:
                    self._canceled = self.unwanted = not self.job.connection.exists(self.lease)
            except RedisError as exc:  # cannot tell: keep working, and ask again at the next step
                log.warning("cancel flag of job %s unreadable: %s", self.job.id, exc)
        return self._canceled


def _outcome(job: Job, status: JobStatus, error: JobError | None = None) -> dict[str, Any]:
    progress = 1.0 if status == "finished" else float((job.meta or {}).get("progress", 0.0))
    state = JobState(job_id=job.id, status=status, progress=progress, error=error)
    return state.model_dump(mode="json")


def _current() -> Job:
    job = get_current_job()
    if job is None:
        raise RuntimeError("headdiv.workers.queue.tasks must run inside an RQ worker")
    return job


class _Record:
    """Publishes what the runner writes: the state into the result cache (the API reads it while the job runs)
    and a word on the events channel, so the API's long-polls wake at once."""

    def __init__(self, job: Job, cache: RedisCache) -> None:
        self.job = job
        self.cache = cache

    def publish(self, state: JobState) -> None:
        # tagged with this run's token: a record left by an earlier run of the same job id is never read
        record = {"run": (self.job.meta or {}).get("run"), "state": state.model_dump(mode="json", exclude={"result"})}
        try:
            self.cache.set(record_entry(self.job.id), json.dumps(record).encode())
        except CacheUnavailable as exc:  # the record is best effort: the result is what must be stored
            log.warning("record of job %s not published: %s", self.job.id, exc)
        announce(self.job, self.job.id, ended=state.done)


def announce(job: Job, about: str, *, ended: bool) -> None:
    """Tell the API processes that job `about` changed (best effort: they also re-read now and then)."""
    try:
        job.connection.publish(EVENTS, f"{about} {'ended' if ended else 'stepped'}")
    except RedisError as exc:
        log.warning("change of job %s not announced: %s", about, exc)


def run(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Run one job (the cells its chunks left, then its result) through the one runner; returns its final
    `JobState` as JSON, without the result, which goes to the cache (an unreachable cache raises, and RQ
    retries the job; so does a crash, whose traceback RQ records)."""
    job, cache = _current(), _cache()
    hooks = _JobHooks(job)
    if hooks.should_cancel():
        return _outcome(job, "canceled", hooks.canceled())
    found = job_kind(kind)

    def failure(exc: BaseException) -> JobError:
        if isinstance(exc, JobTimeoutException) or hooks.timed_out():
            return timed_out(float(job.timeout or 0))
        error = hooks.canceled() if hooks.unwanted else describe_failure(exc)
        if error.message.startswith("internal error") or isinstance(exc, CacheUnavailable):
            raise exc  # a bug or a crash: let RQ record the traceback and spend a retry on it
        return error

    try:
        request = found.validate(payload)
    except Exception as exc:
        return _outcome(job, "failed", failure(exc))
    record = _Record(job, cache)
    submitted = (job.meta or {}).get("from_cache")  # its chunks cached the rest: what counts is before them
    state = run_and_publish(
        JobRun(job.id, found, request, from_cache=None if submitted is None else int(submitted)),
        cache,
        record.publish,
        failure=failure,
        progress=hooks.progress,
        should_cancel=hooks.should_cancel,
    )
    hooks.progress(1.0 if state.status == "finished" else state.progress)
    return state.model_dump(mode="json", exclude={"result"})


def run_cells(parent: str, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """One chunk of a job fanned out across workers: simulate these cells (those not cached yet), caching each
    and announcing it as a step of the parent. It stops when its parent job is canceled."""
    job, cache = _current(), _cache()
    hooks = _JobHooks(job, also=(parent,))
    if hooks.should_cancel():
        return _outcome(job, "canceled", hooks.canceled())
    try:
        scenarios = [Scenario.model_validate(c) for c in cells]
        ids = [cell_id(s) for s in scenarios]
        summaries = cached_summaries(cache, ids)
        fill_cells(
            Expansion(scenarios, ids, summaries),
            summaries,
            cache,
            lambda k, summary: announce(job, parent, ended=False),
            {"progress": hooks.progress, "should_cancel": hooks.should_cancel},
        )
    except JobTimeoutException:
        return _outcome(job, "failed", timed_out(float(job.timeout or 0)))
    except Exception as exc:
        error = timed_out(float(job.timeout or 0)) if hooks.timed_out() else describe_failure(exc)
        error = hooks.canceled() if hooks.unwanted else error
        if error.message.startswith("internal error"):
            raise  # a bug or a crash: let RQ record the traceback and spend a retry on it
        return _outcome(job, "canceled" if error.type == "canceled" else "failed", error)
    hooks.progress(1.0)
    return _outcome(job, "finished")
