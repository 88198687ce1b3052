"""Request body size limits (413), checked on Content-Length and on the bytes actually streamed.

A pure ASGI middleware so the limit holds for chunked bodies too, and so it can choose the limit
per path: model uploads (POST /api/v1/models/hdi) may be large, everything else is small JSON.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UPLOAD_PATHS = ("/api/v1/models/hdi",)


class _TooLarge(HTTPException):
    """An HTTPException, so FastAPI's body reader lets it through to the JSON error handler."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body too large: the limit here is {limit} bytes")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int, max_upload_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes

    def limit_for(self, path: str) -> int:
        return self.max_upload_bytes if path.rstrip("/") in UPLOAD_PATHS else self.max_body_bytes

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
                    await self._reject(send, limit, scope)
                    return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _TooLarge(limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._reject(send, limit, scope)
        except BaseExceptionGroup as group:
            if group.subgroup(_TooLarge) is None or started:
                raise
            await self._reject(send, limit, scope)

    @staticmethod
    async def _reject(send: Send, limit: int, scope: Scope) -> None:
        body = json.dumps({"detail": f"request body too large: the limit here is {limit} bytes"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
