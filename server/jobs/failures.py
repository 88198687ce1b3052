"""Turn what a job raised into a reason the user can read (shared by both runners)."""

from __future__ import annotations

from pydantic import ValidationError

from server.cache.base import NonFiniteResult
from server.jobs.models import JobError


def describe_failure(exc: BaseException) -> JobError:
    """The engine's own errors keep their message; anything else is named as an internal error."""
    from workers.engine import EngineError, JobCancelled  # torch is loaded only where jobs run

    if isinstance(exc, JobCancelled):
        return JobError(message="canceled on request", type="canceled")
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "body"
        return JobError(message=f"{field}: {first['msg']}", type="invalid")
    if isinstance(exc, NonFiniteResult):
        return JobError(message=str(exc), type="error")
    if isinstance(exc, (EngineError, ValueError)):
        return JobError(message=str(exc) or type(exc).__name__, type="error")
    return JobError(message=f"internal error ({type(exc).__name__}): {exc}", type="error")
