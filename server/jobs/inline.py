"""The embedded runner: a small thread pool in this process and an in-memory job table (no Redis, no fork).

Threads, not processes: torch is loaded once, nothing is forked after it, and progress and cancel
flags are plain attributes. The table keeps recent jobs for polling; results live in the cache.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from server.cache.base import ResultCache, encode_result
from server.jobs.backend import BackendHealth
from server.jobs.failures import describe_failure
from server.jobs.models import JobError, JobStatus
from server.jobs.state import JobState

log = logging.getLogger(__name__)
MAX_RECORDS = 4096
"""Finished records beyond this are dropped oldest first; their results stay in the cache."""


@dataclass
class _Record:
    job_id: str
    kind: str
    payload: dict[str, Any]
    status: JobStatus = "queued"
    progress: float = 0.0
    result_json: bytes | None = None
    error: JobError | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    future: Future[None] | None = None

    def state(self, *, cached: bool = False) -> JobState:
        return JobState(self.job_id, self.status, self.progress, cached, self.result_json, self.error)


class InlineBackend:
    blocking_io = False
    poll_interval_s = 0.02

    def __init__(self, cache: ResultCache, threads: int, timeout_s: float = 1800) -> None:
        self.cache = cache
        self.threads = threads
        self.timeout_s = timeout_s
        """Checked between engine steps (threads cannot be killed): a long job ends failed, as a timeout."""
        self._records: OrderedDict[str, _Record] = OrderedDict()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.runs = 0
        """Engine runs started (tests use it to prove single flight)."""

    def start(self) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="headdiv-job")

    def close(self) -> None:
        with self._lock:
            records = list(self._records.values())
        for rec in records:
            rec.cancel.set()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for rec in records:  # jobs the shutdown dropped from the pool's queue still end with a reason
            if rec.status == "queued":
                rec.status, rec.error = "canceled", JobError(message="the server shut down", type="canceled")

    async def cached(self, job_id: str) -> JobState | None:
        raw = self.cache.get(job_id)
        return JobState(job_id, "finished", 1.0, True, raw) if raw is not None else None

    def submit(self, kind: str, payload: dict[str, Any], job_id: str) -> JobState:
        with self._lock:
            rec = self._records.get(job_id)
            if rec is not None and rec.status in ("queued", "running"):
                return rec.state()
            raw = self.cache.get(job_id)
            if raw is not None:
                return JobState(job_id, "finished", 1.0, True, raw)
            rec = _Record(job_id, kind, payload)
            self._records[job_id] = rec
            self._records.move_to_end(job_id)
            self._trim()
            self.runs += 1
            if self._pool is None:
                self.start()
            assert self._pool is not None
            rec.future = self._pool.submit(self._run, rec)
            return rec.state()

    def get(self, job_id: str) -> JobState | None:
        rec = self._records.get(job_id)
        if rec is not None:
            return rec.state()
        raw = self.cache.get(job_id)
        return JobState(job_id, "finished", 1.0, True, raw) if raw is not None else None

    def cancel(self, job_id: str) -> JobState | None:
        with self._lock:
            rec = self._records.get(job_id)
            if rec is None:
                return self.get(job_id)
            if rec.status == "queued" and rec.future is not None and rec.future.cancel():
                rec.status = "canceled"
                rec.error = JobError(message="canceled on request before it started", type="canceled")
            elif rec.status in ("queued", "running"):
                rec.cancel.set()
            return rec.state()

    def health(self) -> BackendHealth:
        return BackendHealth(ok=True, queue="inline", cache=self.cache.kind, workers=self.threads, device=_device())

    def _trim(self) -> None:
        if len(self._records) <= MAX_RECORDS:
            return
        for key in [k for k, r in self._records.items() if r.status not in ("queued", "running")]:
            if len(self._records) <= MAX_RECORDS:
                break
            del self._records[key]

    def _run(self, rec: _Record) -> None:
        from workers.engine import run_job

        if rec.cancel.is_set():
            rec.status, rec.error = "canceled", JobError(message="canceled on request", type="canceled")
            return
        rec.status = "running"

        def progress(p: float) -> None:
            rec.progress = max(rec.progress, min(1.0, float(p)))

        deadline = time.monotonic() + self.timeout_s

        def should_stop() -> bool:
            return rec.cancel.is_set() or time.monotonic() > deadline

        try:
            result = run_job(rec.kind, rec.payload, progress=progress, should_cancel=should_stop)
            raw = encode_result(result)
        except Exception as exc:
            error = describe_failure(exc)
            if error.type == "canceled" and not rec.cancel.is_set():
                error = JobError(message=f"the job ran past its time limit of {self.timeout_s} s", type="timeout")
            if error.type != "canceled" and error.message.startswith("internal error"):
                log.exception("job %s (%s) failed", rec.job_id, rec.kind)
            rec.error = error
            rec.status = "canceled" if error.type == "canceled" else "failed"
            return
        self.cache.set(rec.job_id, raw)
        rec.result_json = raw
        rec.progress = 1.0
        rec.status = "finished"


_DEVICE: str | None = None


def _device() -> str:
    """The device the engine resolves to here (torch is imported once, on first use)."""
    global _DEVICE
    if _DEVICE is None:
        from workers.engine import EngineError
        from workers.engine.device import resolve_device

        try:
            _DEVICE = str(resolve_device(None))
        except EngineError as exc:
            return f"unavailable ({exc})"
    return _DEVICE
