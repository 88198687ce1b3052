"""The job as the API shows it: one shape for every kind, every runner and every state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

JobStatus = Literal["queued", "running", "finished", "failed", "canceled"]
TERMINAL: frozenset[str] = frozenset({"finished", "failed", "canceled"})


class JobError(BaseModel):
    """Why a job failed or was canceled, in words meant for the user."""

    message: str
    type: str = Field("error", description="error | canceled | timeout | abandoned | invalid")


class JobView(BaseModel):
    job_id: str = Field(description="sha256 of the canonical request and the engine version.")
    status: JobStatus
    progress: float = Field(ge=0, le=1)
    cached: bool = Field(description="True when the result came from the cache, without new work.")
    result: dict[str, Any] | None = None
    error: JobError | None = None

    @property
    def done(self) -> bool:
        return self.status in TERMINAL
