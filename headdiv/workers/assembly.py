"""A multi-cell job's result from its cells' summaries.

The runner assembles it as cells finish (the partial result a running job shows, then the finished
one). While a scaled job's cells are computed by chunk jobs on other workers, the API assembles the
same view from the cache (`snapshot`), once per change it hears of. The engine's assembly is
torch-free, so the API never loads torch for it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from headdiv.jobs.cache.result_cache import ResultCache
from headdiv.jobs.cells import cached_summaries, expand
from headdiv.jobs.kinds import JobKind
from headdiv.jobs.state import CellCount
from headdiv.schemas.metrics import CellSummary
from headdiv.schemas.requests import CellsRequest
from headdiv.schemas.results.result_parts import ResultModel


def assemble(request: BaseModel, summaries: list[CellSummary | None]) -> ResultModel:
    """A multi-cell job's result from its cells' summaries (None for a cell not done yet)."""
    from headdiv.workers.engine.multicell import assembler_for

    if not isinstance(request, CellsRequest):
        raise TypeError(f"{type(request).__name__} is not made of cells")
    return assembler_for(request)(request, summaries)


def snapshot(
    kind: JobKind, request: BaseModel, cache: ResultCache, from_cache: int | None, ids: list[str] | None = None
) -> tuple[CellCount, dict[str, Any] | None]:
    """A running multi-cell job as the cache shows it: cells done so far, and its result assembled from them.
    `ids`: its cells' ids when the caller kept them (else they are expanded and hashed here)."""
    summaries = cached_summaries(cache, ids) if ids is not None else expand(request, cache).summaries
    done = sum(s is not None for s in summaries)
    count = CellCount(total=len(summaries), done=done, from_cache=done if from_cache is None else min(from_cache, done))
    partial = assemble(request, summaries).model_dump(mode="json") if not kind.single_cell and done else None
    return count, partial
