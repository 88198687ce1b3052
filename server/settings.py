"""Service settings, read from the environment by pydantic-settings (prefix ``HEADDIV_``).

`REDIS_URL` and `CACHE_REDIS_URL` carry no prefix because that is how every hosting platform and
docker-compose file names them; without `REDIS_URL` the app runs embedded (in-memory cache and an
in-process runner), which is what a laptop with nothing else installed gets.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ServerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HEADDIV_", extra="ignore", populate_by_name=True)

    host: str = "127.0.0.1"
    port: int = Field(8050, ge=0, le=65535)
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
    api_url: str | None = Field(None, description="URL the dashboard calls; derived from host and port if unset.")
    cache_max_bytes: int = Field(256 << 20, gt=0, description="Bound of the in-memory LRU cache (embedded mode).")
    cache_ttl_s: int = Field(7 * 24 * 3600, gt=0, description="Lifetime of a result cached in Redis.")
    job_timeout_s: int = Field(1800, gt=0, description="RQ job_timeout: longest a single job may run.")
    result_ttl_s: int = Field(3600, gt=0, description="How long RQ keeps a finished or failed job for polling.")
    job_retries: int = Field(1, ge=0, le=10, description="Extra attempts for a job whose worker crashed.")
    runner_threads: int = Field(2, ge=1, le=64, description="Threads of the embedded job runner.")
    max_body_bytes: int = Field(1 << 20, gt=0, description="Largest JSON request body (413 beyond).")
    max_upload_bytes: int = Field(256 << 20, gt=0, description="Largest upload to POST /api/v1/models/hdi.")
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
    max_wait_s: float = Field(60.0, ge=0, le=60, description="Upper bound on any request's ?wait= (seconds).")
    warm_up: bool = Field(
        True, description="Compile the engine in a background thread at start-up (embedded mode, and workers)."
    )
    worker_nice: int = Field(
        10, ge=0, le=19, description="CPU priority decrement of `headdiv worker` (batch work yields to the API)."
    )
    access_log: bool = Field(
        False, description="Log every request (uvicorn's access log); off by default, it costs CPU per request."
    )

    @model_validator(mode="after")
    def _derive(self) -> ServerSettings:
        if self.cache_redis_url is None:
            self.cache_redis_url = self.redis_url
        if self.api_url is None:
            host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
            self.api_url = f"http://{host}:{self.port}"
        if self.heartbeat_ttl_s <= self.heartbeat_interval_s:
            raise ValueError("heartbeat_ttl_s must exceed heartbeat_interval_s")
        return self

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: everything runs inside this process."""
        return self.redis_url is None


@lru_cache(maxsize=1)
def get_server_settings() -> ServerSettings:
    return ServerSettings()
