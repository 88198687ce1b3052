"""What RQ recorded of a job that ended, as the job's state or its reason (read by `RQBackend`)."""

from __future__ import annotations

from rq.job import Job

from headdiv.jobs.failures import timed_out
from headdiv.jobs.state import JobError, JobState


def ended_state(job: Job) -> JobState | None:
    """The state the task returned for a job it ran to an end (None for a record without one)."""
    outcome = job.return_value(refresh=False)
    return JobState.model_validate(outcome) if isinstance(outcome, dict) and "status" in outcome else None


def failure_of(job: Job) -> JobError:
    """RQ's record of a failed job, as a short reason: timeout, lost worker, or a plain sentence for a crash
    (its traceback names modules, classes and maybe addresses: the worker logged it and RQ keeps it; the user
    gets none of it). Read at every poll of the job, so it logs nothing itself."""
    result = job.latest_result()
    text = (result.exc_string if result is not None else None) or ""
    if "JobTimeoutException" in text:
        return timed_out(float(job.timeout or 0))
    if "AbandonedJobError" in text or "terminated unexpectedly" in text:
        return JobError(message="the worker running this job stopped (crashed or was killed)", type="abandoned")
    return JobError(message="the job failed in a worker (an internal error; the worker's log has the details)")
