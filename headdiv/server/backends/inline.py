"""The embedded runner: a small thread pool in this process and an in-memory job table (no Redis, no fork).

Threads, not processes: torch is loaded once, nothing is forked after it, and progress and cancel
flags are plain attributes. The table keeps recent jobs for polling; results live in the cache.
Background jobs (the server's own warm start) run one at a time in a thread of their own and pause,
between blocks of the engine's work, whenever a user's job is queued or running; a user asking for a
background job's very computation takes it over at full priority. Small jobs (`headdiv.server.admission`) run
on a thread of their own, the fast lane, so they never queue behind long ones.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial

from pydantic import BaseModel

from headdiv.jobs.cache.result_cache import ResultCache
from headdiv.jobs.cells import Expansion, pending
from headdiv.jobs.failures import UNWANTED, describe_failure, timed_out
from headdiv.jobs.kinds import JobKind, job_kind
from headdiv.jobs.state import CellCount, JobError, JobState
from headdiv.jobs.worker_info import this_process
from headdiv.schemas.errors import EngineError
from headdiv.server.admission import Admission, Claim, Speed
from headdiv.server.backends.backend_protocol import BackendHealth
from headdiv.server.backends.watch import JobWatch
from headdiv.workers import instant_reports
from headdiv.workers.runner import JobRun, run_and_publish

log = logging.getLogger(__name__)
MAX_RECORDS = 4096
"""Finished records beyond this are dropped oldest first; their results stay in the cache."""


@dataclass
class _Run:
    """A job of this process: its state as its runner last published it, what it computes, and the handles
    that stop it. Reading it never touches the cache."""

    state: JobState
    kind: JobKind
    request: BaseModel
    cells: Expansion | None = None
    """Its cells as looked up at submission (handed to the runner)."""
    cancel: threading.Event = field(default_factory=threading.Event)
    future: Future[None] | None = None
    background: bool = False
    """Low priority: pauses while users' jobs run."""
    client: str = ""
    work: float = 0.0
    """The work units it was admitted with (its cells not cached at submission)."""
    wanted_until: float | None = None
    """Computed ahead of a person: stopped once the clock passes this (each client's ask renews it); None:
    someone wants it for good (a person, or the server's own warm start)."""

    def unwanted(self) -> bool:
        return self.wanted_until is not None and time.monotonic() > self.wanted_until


def _canceled(message: str = "canceled on request") -> JobError:
    return JobError(message=message, type="canceled")


_UNWANTED = _canceled(UNWANTED)


def _outcome_only(state: JobState) -> JobState:
    """What a record keeps of a finished job: its outcome, not its result's bytes, which live in the bounded
    cache alone (thousands of records must not hold thousands of results past the cache's bound)."""
    if state.status != "finished":
        return state
    fields = {name: getattr(state, name) for name in JobState.model_fields}
    return JobState.model_construct(**{**fields, "result": None})


class InlineBackend:
    blocking_io = False
    poll_interval_s = 2.0
    """Every change is announced by the runner; this only bounds a wait should one be missed."""

    def __init__(
        self, cache: ResultCache, threads: int, timeout_s: float = 1800, admission: Admission | None = None
    ) -> None:
        self.cache = cache
        self.threads = threads
        self.timeout_s = timeout_s
        """Checked between engine steps (threads cannot be killed): a long job ends failed, as a timeout."""
        self.admission = admission or Admission(job_timeout_s=timeout_s)
        self.speed: Speed | None = None
        """This process's engine speed, once measured (all runner threads share its cores)."""
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._fast: ThreadPoolExecutor | None = None
        self._background: ThreadPoolExecutor | None = None
        self._user_jobs = 0
        self._idle = threading.Event()
        self._idle.set()
        """Set while no user's job is queued or running: background jobs run only then."""
        self.runs = 0
        """Engine runs started (tests use it to prove single flight)."""
        self.watch = JobWatch()

    def start(self) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="headdiv-job")

    def close(self) -> None:
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            run.cancel.set()
        self._idle.set()  # paused background jobs see their cancel flag
        for pool in (self._pool, self._fast, self._background):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._pool = self._fast = self._background = None
        for run in runs:  # jobs the shutdown dropped from the pool's queue still end with a reason
            if run.state.status == "queued":
                self._publish(
                    run, run.state.model_copy(update={"status": "canceled", "error": _canceled("the server shut down")})
                )

    async def cached(self, job_id: str) -> JobState | None:
        raw = self.cache.get(job_id)
        return JobState.finished(job_id, raw, cached=True) if raw is not None else None

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
        with self._lock:
            run = self._runs.get(job_id)
            if run is not None and not run.state.done:
                if not background:
                    run.wanted_until = None
                elif run.wanted_until is not None:
                    run.wanted_until = time.monotonic() + self.admission.ahead_lease_s
                if run.background and not background:
                    run.client = client
                    self._promote(run)
                return run.state
            raw = None if cache_checked else self.cache.get(job_id)
            if raw is not None:
                return JobState.finished(job_id, raw, cached=True)
            todo = pending(job_kind(kind), request, self.cache, job_id)
            if not background:
                claims = (Claim(r.client, r.work) for r in self._runs.values() if not r.state.done and not r.background)
                self.admission.check(claims, client, todo.work, self.speed)
            elif client:  # a client's anticipation, not the server's own warm start
                ahead = sum(1 for r in self._runs.values() if r.background and r.client and not r.state.done)
                self.admission.check_ahead(todo.work, self.speed, ahead)
            run = _Run(
                JobState(job_id=job_id, status="queued", cells=_count(todo.cells)),
                job_kind(kind),
                request,
                todo.cells,
                background=background,
                client=client,
                work=todo.work,
                wanted_until=time.monotonic() + self.admission.ahead_lease_s if background and client else None,
            )
            self._runs[job_id] = run
            self._runs.move_to_end(job_id)
            self._trim()
            self.runs += 1
            self._dispatch(run)
            return run.state

    def _dispatch(self, run: _Run) -> None:
        """Queue a run on its pool (caller holds the lock); a user's job holds background work back."""
        if run.background:
            if self._background is None:
                self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="headdiv-background")
            run.future = self._background.submit(self._run, run)
            return
        self._user_jobs += 1
        self._idle.clear()
        if self.admission.fast(run.work):
            if self._fast is None:
                self._fast = ThreadPoolExecutor(max_workers=1, thread_name_prefix="headdiv-fast")
            run.future = self._fast.submit(self._run, run)
            return
        if self._pool is None:
            self.start()
        assert self._pool is not None
        run.future = self._pool.submit(self._run, run)

    def _promote(self, run: _Run) -> None:
        """A user wants what a background job computes: it runs as theirs (requeued if it had not started)."""
        run.background = False
        if run.future is not None and run.future.cancel():
            self._dispatch(run)
            return
        self._user_jobs += 1
        self._idle.clear()

    def _user_job_ended(self) -> None:
        with self._lock:
            self._user_jobs -= 1
            if self._user_jobs == 0:
                self._idle.set()

    def get(self, job_id: str) -> JobState | None:
        """A job's state; a finished one's result from the bounded cache (records keep outcomes only), and
        none once the cache has let the result go: asked again, the job is computed again."""
        run = self._runs.get(job_id)
        if run is not None and run.state.status != "finished":
            return run.state
        raw = self.cache.get(job_id)
        if raw is not None:
            return JobState.finished(
                job_id, raw, cached=run.state.cached if run else True, cells=run.state.cells if run else None
            )
        if run is not None:
            with self._lock:
                self._runs.pop(job_id, None)
        return None

    def cancel(self, job_id: str) -> JobState | None:
        with self._lock:
            run = self._runs.get(job_id)
            if run is None:
                return self.get(job_id)
            if run.state.status == "queued" and run.future is not None and run.future.cancel():
                ended = {"status": "canceled", "error": _canceled("canceled on request before it started")}
                self._publish(run, run.state.model_copy(update=ended))
                if not run.background:
                    self._user_jobs -= 1
                    if self._user_jobs == 0:
                        self._idle.set()
            elif not run.state.done:
                run.cancel.set()
            return run.state

    def health(self) -> BackendHealth:
        return BackendHealth(
            ok=True,
            queue="inline",
            cache=self.cache.kind,
            workers=self.threads,
            device=_device(),
            speed=self.speed.slowest if self.speed else None,
            runners=(this_process("embedded", _device()),),
        )

    def _trim(self) -> None:
        if len(self._runs) <= MAX_RECORDS:
            return
        for key in [k for k, r in self._runs.items() if r.state.done]:
            if len(self._runs) <= MAX_RECORDS:
                break
            del self._runs[key]

    def _run(self, run: _Run) -> None:
        try:
            self._compute(run)
        finally:
            if not run.background:
                self._user_job_ended()

    def _yield_to_users(self, run: _Run) -> None:
        """A background job waits here while any user's job is queued or running."""
        while run.background and not self._idle.wait(0.1) and not run.cancel.is_set() and not run.unwanted():
            pass

    def _publish(self, run: _Run, state: JobState) -> None:
        """The runner's record of `run`: kept as the run's state, announced to its watchers."""
        previous, run.state = run.state, _outcome_only(state)
        stepped = state.cells != previous.cells or state.partial is not previous.partial
        if state.done or stepped or state.progress > previous.progress or state.status != previous.status:
            self.watch.announce(state.job_id, ended=state.done)

    def _compute(self, run: _Run) -> None:
        self._yield_to_users(run)
        if run.cancel.is_set() or run.unwanted():
            reason = _UNWANTED if run.unwanted() else _canceled()
            self._publish(run, run.state.model_copy(update={"status": "canceled", "error": reason}))
            return
        deadline = time.monotonic() + self.timeout_s

        def should_stop() -> bool:
            self._yield_to_users(run)
            stop = run.cancel.is_set() or run.unwanted()
            return stop or (not run.background and time.monotonic() > deadline)

        def failure(exc: BaseException) -> JobError:
            error = describe_failure(exc)
            if error.type == "canceled" and run.unwanted():
                error = _UNWANTED
            elif error.type == "canceled" and not run.cancel.is_set():
                error = timed_out(self.timeout_s)
            if error.type != "canceled" and error.message.startswith("internal error"):
                log.error("job %s (%s) failed", run.state.job_id, run.kind.name, exc_info=exc)
            return error

        job = JobRun(run.state.job_id, run.kind, run.request, run.cells)
        run.cells = None  # the runner owns them now
        publish = partial(self._publish, run)
        run_and_publish(job, self.cache, publish, failure=failure, should_cancel=should_stop)


def _count(cells: Expansion | None) -> CellCount | None:
    """A queued job's cells: how many the cache already held when it was submitted."""
    if cells is None:
        return None
    cached = sum(s is not None for s in cells.summaries)
    return CellCount(total=len(cells.ids), done=cached, from_cache=cached)


_DEVICE: str | None = None


def _device() -> str:
    """The device the engine resolves to here (torch is imported once, on first use)."""
    global _DEVICE
    if _DEVICE is None:
        try:
            _DEVICE = instant_reports.device_name()
        except EngineError as exc:
            return f"unavailable ({exc})"
    return _DEVICE
