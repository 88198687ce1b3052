"""Which engine function computes a job that is not made of cells.

The runner table holds each job kind not made of cells, as its request model, its result model and the one
function that computes the one from the other; cell kinds are simulated cell by cell and assembled by
`multicell.ASSEMBLERS`. The torch-free job table (`headdiv.jobs.kinds`) names the request and result
models only; a test checks that every kind has exactly one runner or assembler, with the same models.
"""

from __future__ import annotations

from typing import Any, TypeVar, Unpack, cast

from pydantic import BaseModel

from headdiv.schemas import CovarianceRequest
from headdiv.schemas.results.lab_results import CovarianceResult, TrainingResult
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.training_request import TrainingRequest
from headdiv.workers.engine.covariance import run_covariance
from headdiv.workers.engine.device import out_of_memory_as_error, resolve_device
from headdiv.workers.engine.entries import Entry, entry_for
from headdiv.workers.engine.hooks import Hooks, Runner
from headdiv.workers.engine.training import run_training

RequestT = TypeVar("RequestT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=ResultModel)


RunnerEntry = Entry[RequestT, ResultT, Runner[RequestT, ResultT]]


def runner_entry(
    request: type[RequestT], result: type[ResultT], run: Runner[RequestT, ResultT]
) -> RunnerEntry[RequestT, ResultT]:
    """A request model, its result model and its runner; mypy checks that the runner maps the one to the other."""
    return Entry(request, result, run)


RUNNERS: tuple[RunnerEntry[Any, Any], ...] = (
    runner_entry(CovarianceRequest, CovarianceResult, run_covariance),
    runner_entry(TrainingRequest, TrainingResult, run_training),
)


def runner_for(request: RequestT) -> Runner[RequestT, ResultModel]:
    """The runner of `request`'s kind (a KeyError names a request model with none: a bug, not input); a GPU
    that runs out of memory fails it with a reason (`device.out_of_memory_as_error`)."""
    run = cast(Runner[RequestT, ResultModel], entry_for(RUNNERS, request, "engine runner").compute)

    def guarded(req: RequestT, /, **hooks: Unpack[Hooks]) -> ResultModel:
        with out_of_memory_as_error(resolve_device(hooks.get("device"))):
            return run(req, **hooks)

    return guarded
