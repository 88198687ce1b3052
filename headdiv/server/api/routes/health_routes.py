"""GET /api/v1/health: is the service able to take work, where does it cache and compute."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from headdiv.jobs.worker_info import WorkerInfo
from headdiv.server.api.deps import BackendDep, call
from headdiv.workers import __version__

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    cache: Literal["redis", "memory"]
    queue: Literal["rq", "inline"]
    workers: int
    device: str
    version: str
    detail: str = ""
    speed: float | None = Field(
        None,
        description="Engine speed of the slowest runner, in work units per second, measured at start-up (null "
        "until then). A job needing more than speed * HEADDIV_JOB_TIMEOUT_S work units is refused.",
    )
    worker_details: list[WorkerInfo] = Field(
        default_factory=list,
        description="Each live worker's device and memory at its last heartbeat, by name (scaled mode); embedded, "
        "this one process.",
    )


@router.get("/health", response_model=Health)
async def health(backend: BackendDep) -> Health:
    """Always answers 200; `degraded` says Redis cannot be reached, or no worker listens (see `detail`)."""
    h = await call(backend, backend.health)
    return Health(
        status="ok" if h.ok else "degraded",
        cache="redis" if h.cache == "redis" else "memory",
        queue="rq" if h.queue == "rq" else "inline",
        workers=h.workers,
        device=h.device,
        version=__version__,
        detail=h.detail,
        speed=h.speed,
        worker_details=list(h.runners),
    )
