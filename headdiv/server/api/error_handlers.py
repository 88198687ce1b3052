"""Error handlers: every bad request gets a JSON answer naming the field and the reason, never a 500.

FastAPI's own 422 body echoes the offending input; for deeply nested or huge bodies encoding that
echo can itself overflow the stack, so these handlers keep location, message and type only.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from headdiv.schemas.fields import error_line
from headdiv.server.admission import Busy, TooLong
from headdiv.server.backends.backend_protocol import BackendUnavailable

log = logging.getLogger(__name__)
MAX_MESSAGE = 500


WHOLE_BODY = frozenset({"json_invalid", "model_attributes_type"})
"""Refusals of the body as a whole: their line is named `body`."""
PATTERN_HINTS = {
    "job_id": "not a job id: a job id is the 64 lowercase hex digits its submission answered with",
    "poll_id": "not a poll id: a poll id is the 16 letters, digits, '-' or '_' its poll link holds",
    "query": "not a URL query: send `?` and the page's parameters, nothing before it and no `#`",
}
"""What a malformed id is, in place of pydantic's regular expression."""


def _clean(error: dict[str, Any]) -> dict[str, Any]:
    loc = [p if isinstance(p, (str, int)) else str(p) for p in error.get("loc", ())]
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    kind = str(error.get("type", "value_error"))
    if kind == "string_pattern_mismatch" and loc and str(loc[-1]) in PATTERN_HINTS:
        msg = PATTERN_HINTS[str(loc[-1])]
    elif kind == "json_invalid" and msg == "JSON decode error":
        where = f" at character {loc[-1]}" if len(loc) > 1 and isinstance(loc[-1], int) else ""
        cause = (error.get("ctx") or {}).get("error")
        msg = f"not valid JSON{where}" + (f" ({cause})" if cause else "") + "; send a JSON object"
        loc = ["body"]
    elif kind == "model_attributes_type" and loc == ["body"]:
        msg = "send a JSON object of the request's fields (Content-Type: application/json)"
    return {"loc": loc, "msg": msg[:MAX_MESSAGE], "type": kind}


def validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """FastAPI's `{detail: [{loc, msg, type}]}` plus one readable `message` line naming the field (or the body
    as a whole) and what it should be."""
    detail = [_clean(e) for e in errors[:20]]
    first = detail[0] if detail else {"loc": ["body"], "msg": "invalid request"}
    line = error_line(first)
    # the body as a whole (not JSON, not an object) is named; a model's own rule already names its fields
    message = f"body: {line}" if first.get("type") in WHOLE_BODY else line
    return {"detail": detail, "message": message}


def refused(status: int, text: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """A refusal that is one sentence: what is wrong (naming the field or header) and what to do."""
    return JSONResponse({"detail": text, "message": text}, status_code=status, headers=headers)


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
    if isinstance(exc.detail, str):
        return refused(exc.status_code, exc.detail, getattr(exc, "headers", None))
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
