"""The errors a computation raises on purpose, in words a user can act on (anything else is a bug).

Torch-free, so the job protocol, the API and the CLI can name them without loading the engine: each
door turns them into its own answer (`headdiv.jobs.failures.describe_failure` for a job, a 422
naming the field in the API, `field: reason` on the command line).
"""

from __future__ import annotations


class EngineError(Exception):
    """A computation that cannot be done as asked; the message is meant for the user."""


class JobCancelled(Exception):
    """Raised between steps of a long computation once its caller asked to stop."""


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
