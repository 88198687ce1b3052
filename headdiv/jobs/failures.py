"""Turn what a job raised into a reason the user can read (shared by both runners and the CLI)."""

from __future__ import annotations

from pydantic import ValidationError

from headdiv.jobs.cache.result_cache import NonFiniteResult
from headdiv.jobs.state import JobError
from headdiv.schemas.errors import EngineError, JobCancelled
from headdiv.schemas.fields import first_error

INTERNAL = "internal error while computing; the server's log has the details"
UNWANTED = "computed ahead of a person who has moved elsewhere: no one asked for it any more"
"""Why a job computed ahead of a person stopped (its lease ran out: `ServerSettings.ahead_lease_s`)."""


def describe_failure(exc: BaseException) -> JobError:
    """The engine's own errors keep their message; anything else is named as an internal error."""
    if isinstance(exc, JobCancelled):
        return JobError(message="canceled on request", type="canceled")
    if isinstance(exc, ValidationError):
        return JobError(message=first_error(exc), type="invalid")
    if isinstance(exc, NonFiniteResult):
        return JobError(message=str(exc), type="error")
    if isinstance(exc, (EngineError, ValueError)):
        return JobError(message=str(exc) or type(exc).__name__, type="error")
    # a bug's class and text may name modules, files or addresses: they go to the log (the runners log it),
    # and the person who asked gets a plain sentence
    return JobError(message=INTERNAL, type="error")


def timed_out(limit_s: float) -> JobError:
    """A job stopped at its time limit: the one reason both runners and RQ's own record give."""
    return JobError(
        message=f"the job ran past its time limit of {limit_s:g} s; ask for less work or raise HEADDIV_JOB_TIMEOUT_S",
        type="timeout",
    )
