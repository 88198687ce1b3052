"""Settings both sides of a job read (prefix ``HEADDIV_``): where the queue and the cache are, and their timing.

`REDIS_URL` and `CACHE_REDIS_URL` carry no prefix because that is how every hosting platform and
docker-compose file names them; without `REDIS_URL` everything runs in one process (embedded).
The API adds its own settings to these (`headdiv.server.server_settings`), and so does the worker (`headdiv.workers.queue.worker_settings`).
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class JobSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HEADDIV_", extra="ignore", populate_by_name=True)

    redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("REDIS_URL", "redis_url"),
        description="Redis for the cache and the RQ queue; None runs everything in this process.",
    )
    cache_redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("CACHE_REDIS_URL", "cache_redis_url"),
        description="Redis for cached results; defaults to redis_url.",
    )
    cache_ttl_s: int = Field(7 * 24 * 3600, gt=0, description="Lifetime of a result cached in Redis.")
    job_timeout_s: int = Field(1800, gt=0, description="RQ job_timeout: longest a single job may run.")
    result_ttl_s: int = Field(3600, gt=0, description="How long RQ keeps a finished or failed job for polling.")
    job_retries: int = Field(1, ge=0, le=10, description="Extra attempts for a job whose worker crashed.")
    redis_socket_timeout_s: float = Field(1.0, gt=0, le=30, description="Socket timeout of the API's Redis calls.")
    queue_name: str = Field("headdiv", min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    maintenance_interval_s: int = Field(
        20, ge=1, description="How often abandoned jobs are looked for (worker and API); RQ's default is 600."
    )
    heartbeat_interval_s: int = Field(
        5, ge=1, description="How often a worker refreshes the registry entry of the job it runs."
    )
    heartbeat_ttl_s: int = Field(
        30, ge=2, description="Registry entries of a running job expire this long after its last heartbeat."
    )
    warm_up: bool = Field(
        True,
        description="Compile the engine in a background thread at start-up, then measure its speed (embedded "
        "mode, and workers).",
    )
    fast_lane_work: float = Field(
        2e9,
        ge=0,
        description="Jobs needing at most this much work (cells already cached are free) take the fast lane: a "
        "runner thread (embedded) or queue (`<queue>.fast`) of their own, so they never wait behind long jobs.",
    )
    work_per_s: float | None = Field(
        None,
        gt=0,
        description="The engine's speed in work units per second; unset, each runner measures its own at start-up.",
    )

    @model_validator(mode="after")
    def _derive_job_settings(self) -> JobSettings:
        if self.cache_redis_url is None:
            self.cache_redis_url = self.redis_url
        if self.heartbeat_ttl_s <= self.heartbeat_interval_s:
            raise ValueError("heartbeat_ttl_s must exceed heartbeat_interval_s")
        return self

    @property
    def fast_queue_name(self) -> str:
        """The queue of small jobs: every worker takes from it first, and `headdiv worker --fast-lane` only."""
        return f"{self.queue_name}.fast"

    @property
    def low_queue_name(self) -> str:
        """The queue of background work (warm start): workers take from it only when the main queue is empty."""
        return f"{self.queue_name}.low"

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: everything runs inside this process."""
        return self.redis_url is None


@lru_cache(maxsize=1)
def get_job_settings() -> JobSettings:
    return JobSettings()
