"""Scaled mode: results in Redis, jobs on an RQ queue run by `headdiv worker` processes.

Single flight across API processes: the result cache is read first, then the RQ job of the same id;
only when neither holds the answer does one submitter, holding a short Redis claim, enqueue it.
Every Redis call has a short timeout and becomes `BackendUnavailable` (503), never a hang or a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import weakref

from pydantic import BaseModel
from redis.asyncio import Redis as AsyncRedis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from rq import Queue, Worker
from rq.exceptions import InvalidJobOperation
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from headdiv.jobs import worker_info
from headdiv.jobs.cache.redis_cache import RedisCache
from headdiv.jobs.cache.result_cache import CacheUnavailable
from headdiv.jobs.cells import cell_id, pending
from headdiv.jobs.keys import admitted_key, cancel_key, claim_key, record_entry, result_key, speed_key
from headdiv.jobs.kinds import job_kind
from headdiv.jobs.redis_client import connect
from headdiv.jobs.rq_conventions import worker_device
from headdiv.jobs.state import CellCount, JobError, JobState
from headdiv.server.admission import Admission, Claim, Speed
from headdiv.server.backends.accepted import Accepted, AcceptedJobs
from headdiv.server.backends.backend_protocol import BackendHealth, BackendUnavailable
from headdiv.server.backends.rq_fanout import PENDING, FanOut
from headdiv.server.backends.rq_records import ended_state, failure_of
from headdiv.server.backends.rq_upkeep import Upkeep
from headdiv.server.backends.watch import JobWatch
from headdiv.server.server_settings import ServerSettings
from headdiv.workers.assembly import snapshot

log = logging.getLogger(__name__)
CLAIM_TTL_S = 10
SPEED_FRESH_S = 5.0
"""How long the API trusts the runners' speeds it read (they change when workers come and go)."""

ENDED = {JobStatus.FINISHED, JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


class RQBackend(Upkeep, FanOut):
    blocking_io = True
    poll_interval_s = 1.0
    """Runners announce their changes on Redis pub/sub; without news a long-poll re-reads this often (what RQ
    itself records, such as a worker lost mid-job, is never announced)."""

    def __init__(self, settings: ServerSettings) -> None:
        assert settings.redis_url is not None
        self.settings = settings
        self.redis = connect(settings.redis_url, settings.redis_socket_timeout_s)
        cache_url = settings.cache_redis_url or settings.redis_url
        cache_client = (
            self.redis if cache_url == settings.redis_url else connect(cache_url, settings.redis_socket_timeout_s)
        )
        self.cache = RedisCache(cache_client, settings.cache_ttl_s)
        self.queue, self.fast_queue, self.low_queue = (
            Queue(name, connection=self.redis, serializer=JSONSerializer, default_timeout=settings.job_timeout_s)
            for name in (settings.queue_name, settings.fast_queue_name, settings.low_queue_name)
        )
        self.admission = Admission.from_settings(settings)
        self._speed: tuple[float, Speed | None] = (-SPEED_FRESH_S, None)
        self._async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncRedis] = (
            weakref.WeakKeyDictionary()
        )
        self._stop = threading.Event()
        self._maintenance: threading.Thread | None = None
        self._listener: threading.Thread | None = None
        self._requests: dict[str, tuple[BaseModel, list[str]]] = {}
        self.watch, self.accepted = JobWatch(), AcceptedJobs()

    # -- lifecycle: start() and close() from Upkeep -------------------------------------------
    async def aclose(self) -> None:
        """Close the async cache client of the running loop (called at the end of the app's lifespan)."""
        client = self._async_clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()

    # -- jobs ----------------------------------------------------------------------------------
    async def cached(self, job_id: str) -> JobState | None:
        """One async GET on the result cache: no worker thread, no job record (the cache-hit path)."""
        client = self._async_cache_client()
        try:
            raw = await client.get(result_key(job_id))
        except (RedisError, OSError) as exc:
            raise BackendUnavailable("the result cache is unreachable") from exc
        return JobState.finished(job_id, raw, cached=True) if isinstance(raw, bytes) else None

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

    def submit(
        self,
        kind: str,
        request: BaseModel,
        job_id: str,
        *,
        background: bool = False,
        client: str = "",
        cache_checked: bool = False,
    ) -> JobState:
        try:
            raw = None if cache_checked else self.cache.get(job_id)  # the common case first: one round trip
            if raw is not None:
                return JobState.finished(job_id, raw, cached=True)
            found = self._lookup(job_id, submitting=True)
            if found is not None:
                # a client asking ahead again keeps a job computed ahead alive; a person keeps it for good
                self.want(job_id, self.admission.ahead_lease_s if background else self.settings.job_timeout_s + 60)
                if not background and found.status == "queued":
                    self._promote(job_id)
                return found
            if not self.redis.set(claim_key(job_id), b"1", nx=True, ex=CLAIM_TTL_S):
                return JobState(job_id=job_id, status="queued")  # another submitter is enqueueing this very job
            try:
                found = self._lookup(job_id, submitting=True)  # it may have been enqueued meanwhile
                if found is not None:
                    return found
                todo = pending(job_kind(kind), request, self.cache, job_id)
                if background:
                    if client:  # a client's anticipation, not the warm start
                        self.admission.check_ahead(todo.work, self.speed(), self.low_queue.count)
                    queue = self.low_queue
                else:
                    self.admission.check(self._claims(), client, todo.work, self.speed())
                    queue = self.fast_queue if self.admission.fast(todo.work) else self.queue
                if lease := background and bool(client):
                    self.lease(job_id, self.admission.ahead_lease_s)
                self._enqueue(kind, request, job_id, queue, todo, client, lease)
                self.accepted.add(job_id, Accepted(kind, request, client, background))
            finally:
                self.redis.delete(claim_key(job_id))
        except (RedisError, CacheUnavailable) as exc:
            raise BackendUnavailable("the job queue is unreachable") from exc
        return JobState(job_id=job_id, status="queued")

    def _claims(self) -> list[Claim]:
        """Work admitted and not ended, per client. Kept beside RQ's records rather than read from its lists,
        which a job leaves for a moment between being dequeued and being marked started; its status is
        what tells whether it ended."""
        key = admitted_key(self.queue.name)
        entries = {_text(k): v for k, v in self.redis.hgetall(key).items()}
        if not entries:
            return []
        with self.redis.pipeline(transaction=False) as pipe:
            for job_id in entries:
                pipe.hget(Job.key_for(job_id), "status")
            statuses = pipe.execute()
        claims, ended = [], []
        for (job_id, entry), status in zip(entries.items(), statuses, strict=True):
            if status is None or JobStatus(_text(status)) in ENDED:
                ended.append(job_id)
            else:
                client, work = json.loads(entry)
                claims.append(Claim(str(client), float(work)))
        if ended:
            self.redis.hdel(key, *ended)
        return claims

    def speed(self) -> Speed | None:
        """The live workers' measured speeds (each publishes its own; see `headdiv.workers.queue.worker`), re-read
        every few seconds; None until one has measured."""
        read_at, speed = self._speed
        now = time.monotonic()
        if now - read_at < SPEED_FRESH_S:
            return speed
        names = {w.name for q in (self.queue, self.fast_queue) for w in Worker.all(connection=self.redis, queue=q)}
        values = [float(v) for v in self.redis.mget([speed_key(n) for n in sorted(names)]) if v] if names else []
        speed = Speed(slowest=min(values), total=sum(values)) if values else None
        self._speed = (now, speed)
        return speed

    def _record(self, job: Job) -> JobState | None:
        """The state this run's runner last published (None before it started, or from an earlier run)."""
        raw = self.cache.get(record_entry(job.id))
        if raw is None:
            return None
        found = json.loads(raw)
        if found.get("run") != (job.meta or {}).get("run"):
            return None
        record, job_id = JobState.model_validate(found["state"]), job.id
        if record.status == "finished":  # ended a moment ago, before RQ marked it so: its result is cached
            result = self.cache.get(job_id)
            return JobState.finished(job_id, result, cached=False, cells=record.cells) if result else None
        return record

    def _view(self, job: Job, state: JobState) -> JobState:
        """A job not ended: as its runner last published it; a fanned-out job whose chunks compute its cells
        elsewhere, as the cache shows it (running once any chunk runs, with its cells and partial result)."""
        meta = job.meta or {}
        kind = job_kind(str(meta.get("kind")))
        if state.done:
            return state
        record = self._record(job) if state.status == "running" else None
        if record is not None:
            return record
        if not kind.made_of_cells or kind.single_cell:
            return state
        request, ids = self._request(job)
        cells, partial = snapshot(kind, request, self.cache, meta.get("from_cache"), ids)
        status = state.status
        if status == "queued" and meta.get("chunks") and (cells.done > cells.from_cache or self._chunk_started(meta)):
            status = "running"
        progress = max(state.progress, cells.done / max(1, cells.total))
        return state.model_copy(update={"status": status, "progress": progress, "cells": cells, "partial": partial})

    def _cells(self, job: Job) -> CellCount | None:
        """A multi-cell job's cells as the cache shows them: its result may be cached (its last chunk
        assembled it) a moment before RQ marks the job itself ended, and its state says its cells then too."""
        meta = job.meta or {}
        kind = job_kind(str(meta.get("kind")))
        if not kind.made_of_cells or kind.single_cell:
            return None
        request, ids = self._request(job)
        return snapshot(kind, request, self.cache, meta.get("from_cache"), ids)[0]

    def _request(self, job: Job) -> tuple[BaseModel, list[str]]:
        """The job's validated request and its cells' ids (validated, expanded and hashed once per job and
        kept: a large surface has many cells)."""
        found = self._requests.get(job.id)
        if found is None:
            kind, payload = job.args
            request = job_kind(kind).validate(payload)
            ids = [cell_id(c) for c in request.scenarios()]  # type: ignore[attr-defined]
            found = self._requests[job.id] = (request, ids)
            while len(self._requests) > 64:
                self._requests.pop(next(iter(self._requests)))
        return found

    def get(self, job_id: str) -> JobState | None:
        try:
            found = self._lookup(job_id, submitting=False)
            if found is None and (lost := self.accepted.pop(job_id)) is not None:  # Redis lost it: again
                log.warning("job %s was lost by the queue (Redis restarted empty?); enqueued again", job_id)
                return self.submit(lost.kind, lost.request, job_id, background=lost.background, client=lost.client)
            return found
        except (RedisError, CacheUnavailable) as exc:
            raise BackendUnavailable("the job queue is unreachable") from exc

    def _lookup(self, job_id: str, *, submitting: bool) -> JobState | None:
        """The job's state; when submitting, None also for runs that should be started afresh."""
        job = self._fetch(job_id)
        if job is None:
            raw = self.cache.get(job_id)
            return JobState.finished(job_id, raw, cached=True) if raw is not None else None
        status = job.get_status(refresh=False)
        progress = float((job.meta or {}).get("progress", 0.0))
        if status in PENDING:
            if (raw := self.cache.get(job_id)) is not None:  # computed meanwhile: a record left queued says less
                return JobState.finished(job_id, raw, cached=True, cells=self._cells(job))
            if submitting and status == JobStatus.DEFERRED and self._orphaned(job):
                return None  # it waits for chunk jobs that no longer exist: run it afresh
            return self._view(job, JobState(job_id=job_id, status="queued", progress=progress))
        if status == JobStatus.STARTED:
            return self._view(job, JobState(job_id=job_id, status="running", progress=progress))
        if status == JobStatus.FINISHED:
            ended = ended_state(job)
            if ended is None or ended.status == "finished":
                raw = self.cache.get(job_id)
                if raw is not None:
                    return JobState.finished(job_id, raw, cached=submitting, cells=ended.cells if ended else None)
                if submitting:
                    return None  # the result left the cache: run it again
                expired = JobError(message="the result expired; submit the request again")
                return JobState(job_id=job_id, status="failed", progress=1.0, error=expired)
            return None if submitting else ended
        if submitting:  # failed, canceled or stopped: a new request runs it again
            return None
        if status in (JobStatus.CANCELED, JobStatus.STOPPED):
            error = JobError(message="canceled on request", type="canceled")
            return JobState(job_id=job_id, status="canceled", progress=progress, error=error)
        return JobState(job_id=job_id, status="failed", progress=progress, error=failure_of(job))

    def cancel(self, job_id: str) -> JobState | None:
        try:
            job = self._fetch(job_id)
            if job is None:
                return self.get(job_id)
            status = job.get_status(refresh=False)
            if status in PENDING or status == JobStatus.STARTED:
                # the flag first: a worker that dequeues the job a moment from now still sees it
                self.redis.set(cancel_key(job_id), b"1", ex=self.settings.job_timeout_s + 60)
            self._cancel_chunks(job)
            if status in PENDING:
                with contextlib.suppress(InvalidJobOperation):
                    job.cancel()
        except RedisError as exc:
            raise BackendUnavailable("the job queue is unreachable") from exc
        return self.get(job_id)

    def health(self) -> BackendHealth:
        try:
            self.redis.ping()
            workers = {w.name: w for q in (self.queue, self.fast_queue) for w in Worker.all(self.redis, queue=q)}
            main = Worker.count(connection=self.redis, queue=self.queue)
            cache_ok = self.cache.ping()
            speed = self.speed()
        except RedisError as exc:
            log.warning("health: redis unreachable: %s", exc)  # the address for the operator, not the client
            return BackendHealth(False, "rq", "redis", 0, "unknown", detail="redis unreachable")
        devices = sorted({d for name in workers if (d := worker_device(name))})
        problems = [] if cache_ok else ["result cache unreachable"]
        if not main:
            problems.append(
                f"no worker listens on queue {self.queue.name!r}: new jobs will wait (run `headdiv worker`)"
            )
        return BackendHealth(
            not problems,
            "rq",
            "redis",
            len(workers),
            ",".join(devices) or "none",
            detail="; ".join(problems),
            speed=speed.slowest if speed else None,
            runners=tuple(worker_info.read_all(self.redis, list(workers))),
        )


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
