"""Dependencies the routes receive: the settings and the job backend chosen at start-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from headdiv.server.backends.backend_protocol import JobBackend
from headdiv.server.server_settings import ServerSettings

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


_QUERY_NAMES = "_headdiv_query_names"
"""Attribute under which a route keeps its declared query names (a route is not hashable, so no dict)."""


def _declared_query(dependant: Dependant) -> frozenset[str] | None:
    """The query parameter names a route declares; None when one is a model (FastAPI checks its extras)."""
    names: set[str] = set()
    stack = [dependant]
    while stack:
        current = stack.pop()
        for field in current.query_params:
            annotation = field.field_info.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                return None
            names.add(field.alias)
        stack.extend(current.dependencies)
    return frozenset(names)


async def refuse_unknown_query(request: Request) -> None:
    """Unknown query parameters are refused as unknown body keys are (`?wiat=30` is a typo, not a no-op)."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or not request.query_params:
        return
    try:
        declared: frozenset[str] | None = getattr(route, _QUERY_NAMES)
    except AttributeError:  # first request on this route: read its parameters once
        declared = _declared_query(route.dependant)
        setattr(route, _QUERY_NAMES, declared)
    if declared is None:
        return
    unknown = [name for name in request.query_params if name not in declared]
    if unknown:
        raise RequestValidationError(
            [
                {"loc": ("query", name), "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}
                for name in unknown
            ]
        )
