"""The app's one memory of drawn answers: the live path's figures and the pure callbacks' answers, one bound.

Both keep what a request was answered with so that the next identical request costs nothing. One byte bound
over the two (`HEADDIV_FIGURE_CACHE_BYTES`) is one number to size, and lets whichever is busy use the room
(a class opening one link: callbacks; a slider dragged: figures). Each kind's keys are its own, so a figure's
key and a callback's body hash never meet.
"""

from __future__ import annotations

from typing import Literal

from dash import Dash

from headdiv.plumbing.lru import ByteLRU
from headdiv.schemas.engine_settings import DoorSettings

FIGURE_CACHE_BYTES = DoorSettings().figure_cache_bytes
MEMORY_EXTENSION = "headdiv_figure_memory"

Answer = tuple[int, bytes, str]
"""A callback's answer: HTTP status, body and mimetype."""
Entry = bytes | Answer
"""A live part's JSON, or a callback's answer."""
Kind = Literal["live", "callback"]
Memory = ByteLRU[tuple[Kind, str], Entry]
"""Entries by (kind, key), the least recently used dropped past the bound (thread-safe)."""


def entry_bytes(entry: Entry) -> int:
    """What an entry holds in memory, near enough: its body's length."""
    return len(entry) if isinstance(entry, bytes) else len(entry[1])


def new_memory(limit: int) -> Memory:
    return ByteLRU(limit, entry_bytes)


def figure_memory(app: Dash) -> Memory:
    """The app's memory, made on first use (of `FIGURE_CACHE_BYTES`): whoever asks first, the other shares it."""
    found = app.server.extensions.get(MEMORY_EXTENSION)
    if isinstance(found, ByteLRU):
        return found
    memory = new_memory(FIGURE_CACHE_BYTES)
    app.server.extensions[MEMORY_EXTENSION] = memory
    return memory
