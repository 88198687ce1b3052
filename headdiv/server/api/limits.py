"""Request body limits: size (413), checked on Content-Length and on the bytes actually streamed, and
time (408): a body whose next piece does not come within `body_timeout_s` is answered and dropped.

A pure ASGI middleware so the limits hold for chunked bodies too, and so it can choose the size limit
per path: model uploads (POST /api/v1/models/hdi) may be large, everything else is small JSON. Without
the time limit a client that sends headers and then stalls holds its connection (and whatever the
route holds) for as long as it likes.
"""

from __future__ import annotations

import json
import math

import anyio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UPLOAD_PATHS = ("/api/v1/models/hdi",)


def is_upload(path: str) -> bool:
    return path.rstrip("/") in UPLOAD_PATHS


class TooLarge(HTTPException):
    """An HTTPException, so FastAPI's body reader lets it through to the JSON error handler."""

    def __init__(self, limit: int, close: bool = False, upload: bool = False) -> None:
        headers = {"Connection": "close"} if close else None  # the rest of the body is left unread
        remedy = BIGGER_MODEL if upload else "send a smaller body"
        super().__init__(
            413, f"request body too large: this endpoint takes at most {limit} bytes; {remedy}", headers=headers
        )


BIGGER_MODEL = (
    "measure a bigger model with `headdiv heads <folder>` on your own machine, or ask for it in the server's "
    "HEADDIV_MODELS_DIR"
)


class _BadLength(HTTPException):
    def __init__(self) -> None:
        text = "Content-Length header: not a whole number of bytes; send the body's length in bytes, or no header"
        super().__init__(400, text, headers={"Connection": "close"})


class _Stalled(HTTPException):
    def __init__(self, timeout_s: float, whole: bool = False) -> None:
        what = f"took longer than {timeout_s:g} s in all" if whole else f"stalled: no data for {timeout_s:g} s"
        text = f"request body {what}; send the whole body at once, then read the answer"
        super().__init__(408, text, headers={"Connection": "close"})


class BodyLimitMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        max_upload_bytes: int,
        body_timeout_s: float = math.inf,
        body_deadline_s: float = math.inf,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes
        self.body_timeout_s = body_timeout_s
        self.body_deadline_s = body_deadline_s
        """The whole body's deadline (JSON bodies; an upload is bounded by its pieces' timeout alone): a client
        that trickles a byte just inside the stall timeout cannot hold a request for ever."""

    def limit_for(self, path: str) -> int:
        return self.max_upload_bytes if is_upload(path) else self.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path", ""))
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > limit or declared < 0:
                    # answered before the body is read: the connection closes after it (gracefully, the
                    # rest of the body drained: `http_guard`), never read as the next request
                    upload = is_upload(scope.get("path", ""))
                    await self._reject(send, TooLarge(limit, True, upload) if declared >= 0 else _BadLength())
                    return
        received = 0
        started = False
        body_done = False
        deadline = math.inf if is_upload(scope.get("path", "")) else anyio.current_time() + self.body_deadline_s

        async def limited_receive() -> Message:
            nonlocal received, body_done
            if body_done:  # after the body only a disconnect can come: waiting for it is no stall
                return await receive()
            left = deadline - anyio.current_time()
            try:
                with anyio.fail_after(max(0.0, min(self.body_timeout_s, left))):
                    message = await receive()
            except TimeoutError:
                whole = left <= self.body_timeout_s
                raise _Stalled(self.body_deadline_s if whole else self.body_timeout_s, whole) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise TooLarge(limit, True, is_upload(scope.get("path", "")))
                body_done = not message.get("more_body", False)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except (TooLarge, _Stalled) as exc:
            if not started:
                await self._reject(send, exc)
        except BaseExceptionGroup as group:
            found = group.subgroup((TooLarge, _Stalled))
            if found is None or started:
                raise
            first = found.exceptions[0]
            while isinstance(first, BaseExceptionGroup):
                first = first.exceptions[0]
            assert isinstance(first, HTTPException)
            await self._reject(send, first)

    async def _reject(self, send: Send, exc: HTTPException) -> None:
        await send_refusal(send, exc)


async def send_refusal(send: Send, exc: HTTPException) -> None:
    """A whole JSON answer `{"detail", "message"}` with the exception's status (a 408, or an exception that says
    so, also closes the connection)."""
    body = json.dumps({"detail": exc.detail, "message": exc.detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if exc.status_code == 408 or (exc.headers or {}).get("Connection") == "close":
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": exc.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": body})
