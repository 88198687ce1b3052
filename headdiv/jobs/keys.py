"""Redis key names shared by the API and the RQ task: namespaced and versioned by the engine."""

from __future__ import annotations

from headdiv.version import ENGINE_VERSION

PREFIX = f"headdiv:v{ENGINE_VERSION}"


def result_key(job_id: str) -> str:
    return f"{PREFIX}:result:{job_id}"


def cancel_key(job_id: str) -> str:
    return f"{PREFIX}:cancel:{job_id}"


def wanted_key(job_id: str) -> str:
    """Lives while someone wants a job computed ahead of a person (its meta says `lease`): each client's ask
    renews it for a moment, a person's ask for the job's whole time limit; the job stops once it is gone."""
    return f"{PREFIX}:wanted:{job_id}"


def claim_key(job_id: str) -> str:
    """Held for a moment by whoever enqueues a job id, so concurrent submissions enqueue it once."""
    return f"{PREFIX}:claim:{job_id}"


def speed_key(worker: str) -> str:
    """A live worker's measured engine speed (work units per second); it expires with the worker."""
    return f"{PREFIX}:speed:{worker}"


def admitted_key(queue: str) -> str:
    """The users' jobs admitted on a queue and not yet seen ended: job id -> [client, work units]."""
    return f"{PREFIX}:admitted:{queue}"


def record_entry(job_id: str) -> str:
    """The result cache's entry (not a Redis key) for a running job's state as its runner last published it:
    status, progress, cells, partial result, and how it ended."""
    return f"{job_id}.record"


EVENTS = f"{PREFIX}:job-events"
"""The pub/sub channel on which runners announce a job's change: `<job id> ended|stepped`."""


def worker_info_key(worker: str) -> str:
    """A live worker's device and memory, as it last reported them (`headdiv.jobs.worker_info`); it
    expires with the worker."""
    return f"{PREFIX}:worker-info:{worker}"
