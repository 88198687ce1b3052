"""The jobs one API process accepted, remembered by id with their normalised request, so that a job the queue
lost (Redis restarted without persistence, docs/deploy.md) is enqueued again when asked for, never answered
404 after its 202. Bounded: the oldest are forgotten first (a job that old has long finished or failed)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from pydantic import BaseModel

REMEMBERED = 4096


@dataclass(frozen=True)
class Accepted:
    kind: str
    request: BaseModel
    client: str
    background: bool


class AcceptedJobs:
    def __init__(self, limit: int = REMEMBERED) -> None:
        self.limit = limit
        self._jobs: OrderedDict[str, Accepted] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, job_id: str, job: Accepted) -> None:
        with self._lock:
            self._jobs[job_id] = job
            self._jobs.move_to_end(job_id)
            while len(self._jobs) > self.limit:
                self._jobs.popitem(last=False)

    def pop(self, job_id: str) -> Accepted | None:
        """The job, forgotten (it is enqueued again once, not at every poll)."""
        with self._lock:
            return self._jobs.pop(job_id, None)
