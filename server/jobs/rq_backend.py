"""Scaled mode: results in Redis, jobs on an RQ queue run by `headdiv worker` processes.

Single flight across API processes: the result cache is read first, then the RQ job of the same id;
only when neither holds the answer does one submitter, holding a short Redis claim, enqueue it.
Every Redis call has a short timeout and becomes `BackendUnavailable` (503), never a hang or a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from typing import Any

from redis.asyncio import Redis as AsyncRedis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from rq import Queue, Retry, Worker
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import clean_registries
from rq.serializers import JSONSerializer
from rq.worker_registration import clean_worker_registry

from server.cache.base import CacheUnavailable
from server.cache.redis_cache import RedisCache
from server.jobs.backend import BackendHealth
from server.jobs.keys import cancel_key, claim_key, result_key
from server.jobs.models import JobError
from server.jobs.state import BackendUnavailable, JobState
from server.redis_client import connect
from server.settings import ServerSettings

log = logging.getLogger(__name__)
TASK = "workers.queue.tasks.run"
CLAIM_TTL_S = 10
PENDING = {
    JobStatus.QUEUED,
    JobStatus.DEFERRED,
    JobStatus.SCHEDULED,
    JobStatus.CREATED,
    JobStatus.RATE_LIMITED,
    JobStatus.READY_TO_ENQUEUE,
}


def _worker_device(name: str) -> str | None:
    """Workers are named `headdiv.<device>.<host>.<pid>` (see workers.queue.worker)."""
    parts = name.split(".")
    return parts[1] if len(parts) >= 3 and parts[0] == "headdiv" else None


class RQBackend:
    blocking_io = True
    poll_interval_s = 0.1

    def __init__(self, settings: ServerSettings) -> None:
        assert settings.redis_url is not None
        self.settings = settings
        self.redis = connect(settings.redis_url, settings.redis_socket_timeout_s)
        cache_url = settings.cache_redis_url or settings.redis_url
        cache_client = (
            self.redis if cache_url == settings.redis_url else connect(cache_url, settings.redis_socket_timeout_s)
        )
        self.cache = RedisCache(cache_client, settings.cache_ttl_s)
        self.queue = Queue(
            settings.queue_name,
            connection=self.redis,
            serializer=JSONSerializer,
            default_timeout=settings.job_timeout_s,
        )
        self._async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncRedis] = (
            weakref.WeakKeyDictionary()
        )
        self._stop = threading.Event()
        self._maintenance: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the maintenance thread: abandoned jobs are retried or failed even with no worker left."""
        if self._maintenance is None:
            self._maintenance = threading.Thread(target=self._maintain, name="headdiv-rq-maintenance", daemon=True)
            self._maintenance.start()

    def close(self) -> None:
        self._stop.set()
        if self._maintenance is not None:
            self._maintenance.join(timeout=5)
            self._maintenance = None

    async def aclose(self) -> None:
        """Close the async cache client of the running loop (called at the end of the app's lifespan)."""
        client = self._async_clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()

    def _maintain(self) -> None:
        while not self._stop.wait(self.settings.maintenance_interval_s):
            try:
                self.clean_once()
            except RedisError as exc:
                log.debug("maintenance skipped: %s", exc)
            except Exception:
                log.exception("maintenance failed")

    def clean_once(self) -> None:
        """What an RQ worker's maintenance does, taken under the same lock so only one process does it."""
        if self.queue.acquire_maintenance_lock():
            try:
                clean_registries(self.queue)
                clean_worker_registry(self.queue)
            finally:
                self.queue.release_maintenance_lock()

    # -- jobs ----------------------------------------------------------------------------------
    async def cached(self, job_id: str) -> JobState | None:
        """One async GET on the result cache: no worker thread, no job record (the cache-hit path)."""
        client = self._async_cache_client()
        try:
            raw = await client.get(result_key(job_id))
        except (RedisError, OSError) as exc:
            raise BackendUnavailable(f"the result cache is unreachable: {exc}") from exc
        return JobState(job_id, "finished", 1.0, True, raw) if isinstance(raw, bytes) else None

    def _async_cache_client(self) -> AsyncRedis:
        """redis.asyncio connections belong to one event loop: one client per running loop."""
        loop = asyncio.get_running_loop()
        client = self._async_clients.get(loop)
        if client is None:
            url = self.settings.cache_redis_url or self.settings.redis_url
            assert url is not None
            timeout = self.settings.redis_socket_timeout_s
            client = AsyncRedis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=AsyncRetry(NoBackoff(), 1)
            )
            self._async_clients[loop] = client
        return client

    def submit(self, kind: str, payload: dict[str, Any], job_id: str) -> JobState:
        try:
            raw = self.cache.get(job_id)  # the common case first: one round trip for a cache hit
            if raw is not None:
                return JobState(job_id, "finished", 1.0, True, raw)
            found = self._lookup(job_id, submitting=True)
            if found is not None:
                return found
            if not self.redis.set(claim_key(job_id), b"1", nx=True, ex=CLAIM_TTL_S):
                return JobState(job_id, "queued")  # another submitter is enqueueing this very job
            try:
                found = self._lookup(job_id, submitting=True)  # it may have been enqueued meanwhile
                if found is not None:
                    return found
                self._enqueue(kind, payload, job_id)
            finally:
                self.redis.delete(claim_key(job_id))
        except (RedisError, CacheUnavailable) as exc:
            raise BackendUnavailable(f"the job queue is unreachable: {exc}") from exc
        return JobState(job_id, "queued")

    def _enqueue(self, kind: str, payload: dict[str, Any], job_id: str) -> None:
        with contextlib.suppress(NoSuchJobError):  # an old failed/canceled/expired run gives way to the new one
            Job.fetch(job_id, connection=self.redis, serializer=JSONSerializer).delete()
        self.redis.delete(cancel_key(job_id))
        s = self.settings
        self.queue.enqueue(
            TASK,
            args=(kind, payload),
            job_id=job_id,
            job_timeout=s.job_timeout_s,
            result_ttl=s.result_ttl_s,
            failure_ttl=s.result_ttl_s,
            retry=Retry(max=s.job_retries) if s.job_retries else None,
            meta={"progress": 0.0, "kind": kind},
            description=f"{kind} {job_id[:12]}",
        )

    def get(self, job_id: str) -> JobState | None:
        try:
            return self._lookup(job_id, submitting=False)
        except (RedisError, CacheUnavailable) as exc:
            raise BackendUnavailable(f"the job queue is unreachable: {exc}") from exc

    def _lookup(self, job_id: str, *, submitting: bool) -> JobState | None:
        """The job's state; when submitting, None also for runs that should be started afresh."""
        job = self._fetch(job_id)
        if job is None:
            raw = self.cache.get(job_id)
            return JobState(job_id, "finished", 1.0, True, raw) if raw is not None else None
        status = job.get_status(refresh=False)
        progress = float((job.meta or {}).get("progress", 0.0))
        if status in PENDING:
            return JobState(job_id, "queued", progress)
        if status == JobStatus.STARTED:
            return JobState(job_id, "running", progress)
        if status == JobStatus.FINISHED:
            outcome = job.return_value(refresh=False) or {}
            kind = outcome.get("outcome") if isinstance(outcome, dict) else None
            if kind == "finished" or kind is None:
                raw = self.cache.get(job_id)
                if raw is not None:
                    return JobState(job_id, "finished", 1.0, submitting, raw)
                if submitting:
                    return None  # the result left the cache: run it again
                return JobState(
                    job_id, "failed", 1.0, error=JobError(message="the result expired; submit the request again")
                )
            if submitting:
                return None
            error = JobError.model_validate(outcome.get("error") or {"message": "failed"})
            return JobState(job_id, "canceled" if kind == "canceled" else "failed", progress, error=error)
        if submitting:  # failed, canceled or stopped: a new request runs it again
            return None
        if status in (JobStatus.CANCELED, JobStatus.STOPPED):
            return JobState(
                job_id, "canceled", progress, error=JobError(message="canceled on request", type="canceled")
            )
        return JobState(job_id, "failed", progress, error=_failure(job))

    def _fetch(self, job_id: str) -> Job | None:
        try:
            return Job.fetch(job_id, connection=self.redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return None

    def cancel(self, job_id: str) -> JobState | None:
        try:
            job = self._fetch(job_id)
            if job is None:
                return self.get(job_id)
            status = job.get_status(refresh=False)
            if status in PENDING or status == JobStatus.STARTED:
                # the flag first: a worker that dequeues the job a moment from now still sees it
                self.redis.set(cancel_key(job_id), b"1", ex=self.settings.job_timeout_s + 60)
            if status in PENDING:
                with contextlib.suppress(InvalidJobOperation):
                    job.cancel()
        except RedisError as exc:
            raise BackendUnavailable(f"the job queue is unreachable: {exc}") from exc
        return self.get(job_id)

    def health(self) -> BackendHealth:
        try:
            self.redis.ping()
            workers = Worker.all(connection=self.redis, queue=self.queue)
            cache_ok = self.cache.ping()
        except RedisError as exc:
            return BackendHealth(False, "rq", "redis", 0, "unknown", detail=f"redis unreachable: {exc}")
        devices = sorted({d for w in workers if (d := _worker_device(w.name))})
        problems = [] if cache_ok else ["result cache unreachable"]
        if not workers:
            problems.append(
                f"no worker listens on queue {self.queue.name!r}: new jobs will wait (run `headdiv worker`)"
            )
        ok = not problems
        return BackendHealth(ok, "rq", "redis", len(workers), ",".join(devices) or "none", detail="; ".join(problems))


def _failure(job: Job) -> JobError:
    """RQ's record of a failed job, as a short reason: timeout, lost worker, or the exception's last line."""
    result = job.latest_result()
    text = (result.exc_string if result is not None else None) or ""
    if "JobTimeoutException" in text:
        return JobError(message=f"the job ran past its time limit of {job.timeout} s", type="timeout")
    if "AbandonedJobError" in text or "terminated unexpectedly" in text:
        return JobError(message="the worker running this job stopped (crashed or was killed)", type="abandoned")
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return JobError(message=lines[-1] if lines else "the job failed", type="error")
