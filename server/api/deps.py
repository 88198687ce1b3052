"""Dependencies the routes receive: the settings and the job backend chosen at start-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool

from server.jobs.backend import JobBackend
from server.settings import ServerSettings

T = TypeVar("T")


# `async def`, though nothing here awaits: FastAPI runs a plain `def` dependency in a worker thread,
# and two thread hops per request were a tenth of the API's CPU on a cache hit.
async def get_settings(request: Request) -> ServerSettings:
    settings: ServerSettings = request.app.state.settings
    return settings


async def get_backend(request: Request) -> JobBackend:
    backend: JobBackend = request.app.state.backend
    return backend


SettingsDep = Annotated[ServerSettings, Depends(get_settings)]
BackendDep = Annotated[JobBackend, Depends(get_backend)]


async def call(backend: JobBackend, fn: Callable[..., T], *args: Any) -> T:
    """Run a backend call off the event loop when it does network I/O, inline when it is in-memory."""
    if backend.blocking_io:
        return await run_in_threadpool(fn, *args)
    return fn(*args)
