"""Computing a job, the same way in every runner (the inline thread pool, an RQ worker, the CLI).

A job kind made of cells (simulations) is computed by looking every cell up in the cache first,
simulating only the missing ones (batched by the engine where their shapes agree), caching each as it
finishes, and assembling the kind's result from the cells' summaries. `snapshot` is the view of a
running job that any process can build from the cache alone: how many cells are done, and the result
assembled from them so far.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

from pydantic import BaseModel

from headdiv.workers.jobs.cache.base import ResultCache, encode_result
from headdiv.workers.jobs.cells import Summary, cached_summaries, cell_id, store
from headdiv.workers.jobs.ids import canonical_payload, job_id
from headdiv.workers.jobs.kinds import JobKind
from headdiv.workers.jobs.state import CellCount
from headdiv.workers.schemas import Scenario
from headdiv.workers.schemas.requests import CellsRequest

if TYPE_CHECKING:  # the engine's hook type; the engine itself is imported only where jobs run
    from headdiv.workers.engine.hooks import Hooks

PARTIAL_EVERY_S = 0.25
"""How often a running job of a kind not made of cells publishes its result so far."""


def partial_key(job: str) -> str:
    """Where a running job of a kind not made of cells keeps its result so far (any process may read it)."""
    return f"{job}.partial"


def _publisher(kind: JobKind, request: BaseModel, cache: ResultCache) -> Callable[[dict[str, Any]], None]:
    """Stores the engine's result so far under the job's partial key, a few times a second at most."""
    key, last = partial_key(job_id(kind.name, canonical_payload(request))), [0.0]

    def publish(result: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - last[0] >= PARTIAL_EVERY_S:
            last[0] = now
            cache.set(key, encode_result(result))

    return publish


@dataclass(frozen=True)
class Outcome:
    raw: bytes
    """The job's result, encoded (what the cache and the API hold)."""
    cells: CellCount | None


def fill_cells(
    cells: list[Scenario], ids: list[str], summaries: list[Summary | None], cache: ResultCache, **hooks: Unpack[Hooks]
) -> bytes | None:
    """Simulate the cells whose summary is None (batched), caching each as it finishes and filling
    `summaries` in place; `progress` counts the cells already there. Returns the last result encoded."""
    from headdiv.workers.engine.simulation import simulate_many  # only where jobs run: torch is loaded here

    missing = [k for k, s in enumerate(summaries) if s is None]
    ready, total = len(cells) - len(missing), max(1, len(cells))
    progress = hooks.get("progress")

    def cell_progress(fraction: float) -> None:
        if progress:
            progress((ready + fraction * len(missing)) / total)

    cell_progress(0.0)
    raw: bytes | None = None
    for j, result in simulate_many(
        [cells[k] for k in missing],
        device=hooks.get("device"),
        dtype=hooks.get("dtype"),
        should_cancel=hooks.get("should_cancel"),
        progress=cell_progress,
    ):
        raw, summaries[missing[j]] = store(cache, ids[missing[j]], result)
    return raw


def compute(
    kind: JobKind,
    payload: BaseModel | dict[str, Any],
    cache: ResultCache,
    on_cells: Callable[[CellCount], None] | None = None,
    **hooks: Unpack[Hooks],
) -> Outcome:
    """Compute one job of `kind`; its cells (if any) are read from and written to `cache` one by one.
    `on_cells` hears how many cells there are and how many were cached, before any is computed."""
    request = kind.validate(payload)
    if not kind.made_of_cells:
        from headdiv.workers.engine.runners import runner_for  # only where jobs run: torch is loaded here

        hooks["partial"] = _publisher(kind, request, cache)
        return Outcome(encode_result(runner_for(request)(request, **hooks)), None)
    cells: list[Scenario] = request.scenarios()  # type: ignore[attr-defined]
    ids = [cell_id(c) for c in cells]
    summaries = cached_summaries(cache, ids)
    from_cache = sum(s is not None for s in summaries)
    count = CellCount(total=len(cells), done=len(cells), from_cache=from_cache)
    if on_cells:
        on_cells(count.model_copy(update={"done": from_cache}))
    single = fill_cells(cells, ids, summaries, cache, **hooks)
    if kind.single_cell:
        raw = single if single is not None else cache.get(ids[0])
        if raw is not None:
            return Outcome(raw, count)
        return compute(kind, request, cache, on_cells, **hooks)  # evicted between lookup and read: simulate again
    return Outcome(encode_result(assemble(request, summaries)), count)


def assemble(request: BaseModel, summaries: list[Summary | None]) -> dict[str, Any]:
    """A multi-cell job's result from its cells' summaries (the engine's assembly is torch-free, so the
    API builds a running job's partial result with it)."""
    from headdiv.workers.engine.assemble import assembler_for

    if not isinstance(request, CellsRequest):
        raise TypeError(f"{type(request).__name__} is not made of cells")
    return assembler_for(request)(request, summaries)


def running_partial(kind: JobKind, request: BaseModel, cache: ResultCache) -> dict[str, Any] | None:
    """The result so far that a running job of a kind not made of cells published (None before its first)."""
    raw = cache.get(partial_key(job_id(kind.name, canonical_payload(request))))
    return json.loads(raw) if raw else None


def snapshot(
    kind: JobKind, payload: BaseModel | dict[str, Any], cache: ResultCache, from_cache: int | None
) -> tuple[CellCount, dict[str, Any] | None]:
    """A running multi-cell job as the cache shows it: cells done so far, and its result assembled from them."""
    request = kind.validate(payload)
    ids = [cell_id(c) for c in request.scenarios()]  # type: ignore[attr-defined]
    summaries = cached_summaries(cache, ids)
    done = sum(s is not None for s in summaries)
    count = CellCount(total=len(ids), done=done, from_cache=done if from_cache is None else min(from_cache, done))
    partial = assemble(request, summaries) if not kind.single_cell and done else None
    return count, partial


def run_job(
    kind: str, payload: BaseModel | dict[str, Any], cache: ResultCache | None = None, **hooks: Unpack[Hooks]
) -> dict[str, Any]:
    """Compute one job and return its result (a throwaway in-memory cache unless one is given)."""
    from headdiv.workers.jobs.cache.memory import MemoryCache
    from headdiv.workers.jobs.kinds import job_kind

    result: dict[str, Any] = json.loads(
        compute(job_kind(kind), payload, cache if cache is not None else MemoryCache(1 << 30), **hooks).raw
    )
    return result
