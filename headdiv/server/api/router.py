"""All API routers under /api/v1, and the JSON 404/405 for any other /api path."""

from __future__ import annotations

import re

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from headdiv.server.api.deps import refuse_unknown_query
from headdiv.server.api.error_handlers import refused
from headdiv.server.api.routes import (
    computations_routes,
    foundations_routes,
    hdi_routes,
    health_routes,
    jobs_routes,
    models_routes,
    polls_routes,
    rooms_routes,
    theory_routes,
)

API_PREFIX = "/api/v1"

api_router = APIRouter(prefix=API_PREFIX, dependencies=[Depends(refuse_unknown_query)])
for module in (
    health_routes,
    computations_routes,
    jobs_routes,
    hdi_routes,
    theory_routes,
    foundations_routes,
    models_routes,
    polls_routes,
    rooms_routes,
):
    api_router.include_router(module.router)

fallback_router = APIRouter(include_in_schema=False)
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def _documented_paths(request: Request) -> list[tuple[re.Pattern[str], set[str]]]:
    """(path regex, methods) of every documented endpoint, built once from the OpenAPI schema."""
    cached: list[tuple[re.Pattern[str], set[str]]] | None = getattr(request.app.state, "api_paths", None)
    if cached is None:
        cached = []
        for template, operations in request.app.openapi().get("paths", {}).items():
            pattern = re.sub(r"\\{[^}/]+\\}", "[^/]+", re.escape(template))
            cached.append((re.compile(f"^{pattern}/?$"), {m.upper() for m in operations}))
        request.app.state.api_paths = cached
    return cached


@fallback_router.api_route("/api", methods=ALL_METHODS)
@fallback_router.api_route("/api/{rest:path}", methods=ALL_METHODS)
async def api_not_found(request: Request) -> JSONResponse:
    """Unknown API paths get JSON (404, or 405 naming the allowed methods), never the dashboard page."""
    allowed: set[str] = set()
    for pattern, methods in _documented_paths(request):
        if pattern.match(request.url.path):
            allowed |= methods
    if allowed:
        return refused(
            405,
            f"method {request.method} not allowed here; use {', '.join(sorted(allowed))}",
            {"Allow": ", ".join(sorted(allowed))},
        )
    return refused(404, f"no API endpoint at {request.url.path[:200]}; /docs lists the endpoints")
