"""The engine's table of runners: each job kind not made of cells, as its request model and the one
function that computes it. Cell kinds are simulated cell by cell and assembled by `assemble.ASSEMBLERS`.

The torch-free job table (`headdiv.workers.jobs.kinds`) names request models only; a test checks that
every kind has exactly one runner or assembler here, so no function is ever looked up by its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel

from headdiv.workers.engine.covariance import run_covariance
from headdiv.workers.engine.hooks import Runner
from headdiv.workers.engine.training import run_training
from headdiv.workers.schemas import CovarianceRequest
from headdiv.workers.schemas.training import TrainingRequest

RequestT = TypeVar("RequestT", bound=BaseModel)


@dataclass(frozen=True)
class RunnerEntry(Generic[RequestT]):
    """A request model and its runner; mypy checks that the runner takes that very model."""

    request: type[RequestT]
    run: Runner[RequestT]


RUNNERS: tuple[RunnerEntry[Any], ...] = (
    RunnerEntry(CovarianceRequest, run_covariance),
    RunnerEntry(TrainingRequest, run_training),
)


def runner_for(request: RequestT) -> Runner[RequestT]:
    """The runner of `request`'s kind (a KeyError names a request model with none: a bug, not input)."""
    for entry in RUNNERS:
        if isinstance(request, entry.request):
            return cast(Runner[RequestT], entry.run)
    raise KeyError(f"no engine runner for {type(request).__name__}")
