"""The worker's settings: the job settings both sides share, plus how politely it computes."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field

from headdiv.jobs.job_settings import JobSettings


class WorkerSettings(JobSettings):
    worker_nice: int = Field(
        10, ge=0, le=19, description="CPU priority decrement of `headdiv worker` (batch work yields to the API)."
    )


@lru_cache(maxsize=1)
def get_worker_settings() -> WorkerSettings:
    return WorkerSettings()
