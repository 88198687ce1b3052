"""Cells: the simulations a job is made of, each cached once, under the key `POST /simulations` uses.

A surface, a sweep or an architecture comparison is a list of scenarios (`request.scenarios()`). Each
is cached as a simulation in its own right: its full result under its simulation job id (so a later
`POST /simulations` of it is a cache hit), and beside it a small summary (`CELL_SUMMARY`), which is all
a multi-cell job's result needs. A job therefore computes only the cells no job computed before it,
keeps the cells it finished if it is stopped, and shows a partial result built from the cells done so
far, whichever process computed them.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from pydantic import BaseModel

from headdiv.jobs.cache.result_cache import ResultCache, encode_result
from headdiv.jobs.ids import job_id
from headdiv.jobs.kinds import JobKind
from headdiv.schemas import Scenario
from headdiv.schemas.fields import canonical
from headdiv.schemas.metrics import CELL_SUMMARY, CellSummary
from headdiv.schemas.results.simulation_results import SimulationResult


def cell_id(s: Scenario) -> str:
    """The job id of simulating `s` alone: a cell's cache key."""
    return job_id("simulation", canonical(s))


def summary_key(cell: str) -> str:
    return f"{cell}.summary"


def summarize(result: SimulationResult) -> CellSummary:
    return {k: getattr(result, k) for k in CELL_SUMMARY}


def store(cache: ResultCache, cell: str, result: SimulationResult) -> tuple[bytes, CellSummary]:
    """Cache a computed cell: its full result and its summary. Returns the encoded result and the summary."""
    raw = encode_result(result)
    summary = summarize(result)
    cache.set(cell, raw)
    cache.set(summary_key(cell), encode_result(summary))
    return raw, summary


def cached_summaries(cache: ResultCache, ids: list[str]) -> list[CellSummary | None]:
    """Each cell's summary, None for a cell not cached; a cell cached without its summary is summarised once."""
    summaries: list[CellSummary | None] = [
        json.loads(raw) if raw else None for raw in cache.get_many([summary_key(i) for i in ids])
    ]
    lost = [k for k, s in enumerate(summaries) if s is None]
    for k, raw in zip(lost, cache.get_many([ids[k] for k in lost]), strict=True):
        if raw is not None:
            summaries[k] = summarize(SimulationResult.model_validate_json(raw))
            cache.set(summary_key(ids[k]), encode_result(summaries[k]))  # type: ignore[arg-type]
    return summaries


@dataclass
class Expansion:
    """A job's cells, expanded from its request, hashed and looked up in the cache once."""

    scenarios: list[Scenario]
    ids: list[str]
    summaries: list[CellSummary | None]
    """Each cell's summary as the cache held it at `looked_up` (None: not computed yet)."""
    looked_up: float = field(default_factory=time.monotonic)

    def fresh(self, within_s: float) -> bool:
        return time.monotonic() - self.looked_up <= within_s

    def refreshed(self, cache: ResultCache) -> list[CellSummary | None]:
        """The summaries, the missing ones looked up again (another job may have computed them meanwhile)."""
        missing = [k for k, s in enumerate(self.summaries) if s is None]
        again = cached_summaries(cache, [self.ids[k] for k in missing])
        summaries = list(self.summaries)
        for k, summary in zip(missing, again, strict=True):
            summaries[k] = summary
        return summaries


def expand(request: BaseModel, cache: ResultCache, own_id: str | None = None) -> Expansion:
    """The cells of a request made of cells, looked up in `cache`. A simulation is its own one cell, whose id
    is the job's own (`own_id`, when the caller has hashed the request already: it is not hashed again)."""
    if isinstance(request, Scenario):
        scenarios, ids = [request], [own_id or cell_id(request)]
    else:
        scenarios = request.scenarios()  # type: ignore[attr-defined]
        ids = [cell_id(s) for s in scenarios]
    return Expansion(scenarios, ids, cached_summaries(cache, ids))


@dataclass(frozen=True)
class Pending:
    """What a job has left to compute when it is submitted."""

    missing: list[Scenario]
    """Its cells not cached yet (none for a kind not made of cells)."""
    work: float
    """Their work units (a kind not made of cells: its request's own `work`, if it declares one)."""
    cells: Expansion | None = None
    """Its cells as looked up, handed to the runner so it does not expand, hash or look them up again."""


def pending(kind: JobKind, request: BaseModel, cache: ResultCache, own_id: str | None = None) -> Pending:
    """What a job submitted with id `own_id` (its request's hash, not computed again here) has left to do."""
    if not kind.made_of_cells:
        return Pending([], float(getattr(request, "work", 0.0)))
    cells = expand(request, cache, own_id)
    missing = [c for c, summary in zip(cells.scenarios, cells.summaries, strict=True) if summary is None]
    return Pending(missing, sum(c.work for c in missing), cells)


def plan_chunks(cells: list[Scenario], count: int) -> list[list[int]]:
    """Indices of `cells` in at most `count` chunks of about equal work, for as many workers to share.

    Cells of equal NW shapes stay together (in order of first appearance), so each chunk batches well.
    """
    shapes = {shape: rank for rank, shape in enumerate(dict.fromkeys(c.nw_shape() for c in cells))}
    order = sorted(range(len(cells)), key=lambda k: (shapes[cells[k].nw_shape()], k))
    total = sum(c.work for c in cells)
    target = total / max(1, min(count, len(cells)))
    chunks: list[list[int]] = [[]]
    used = 0.0
    for k in order:
        if chunks[-1] and used + cells[k].work / 2 > target * len(chunks) and len(chunks) < count:
            chunks.append([])
        chunks[-1].append(k)
        used += cells[k].work
    return [c for c in chunks if c]
