"""The API's settings: the job settings it shares with the workers, plus its own (prefix ``HEADDIV_``).

Without `REDIS_URL` the app runs embedded (in-memory cache and an in-process runner), which is what a
laptop with nothing else installed gets.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import Field, model_validator

from headdiv.jobs.job_settings import JobSettings
from headdiv.schemas.engine_settings import DoorSettings

ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")
"""An origin a frame may come from: scheme, host, optional port; no path, no wildcard."""


class ServerSettings(JobSettings, DoorSettings):
    host: str = "127.0.0.1"
    port: int = Field(8050, ge=0, le=65535)
    api_url: str | None = Field(None, description="URL the dashboard calls; derived from host and port if unset.")
    cache_max_bytes: int = Field(256 << 20, gt=0, description="Bound of the in-memory LRU cache (embedded mode).")
    runner_threads: int = Field(2, ge=1, le=64, description="Threads of the embedded job runner.")
    max_body_bytes: int = Field(1 << 20, gt=0, description="Largest JSON request body (413 beyond).")
    max_wait_s: float = Field(60.0, ge=0, le=60, description="Upper bound on any request's ?wait= (seconds).")
    body_timeout_s: float = Field(
        30.0, gt=0, le=3600, description="Longest wait for the next piece of a request body before answering 408."
    )
    body_deadline_s: float = Field(
        120.0, gt=0, le=86400, description="Longest a whole JSON request body may take to arrive (408 beyond)."
    )
    max_head_bytes: int = Field(
        64 * 1024, ge=1024, description="Largest request line and headers together (431 beyond, before parsing)."
    )
    max_headers: int = Field(100, ge=8, le=10000, description="Most headers in one request (431 beyond).")
    head_timeout_s: float = Field(
        10.0,
        gt=0,
        le=600,
        description="Longest a request's head may take to arrive, and an unused connection to "
        "stay open (408, or closed).",
    )
    keep_alive_s: float = Field(5.0, gt=0, le=600, description="How long an idle connection is kept between requests.")
    max_connections: int | None = Field(
        None,
        ge=16,
        description="Connections and requests served at once before 503 (unset: from the process's "
        "descriptor limit, which start-up raises to its hard limit).",
    )
    upload_slots: int = Field(1, ge=1, le=64, description="Model uploads measured at once (more wait, then 429).")
    upload_timeout_s: float = Field(
        120.0, gt=0, le=3600, description="Longest a model upload may be measured before it is stopped (422)."
    )
    hdi_slots: int = Field(2, ge=1, le=64, description="POST /api/v1/hdi computations at once (more wait, then 429).")
    hdi_timeout_s: float = Field(30.0, gt=0, le=3600, description="Longest one POST /api/v1/hdi may compute (422).")
    busy_wait_s: float = Field(
        10.0, ge=0, le=600, description="How long an upload or /hdi request waits for a free slot before 429."
    )
    warm_start: bool = Field(
        True,
        description="Compute the dashboard's first views (every tab's default, every preset) in the background "
        "after start-up, at low priority (embedded mode; `headdiv warm` does it for a scaled set-up).",
    )
    max_client_work: float = Field(
        2e11,
        gt=0,
        description="Work one client (address) may have queued or running in jobs over the fast lane's size; a "
        "new one beyond it gets 429 (unless the client has none pending).",
    )
    max_client_fast_jobs: int = Field(
        16, ge=1, description="Small (fast-lane) jobs one client may have queued or running; 429 beyond."
    )
    max_queued_work: float = Field(
        1.6e12, gt=0, description="Work all clients together may have queued or running; a new job beyond it gets 429."
    )
    trusted_proxies: str = Field(
        "",
        description="Addresses or networks of reverse proxies whose X-Forwarded-For names the client (comma-"
        "separated, e.g. '172.28.0.10'); empty: none, every client is its peer address.",
    )
    ahead_lease_s: float = Field(
        2.0,
        gt=0,
        le=600,
        description="A job computed ahead of a person (priority=background from a client) stops when no one has "
        "asked for it for this long: the person moved elsewhere. A person asking for it keeps it for good.",
    )
    frame_ancestors: str = Field(
        "",
        description="Origins allowed to show the dashboard in a frame (a course page embedding a view with "
        "?embed=1), separated by spaces or commas, e.g. 'https://lms.example.edu'; empty: none may.",
    )
    shared_responses: bool = Field(
        True,
        description="Answer the page, Dash's layout and dependencies and the bundles from memory, compressed once "
        "(gzip and brotli) for every visitor; off: built and compressed per request (the bench's baseline).",
    )
    access_log: bool = Field(
        False, description="Log every request (uvicorn's access log); off by default, it costs CPU per request."
    )

    @property
    def framing_origins(self) -> list[str]:
        return [o for o in self.frame_ancestors.replace(",", " ").split() if o]

    @model_validator(mode="after")
    def _check_origins(self) -> ServerSettings:
        bad = [o for o in self.framing_origins if not ORIGIN.fullmatch(o)]
        if bad:
            raise ValueError(f"frame_ancestors: {bad[0]!r} is not an origin such as https://lms.example.edu")
        return self

    @model_validator(mode="after")
    def _derive_api_url(self) -> ServerSettings:
        if self.api_url is None:
            host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
            self.api_url = f"http://{host}:{self.port}"
        return self


@lru_cache(maxsize=1)
def get_server_settings() -> ServerSettings:
    return ServerSettings()
