"""Error handlers: every bad request gets a JSON answer naming the field and the reason, never a 500.

FastAPI's own 422 body echoes the offending input; for deeply nested or huge bodies encoding that
echo can itself overflow the stack, so these handlers keep location, message and type only.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from server.jobs.state import BackendUnavailable

log = logging.getLogger(__name__)
MAX_MESSAGE = 500


def _clean(error: dict[str, Any]) -> dict[str, Any]:
    loc = [p if isinstance(p, (str, int)) else str(p) for p in error.get("loc", ())]
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")[:MAX_MESSAGE]
    return {"loc": loc, "msg": msg, "type": str(error.get("type", "value_error"))}


def _field(loc: Any) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or (str(loc[0]) if loc else "body")


def validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """FastAPI's `{detail: [{loc, msg, type}]}` plus one readable `message` line."""
    detail = [_clean(e) for e in errors[:20]]
    first = detail[0] if detail else {"loc": ["body"], "msg": "invalid request"}
    where = "body" if first.get("type") == "json_invalid" else _field(first["loc"])
    return {"detail": detail, "message": f"{where}: {first['msg']}"}


def invalid_body(reason: str) -> JSONResponse:
    return JSONResponse(validation_body([{"loc": ["body"], "msg": reason, "type": "json_invalid"}]), status_code=422)


async def on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    try:
        body = validation_body(list(exc.errors()))
    except RecursionError:
        body = validation_body([{"loc": ["body"], "msg": "the JSON is nested too deeply", "type": "json_invalid"}])
    return JSONResponse(body, status_code=422)


async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    cause = exc.__cause__
    if exc.status_code == 400 and isinstance(cause, (RecursionError, ValueError, UnicodeDecodeError)):
        # the body could not even be decoded as JSON (too deep, a number too long, bad bytes)
        reason = "the JSON is nested too deeply" if isinstance(cause, RecursionError) else f"invalid JSON: {cause}"
        return invalid_body(reason[:MAX_MESSAGE])
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))


async def on_unavailable(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": f"service unavailable: {exc}"}, status_code=503, headers={"Retry-After": "5"})


async def on_recursion(request: Request, exc: Exception) -> JSONResponse:
    return invalid_body("the JSON is nested too deeply")


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(BackendUnavailable, on_unavailable)
    app.add_exception_handler(RecursionError, on_recursion)
