"""Error handlers: every bad request gets a JSON answer naming the field and the reason, never a 500.

FastAPI's own 422 body echoes the offending input; for deeply nested or huge bodies encoding that
echo can itself overflow the stack, so these handlers keep location, message and type only.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from headdiv.schemas.fields import error_line
from headdiv.server.admission import Busy, TooLong
from headdiv.server.backends.base import BackendUnavailable

log = logging.getLogger(__name__)
MAX_MESSAGE = 500


def _clean(error: dict[str, Any]) -> dict[str, Any]:
    loc = [p if isinstance(p, (str, int)) else str(p) for p in error.get("loc", ())]
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")[:MAX_MESSAGE]
    return {"loc": loc, "msg": msg, "type": str(error.get("type", "value_error"))}


def validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """FastAPI's `{detail: [{loc, msg, type}]}` plus one readable `message` line."""
    detail = [_clean(e) for e in errors[:20]]
    first = detail[0] if detail else {"loc": ["body"], "msg": "invalid request"}
    message = f"body: {first['msg']}" if first.get("type") == "json_invalid" else error_line(first)
    return {"detail": detail, "message": message}


def json_decode_reason(exc: BaseException) -> str:
    """Why a body is not JSON, in the client's terms: Python's hint about `sys.set_int_max_str_digits()`
    is advice for the server's code, not for whoever sent a 5000-digit number."""
    if isinstance(exc, RecursionError):
        return "the JSON is nested too deeply"
    text = str(exc)
    if "integer string conversion" in text:
        return f"invalid JSON: a number has more than {sys.get_int_max_str_digits()} digits"
    return f"invalid JSON: {text}"


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
        return invalid_body(json_decode_reason(cause)[:MAX_MESSAGE])
    if exc.status_code == 400:
        # FastAPI's other 400s are bodies it could not parse (a broken multipart form): bad input, a 422 as always
        return invalid_body(f"invalid body: {exc.detail}"[:MAX_MESSAGE])
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))


async def on_unavailable(request: Request, exc: Exception) -> JSONResponse:
    """A plain sentence for the client; the cause (a host, a port, an errno) goes to the operator's log."""
    log.warning("%s %s: %s (%r)", request.method, request.url.path, exc, exc.__cause__)
    text = f"service unavailable: {exc}; retry in a few seconds"
    return JSONResponse({"detail": text, "message": text}, status_code=503, headers={"Retry-After": "5"})


async def on_busy(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Busy)
    return JSONResponse(
        {"detail": exc.message, "message": exc.message, "retry_after_s": exc.retry_after_s},
        status_code=429,
        headers={"Retry-After": str(exc.retry_after_s)},
    )


async def on_too_long(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(validation_body([{"loc": ["body"], "msg": str(exc), "type": "value_error"}]), status_code=422)


async def on_recursion(request: Request, exc: Exception) -> JSONResponse:
    return invalid_body("the JSON is nested too deeply")


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(BackendUnavailable, on_unavailable)
    app.add_exception_handler(RecursionError, on_recursion)
    app.add_exception_handler(Busy, on_busy)
    app.add_exception_handler(TooLong, on_too_long)
