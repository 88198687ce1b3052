"""The one runner: computes a job and publishes its record as it goes.

Every door that computes a job calls it: the embedded backend's threads and the RQ task `run_and_publish`,
the command line and the Python API `run_job`.
The runner writes the job's state through `publish` at each step (running, progress, each cell done with
the partial result assembled from the cells so far, the outcome), so a reader never re-derives a running
job from the cache: the embedded backend keeps the last state in memory, the RQ task stores it in Redis
and announces it. A job's cells are expanded and hashed once (`Expansion`), at submission when the
submitter hands them over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

from pydantic import BaseModel

from headdiv.jobs.cache.result_cache import ResultCache, encode_result
from headdiv.jobs.cells import Expansion, expand, store
from headdiv.jobs.failures import describe_failure
from headdiv.jobs.ids import job_id
from headdiv.jobs.kinds import JobKind, job_kind
from headdiv.jobs.state import CellCount, JobError, JobState
from headdiv.schemas.fields import canonical
from headdiv.schemas.metrics import CellSummary
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.workers.assembly import assemble

if TYPE_CHECKING:
    from headdiv.workers.engine.hooks import Hooks

Publish = Callable[[JobState], None]
PUBLISH_EVERY_S = 0.2
"""Progress alone (no cell done, no partial result) is published at most this often."""
PARTIAL_EVERY_S = 0.25
"""How often a job not made of cells publishes the result its engine hands it so far."""
FRESH_S = 1.0
"""Cells looked up at submission are trusted this long; a job that waited longer looks its missing ones up again."""


@dataclass
class JobRun:
    """One job as the runner computes it."""

    job_id: str
    kind: JobKind
    request: BaseModel
    cells: Expansion | None = None
    """Its cells, expanded, hashed and looked up once (None: expanded by the runner, if it has cells)."""
    from_cache: int | None = None
    """Cells the cache held when it was submitted, if other jobs (a fan-out's chunks) computed some since."""


def ended_state(job: str, error: JobError, progress: float = 0.0, cells: CellCount | None = None) -> JobState:
    """The record of a job that ended without a result: canceled or failed, with its reason."""
    status = "canceled" if error.type == "canceled" else "failed"
    return JobState(job_id=job, status=status, progress=progress, error=error, cells=cells)


class _Record:
    """The state being published, with the throttle for progress alone."""

    def __init__(self, state: JobState, publish: Publish) -> None:
        self.state = state
        self._publish = publish
        self._last = 0.0
        publish(state)

    def update(self, *, always: bool = True, **changes: Any) -> None:
        if "progress" in changes:
            changes["progress"] = max(self.state.progress, min(1.0, float(changes["progress"])))
        self.state = self.state.model_copy(update=changes)
        now = time.monotonic()
        if always or now - self._last >= PUBLISH_EVERY_S:
            self._last = now
            self._publish(self.state)


def run_and_publish(
    job: JobRun,
    cache: ResultCache,
    publish: Publish,
    *,
    failure: Callable[[BaseException], JobError] | None = describe_failure,
    **hooks: Unpack[Hooks],
) -> JobState:
    """Compute `job`, caching its result under its id, publishing its state at each step; its final state.

    An exception ends the job with `failure(exc)` as its reason (published too); `failure=None` re-raises it."""
    record = _Record(JobState(job_id=job.job_id, status="running"), publish)
    try:
        raw = _compute(job, cache, record, hooks)
    except Exception as exc:
        if failure is None:
            raise
        record.state = ended_state(job.job_id, failure(exc), record.state.progress, record.state.cells)
        publish(record.state)
        return record.state
    cache.set(job.job_id, raw)
    record.state = JobState.finished(job.job_id, raw, cached=False, cells=record.state.cells)
    publish(record.state)
    return record.state


def _compute(job: JobRun, cache: ResultCache, record: _Record, hooks: Hooks) -> bytes:
    progress = hooks.get("progress")

    def step(fraction: float) -> None:
        record.update(progress=fraction, always=False)
        if progress:
            progress(fraction)

    work: Hooks = {**hooks, "progress": step}
    if not job.kind.made_of_cells:
        return encode_result(_run_engine(job, record, work))
    cells = job.cells if job.cells is not None else expand(job.request, cache, job.job_id)
    summaries = cells.summaries if cells.fresh(FRESH_S) else cells.refreshed(cache)
    ready = sum(s is not None for s in summaries)
    from_cache = ready if job.from_cache is None else min(job.from_cache, ready)
    count = CellCount(total=len(cells.ids), done=ready, from_cache=from_cache)
    record.update(cells=count, progress=ready / max(1, count.total))
    single = job.kind.single_cell

    def cell_done(k: int, summary: CellSummary) -> None:
        summaries[k] = summary
        done = min(count.total, (record.state.cells or count).done + 1)  # a re-simulated cell counts once
        partial = None if single else assemble(job.request, summaries).model_dump(mode="json")
        record.update(cells=count.model_copy(update={"done": done}), partial=partial)

    raw = fill_cells(cells, summaries, cache, cell_done, work)
    if single:
        raw = raw if raw is not None else cache.get(cells.ids[0])
        if raw is None:  # evicted between its lookup and now: simulate it again
            summaries[0] = None
            raw = fill_cells(cells, summaries, cache, cell_done, work)
        assert raw is not None
        return raw
    return encode_result(assemble(job.request, summaries))


def _run_engine(job: JobRun, record: _Record, hooks: Hooks) -> ResultModel:
    """A kind not made of cells: its engine runner, whose result so far is published a few times a second."""
    from headdiv.workers.engine.dispatch import runner_for  # only where jobs run: torch is loaded here

    last = [0.0]

    def partial(result: ResultModel) -> None:
        now = time.monotonic()
        if now - last[0] >= PARTIAL_EVERY_S:
            last[0] = now
            record.update(partial=result.model_dump(mode="json"))

    hooks = {**hooks, "partial": partial}
    return runner_for(job.request)(job.request, **hooks)


def fill_cells(
    cells: Expansion,
    summaries: list[CellSummary | None],
    cache: ResultCache,
    cell_done: Callable[[int, CellSummary], None] | None,
    hooks: Hooks,
) -> bytes | None:
    """Simulate the cells whose summary is None (batched by the engine), caching each as it finishes and
    filling `summaries`; `progress` counts the cells already there. Returns the last result encoded."""
    from headdiv.workers.engine.simulation import simulate_many  # only where jobs run: torch is loaded here

    missing = [k for k, s in enumerate(summaries) if s is None]
    ready, total = len(summaries) - len(missing), max(1, len(summaries))
    progress = hooks.get("progress")

    def cell_progress(fraction: float) -> None:
        if progress:
            progress((ready + fraction * len(missing)) / total)

    cell_progress(0.0)
    raw: bytes | None = None
    for j, result in simulate_many(
        [cells.scenarios[k] for k in missing],
        device=hooks.get("device"),
        dtype=hooks.get("dtype"),
        should_cancel=hooks.get("should_cancel"),
        progress=cell_progress,
    ):
        k = missing[j]
        raw, summary = store(cache, cells.ids[k], result)
        if cell_done is not None:
            cell_done(k, summary)
        else:
            summaries[k] = summary
    return raw


def run_job(
    kind: str, payload: BaseModel | dict[str, Any], cache: ResultCache | None = None, **hooks: Unpack[Hooks]
) -> ResultModel:
    """Compute one job here and return its result model (a throwaway in-memory cache unless one is given);
    what the job raised is raised (the command line and tests)."""
    from headdiv.jobs.cache.memory_cache import MemoryCache

    found = job_kind(kind)
    request = found.validate(payload)
    job = JobRun(job_id(kind, canonical(request)), found, request)
    state = run_and_publish(
        job, cache if cache is not None else MemoryCache(1 << 30), lambda state: None, failure=None, **hooks
    )
    assert state._result_json is not None
    return found.result.model_validate_json(state._result_json)
