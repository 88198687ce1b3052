"""The lookup the engine's three tables share (runners, assemblers, lessons): an entry found by the model of
the request it takes, never by a name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar


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
