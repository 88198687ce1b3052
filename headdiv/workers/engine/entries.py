"""The one entry type of the engine's tables (runners in `dispatch`, assemblers in `multicell`, lessons in
`foundations`): a request model, its result model and the function that computes the one from the other,
found by the model of the request it takes, never by a name. Torch-free, so the API's assembly of a partial
result loads no torch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

RequestT = TypeVar("RequestT")
ResultT = TypeVar("ResultT")
ComputeT = TypeVar("ComputeT")


@dataclass(frozen=True)
class Entry(Generic[RequestT, ResultT, ComputeT]):
    """A request model, its result model and `compute`. Each table names its entries through an alias that
    ties the function's type to the two models (e.g. `Runner[RequestT, ResultT]`), so mypy checks that the
    function maps the one to the other."""

    request: type[RequestT]
    result: type[ResultT]
    compute: ComputeT


AnyEntry = Entry[Any, Any, Any]
EntryT = TypeVar("EntryT", bound=AnyEntry)


def entry_for(table: Sequence[EntryT], request: object, what: str) -> EntryT:
    """The entry of `table` whose request model `request` is (a KeyError names a model with none: a bug,
    not input)."""
    for entry in table:
        if isinstance(request, entry.request):
            return entry
    raise KeyError(f"no {what} for {type(request).__name__}")
