"""Scaled mode's fan-out: a job made of many cells is enqueued as chunk jobs any worker may take, and the job
itself waits for them (RQ dependencies); a user asking for what the warm start queued moves it ahead."""

from __future__ import annotations

import contextlib
import json
import secrets
from typing import Any

from pydantic import BaseModel
from redis import Redis
from rq import Queue, Retry, Worker
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Dependency, Job, JobStatus
from rq.serializers import JSONSerializer

from headdiv.jobs.cells import Pending, plan_chunks
from headdiv.jobs.keys import admitted_key, cancel_key, wanted_key
from headdiv.jobs.kinds import job_kind
from headdiv.jobs.rq_conventions import CELLS_TASK, TASK
from headdiv.schemas.fields import canonical
from headdiv.server.server_settings import ServerSettings

PENDING = {
    JobStatus.QUEUED,
    JobStatus.DEFERRED,
    JobStatus.SCHEDULED,
    JobStatus.CREATED,
    JobStatus.RATE_LIMITED,
    JobStatus.READY_TO_ENQUEUE,
}


class FanOut:
    """The queue side of `RQBackend`: enqueueing (fanned out when made of cells), promotion and chunks."""

    settings: ServerSettings
    redis: Redis
    queue: Queue
    fast_queue: Queue
    low_queue: Queue

    def lease(self, job_id: str, seconds: float) -> None:
        """A job computed ahead of a person lives `seconds` unless someone asks for it again (`want`)."""
        self.redis.set(wanted_key(job_id), b"1", px=max(1, int(seconds * 1000)))

    def want(self, job_id: str, seconds: float) -> None:
        """Someone wants `job_id` for at least `seconds` more: a leased job's time is extended, never
        shortened (one command, a no-op for a job without a lease: no key is made for it)."""
        self.redis.pexpire(wanted_key(job_id), max(1, int(seconds * 1000)), gt=True)

    def _enqueue(
        self, kind: str, request: BaseModel, job_id: str, queue: Queue, todo: Pending, client: str, lease: bool = False
    ) -> None:
        """Enqueue the job; a job made of cells not cached yet is fanned out: its missing cells go to chunk
        jobs that any worker may take (RQ's batch enqueue), and the job itself waits for them (RQ dependencies,
        failures allowed: it computes any cell a lost chunk left, then assembles its result)."""
        old = self._fetch(job_id)
        if old is not None:  # an old failed/canceled/expired run gives way to the new one
            self._cancel_chunks(old)
            with contextlib.suppress(NoSuchJobError, ValueError):  # its execution records may be gone already
                old.delete()
        self.redis.delete(cancel_key(job_id))
        s = self.settings
        common: dict[str, Any] = {
            "timeout": s.job_timeout_s,
            "result_ttl": s.result_ttl_s,
            "failure_ttl": s.result_ttl_s,
            "retry": Retry(max=s.job_retries) if s.job_retries else None,
        }
        meta: dict[str, Any] = {"progress": 0.0, "kind": kind, "run": secrets.token_hex(8), "lease": lease}
        if queue is not self.low_queue:  # a user's job: counted against the bounds until it ends
            admitted = admitted_key(self.queue.name)
            self.redis.hset(admitted, job_id, json.dumps([client, todo.work]))
            self.redis.expire(admitted, s.job_timeout_s + s.result_ttl_s)
        chunks: list[Job] = []
        if job_kind(kind).made_of_cells and not job_kind(kind).single_cell:
            missing = todo.missing
            meta["from_cache"] = len(request.scenarios()) - len(missing)  # type: ignore[attr-defined]
            tag = secrets.token_hex(4)
            data = [
                Queue.prepare_data(
                    CELLS_TASK,
                    args=(job_id, [canonical(missing[k]) for k in part]),
                    job_id=f"{job_id}-{tag}-{n}",
                    meta={"progress": 0.0, "kind": "cells", "parent": job_id, "lease": lease},
                    description=f"{kind} {job_id[:12]}: {len(part)} cells",
                    **common,
                )
                for n, part in enumerate(plan_chunks(missing, self._chunk_count()))
            ]
            chunks = queue.enqueue_many(data) if data else []
            meta["chunks"] = [c.id for c in chunks]
        queue.enqueue(
            TASK,
            args=(kind, canonical(request)),
            job_id=job_id,
            job_timeout=common["timeout"],
            result_ttl=common["result_ttl"],
            failure_ttl=common["failure_ttl"],
            retry=common["retry"],
            depends_on=Dependency(jobs=chunks, allow_failure=True) if chunks else None,
            meta=meta,
            description=f"{kind} {job_id[:12]}",
        )

    def _promote(self, job_id: str) -> None:
        """A user asks for what the warm start queued at low priority: its queued work (the job itself, or the
        chunks a deferred job waits for) moves to the main queue, so it does not wait behind the rest of the
        warm start. `remove` succeeding is what makes the move safe: a worker that dequeued the job first keeps
        it, and it is not enqueued twice. A deferred job's own assembly stays on the low queue (quick)."""
        job = self._fetch(job_id)
        if job is None or job.origin != self.low_queue.name:
            return
        for queued in [job, *filter(None, (self._fetch(c) for c in (job.meta or {}).get("chunks", [])))]:
            if queued.get_status(refresh=False) == JobStatus.QUEUED and self.low_queue.remove(queued.id):
                self.queue.enqueue_job(queued)

    def _chunk_count(self) -> int:
        """Chunks to split a job into: two per worker listening (so a slow chunk is not alone), at least two."""
        return max(2, 2 * Worker.count(connection=self.redis, queue=self.queue))

    def _cancel_chunks(self, job: Job) -> None:
        for chunk in Job.fetch_many(
            list((job.meta or {}).get("chunks", [])), connection=self.redis, serializer=JSONSerializer
        ):
            if chunk is not None and chunk.get_status(refresh=False) in PENDING:
                with contextlib.suppress(InvalidJobOperation):
                    chunk.cancel()

    def _orphaned(self, job: Job) -> bool:
        chunks = list((job.meta or {}).get("chunks", []))
        found = Job.fetch_many(chunks, connection=self.redis, serializer=JSONSerializer)
        return bool(chunks) and all(c is None for c in found)

    def _chunk_started(self, meta: dict[str, Any]) -> bool:
        chunks = Job.fetch_many(list(meta.get("chunks", [])), connection=self.redis, serializer=JSONSerializer)
        return any(c is not None and c.get_status(refresh=False) == JobStatus.STARTED for c in chunks)

    def _fetch(self, job_id: str) -> Job | None:
        try:
            return Job.fetch(job_id, connection=self.redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return None
