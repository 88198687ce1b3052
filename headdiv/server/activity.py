"""When people last asked this server something: the start-up's own work (the engine's compilation) waits
for a quiet moment instead of taking the interpreter from the first person who opens the page."""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

IGNORED_PATHS = frozenset({"/api/v1/health"})
"""Requests that are nobody's wait: a load balancer's or a start script's health polls."""
STREAMS = "/events"
"""A room follower's event stream stays open for the whole lecture: it is nobody's wait either."""


class Activity:
    def __init__(
        self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.clock, self.sleep = clock, sleep
        self.last = -float("inf")
        self.in_flight = 0

    def wait_quiet(self, quiet_s: float, limit_s: float) -> bool:
        """Until nobody has been answered or waited on for `quiet_s` (True), or `limit_s` has passed (False):
        a server busy for ever still gets its work done."""
        deadline = self.clock() + limit_s
        while True:
            now = self.clock()
            idle = 0.0 if self.in_flight else now - self.last
            if idle >= quiet_s:
                return True
            if now >= deadline:
                return False
            self.sleep(min(quiet_s - idle, deadline - now, 0.25))


class ActivityMiddleware:
    """Counts requests in flight and stamps the end of each (a pure ASGI layer: no per-request allocation
    beyond the call)."""

    def __init__(self, app: ASGIApp, activity: Activity) -> None:
        self.app, self.activity = app, activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in IGNORED_PATHS or path.endswith(STREAMS):
            await self.app(scope, receive, send)
            return
        activity = self.activity
        activity.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            activity.in_flight -= 1
            activity.last = activity.clock()
