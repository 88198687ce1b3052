"""A job's state as the runners report it, and its JSON encoding for the API.

The result travels as the cached JSON bytes, spliced into the response as is: a cache hit costs a
lookup and a concatenation, never a parse and re-encode of a large result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from server.jobs.models import TERMINAL, JobError, JobStatus


class BackendUnavailable(RuntimeError):
    """The queue or cache cannot be reached (Redis down): the API answers 503 at once."""


@dataclass(frozen=True)
class JobState:
    job_id: str
    status: JobStatus
    progress: float = 0.0
    cached: bool = False
    result_json: bytes | None = None
    error: JobError | None = None

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    def to_json(self) -> bytes:
        """The body of a JobView, with the stored result bytes spliced in unchanged."""
        head = {
            "job_id": self.job_id,
            "status": self.status,
            "progress": min(1.0, max(0.0, float(self.progress))),
            "cached": self.cached,
            "error": self.error.model_dump() if self.error else None,
        }
        body = json.dumps(head, separators=(",", ":"), allow_nan=False).encode("utf-8")
        result = self.result_json if self.result_json is not None else b"null"
        return body[:-1] + b',"result":' + result + b"}"
