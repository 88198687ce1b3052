"""What a caller may hand a long computation of the engine, and the shape of a job's runner.

The engine owns these types: the runner (`headdiv.workers.runner`) builds hooks from its
runner's record and passes them down; the engine never imports the job protocol. Torch-free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypedDict, TypeVar, Unpack

from pydantic import BaseModel

from headdiv.schemas.results.result_parts import ResultModel


class Hooks(TypedDict, total=False):
    """What a caller may hand the computation of a job (all optional)."""

    progress: Callable[[float], None] | None
    """Receives the fraction done, in [0, 1]."""
    should_cancel: Callable[[], bool] | None
    """Polled between steps; True stops the run with `JobCancelled`."""
    device: str | None
    dtype: str | None
    partial: Callable[[ResultModel], None] | None
    """A kind not made of cells hears its result so far (what a running job shows as `partial`)."""


RequestT = TypeVar("RequestT", bound=BaseModel, contravariant=True)
ResultT = TypeVar("ResultT", bound=ResultModel, covariant=True)


class Runner(Protocol[RequestT, ResultT]):
    """Computes one job of a kind not made of cells: its validated request in, its result model out."""

    def __call__(self, request: RequestT, /, **hooks: Unpack[Hooks]) -> ResultT: ...
