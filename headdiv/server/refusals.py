"""Refused requests: one log line each, with the reason the client was given (never its body).

Every 4xx the server answers, from any layer (the API's handlers, the body limits, the mounted dashboard, the
HTTP guard's 431/408/400 before any app runs), says in its JSON `message` which field or header is wrong and
what to do. The operator sees the same sentence in the log, one line per refused request:

    refused 413 POST /api/v1/hdi from 10.0.0.7: request body too large: ...

A script that sends nonsense in a loop cannot fill a lecture server's disk: at most `per_window` lines per
`window_s`; the ones held back are counted in the next line that gets out, so every refusal is accounted for.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("headdiv.refusals")
MAX_REASON = 300
"""Characters of the reason in a log line (the client's own text may be quoted in it)."""
MAX_READ = 16 * 1024
"""Bytes of a refusal's body read for its reason; refusals are short, a longer body is not parsed."""


class RateLimitedLog:
    """At most `per_window` lines per `window_s`; the lines held back are counted and said in the next line
    that gets out."""

    def __init__(
        self, per_window: int = 60, window_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_window, self.window_s, self.clock = per_window, window_s, clock
        self.start, self.count, self.held = 0.0, 0, 0
        self.lock = threading.Lock()

    def warning(self, msg: str, *args: Any) -> None:
        now = self.clock()
        with self.lock:
            if now - self.start >= self.window_s:
                self.start, self.count = now, 0
            if self.count >= self.per_window:
                self.held += 1
                return
            self.count += 1
            held, self.held = self.held, 0
        log.warning(msg + (f" ({held} more refused and not logged before this)" if held else ""), *args)


REFUSALS = RateLimitedLog()


def log_refusal(status: int, method: str, path: str, client: str, reason: str) -> None:
    """The access line of one refused request: status, method, path, client, the reason it was told."""
    line = " ".join(reason.split())[:MAX_REASON]
    REFUSALS.warning("refused %d %s %s from %s: %s", status, method[:16], path[:200], client or "?", line)


def reason_of(body: bytes, gzipped: bool = False) -> str:
    """The sentence a refusal's JSON body gives (`message`, else a string `detail`); a body that is not such
    JSON gives its first line of text."""
    if gzipped:
        try:
            body = zlib.decompressobj(wbits=31).decompress(body, MAX_READ)
        except zlib.error:
            return "(an unreadable compressed body)"
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip().split("\n", 1)[0] or "(no reason given)"
    if isinstance(data, dict):
        for key in ("message", "detail"):
            if isinstance(data.get(key), str) and data[key]:
                return str(data[key])
    return "(no reason given)"


class RefusalLogMiddleware:
    """Logs each 4xx the app answers, with the reason from its body (429's included: a busy server's
    refusals are what an operator looks for)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 0
        body = bytearray()
        gzipped = logged = False

        def finish() -> None:
            nonlocal logged
            if not logged:
                logged = True
                client = scope.get("client") or ("", 0)
                log_refusal(
                    status,
                    scope.get("method", ""),
                    scope.get("path", ""),
                    str(client[0]),
                    reason_of(bytes(body), gzipped),
                )

        async def watch(message: Message) -> None:
            nonlocal status, gzipped
            if message["type"] == "http.response.start":
                status = int(message["status"])
                gzipped = (b"content-encoding", b"gzip") in [(k.lower(), v) for k, v in message.get("headers", ())]
            elif message["type"] == "http.response.body" and 400 <= status < 500:
                if len(body) < MAX_READ:
                    body.extend(message.get("body", b"")[: MAX_READ - len(body)])
                if not message.get("more_body", False):
                    finish()
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if 400 <= status < 500:
                finish()  # a body cut short (the client left) is still a refusal
