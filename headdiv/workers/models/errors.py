"""The one error a model file can raise: what is wrong with it, in words a user can act on."""

from __future__ import annotations


class ModelFileError(ValueError):
    """A model file (or its head counts) cannot be read as attention weights.

    `field` names the request field to blame (`file`, `num_heads` or `num_kv_heads`) so the HTTP
    adapter can answer 422 pointing at it.
    """

    def __init__(self, message: str, *, field: str = "file") -> None:
        super().__init__(message)
        self.field = field


class MeasurementStopped(Exception):
    """The caller asked a measurement to stop between layers (its time ran out, or its client left)."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"stopped after {done} of {total} layers")
        self.done = done
        self.total = total
