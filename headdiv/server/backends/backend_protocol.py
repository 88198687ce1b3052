"""The one protocol both job backends follow, so routes never know which mode they run in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel

from headdiv.jobs.state import JobState
from headdiv.jobs.worker_info import WorkerInfo
from headdiv.server.backends.watch import JobWatch


class BackendUnavailable(RuntimeError):
    """The queue or cache cannot be reached (Redis down): the API answers 503 at once."""


@dataclass(frozen=True)
class BackendHealth:
    ok: bool
    queue: str
    """'inline' or 'rq'."""
    cache: str
    """'memory' or 'redis'."""
    workers: int
    device: str
    detail: str = ""
    speed: float | None = None
    """Engine speed (work units per second) of the slowest runner, once measured."""
    runners: tuple[WorkerInfo, ...] = ()
    """Each live worker's device and memory as it last reported them (the API process itself when embedded)."""


class JobBackend(Protocol):
    poll_interval_s: float
    """The longest a `?wait=` request goes without re-reading the job's state when no change is announced."""
    watch: JobWatch
    """Where the runner's changes are announced to the `?wait=` requests watching a job."""
    blocking_io: bool
    """True when calls do network I/O (Redis) and belong in a worker thread, not the event loop."""

    async def cached(self, job_id: str) -> JobState | None:
        """The finished job straight from the result cache, without touching the queue (the hot path)."""
        ...

    def submit(
        self,
        kind: str,
        request: BaseModel,
        job_id: str,
        *,
        background: bool = False,
        client: str = "",
        cache_checked: bool = False,
    ) -> JobState:
        """Start the job unless the same id is running or cached (single flight); its current state.
        A new job from `client` is admitted by `headdiv.server.admission` (`Busy`, `TooLong` when not);
        `background` jobs (the server's own warm start) are not counted and run only when no user's job waits;
        `cache_checked`: the caller has just found no result in the cache (`cached`), so it is not read again."""
        ...

    def get(self, job_id: str) -> JobState | None:
        """The job's state, or None when no such job is known (never submitted, or long expired)."""
        ...

    def cancel(self, job_id: str) -> JobState | None:
        """Ask the job to stop; queued jobs end at once, running ones at the engine's next step."""
        ...

    def health(self) -> BackendHealth: ...

    def start(self) -> None: ...

    def close(self) -> None: ...
