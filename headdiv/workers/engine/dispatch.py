"""Which engine function computes a request: the engine's tables (runners here, assemblers in `multicell`,
lessons in `foundations`) hold one entry per request model, found by the model of the request it takes,
never by a name.

The runner table holds each job kind not made of cells, as its request model, its result model and the one
function that computes the one from the other; cell kinds are simulated cell by cell and assembled by
`multicell.ASSEMBLERS`. The torch-free job table (`headdiv.workers.jobs.kinds`) names the request and result
models only; a test checks that every kind has exactly one runner or assembler, with the same models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, Unpack, cast

from pydantic import BaseModel

from headdiv.schemas import CovarianceRequest
from headdiv.schemas.results.common import ResultModel
from headdiv.schemas.results.labs import CovarianceResult, TrainingResult
from headdiv.schemas.training import TrainingRequest
from headdiv.workers.engine.covariance import run_covariance
from headdiv.workers.engine.device import out_of_memory_as_error, resolve_device
from headdiv.workers.engine.hooks import Hooks, Runner
from headdiv.workers.engine.training import run_training

RequestT = TypeVar("RequestT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=ResultModel)


class Entry(Protocol):
    @property
    def request(self) -> type[Any]: ...


EntryT = TypeVar("EntryT", bound=Entry)


def entry_for(table: Sequence[EntryT], request: object, what: str) -> EntryT:
    """The entry of `table` whose request model `request` is (a KeyError names a model with none: a bug,
    not input)."""
    for entry in table:
        if isinstance(request, entry.request):
            return entry
    raise KeyError(f"no {what} for {type(request).__name__}")


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
