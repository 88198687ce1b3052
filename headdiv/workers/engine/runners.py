"""The engine's table of runners: each job kind not made of cells, as its request model, its result model
and the one function that computes the one from the other. Cell kinds are simulated cell by cell and
assembled by `assemble.ASSEMBLERS`.

The torch-free job table (`headdiv.workers.jobs.kinds`) names the request and result models only; a test
checks that every kind has exactly one runner or assembler here, with the same models, so no function is
ever looked up by its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar, Unpack, cast

from pydantic import BaseModel

from headdiv.workers.engine.covariance import run_covariance
from headdiv.workers.engine.device import out_of_memory_as_error, resolve_device
from headdiv.workers.engine.hooks import Hooks, Runner
from headdiv.workers.engine.tables import entry_for
from headdiv.workers.engine.training import run_training
from headdiv.workers.schemas import CovarianceRequest
from headdiv.workers.schemas.results.common import ResultModel
from headdiv.workers.schemas.results.labs import CovarianceResult, TrainingResult
from headdiv.workers.schemas.training import TrainingRequest

RequestT = TypeVar("RequestT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=ResultModel)


@dataclass(frozen=True)
class RunnerEntry(Generic[RequestT, ResultT]):
    """A request model, its result model and its runner; mypy checks that the runner maps the one to the other."""

    request: type[RequestT]
    result: type[ResultT]
    run: Runner[RequestT, ResultT]


RUNNERS: tuple[RunnerEntry[Any, Any], ...] = (
    RunnerEntry(CovarianceRequest, CovarianceResult, run_covariance),
    RunnerEntry(TrainingRequest, TrainingResult, run_training),
)


def runner_for(request: RequestT) -> Runner[RequestT, ResultModel]:
    """The runner of `request`'s kind (a KeyError names a request model with none: a bug, not input); a GPU
    that runs out of memory fails it with a reason (`device.out_of_memory_as_error`)."""
    run = cast(Runner[RequestT, ResultModel], entry_for(RUNNERS, request, "engine runner").run)

    def guarded(req: RequestT, /, **hooks: Unpack[Hooks]) -> ResultModel:
        with out_of_memory_as_error(resolve_device(hooks.get("device"))):
            return run(req, **hooks)

    return guarded
