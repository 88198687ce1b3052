"""CPU-heavy requests answered inline (model uploads, /hdi): a bounded number at once, off the event loop,
under a time limit, and abandoned when their client goes away.

Such a request is not a job (its answer is wanted now, and it is not worth caching), but left alone it
could hold a core for minutes inside the API process. `HeavyWork.run` gives it one of a few slots
(waiting at most `wait_s` for one, then 429 with Retry-After), runs it in a thread, and hands it a
`should_stop()` that turns true when its deadline passes or its client disconnects; the computation
asks between steps (layers, pairs) and stops by raising. The slots are a plain counter polled by the
waiting requests, so they are not tied to one event loop.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from fastapi import HTTPException, Request
from starlette.concurrency import run_in_threadpool

T = TypeVar("T")
CHECK_EVERY_S = 0.05


class ClientGone(Exception):
    """The client disconnected; the computation was stopped and nobody is left to answer.

    `stopped` is what the computation raised when it stopped (None if it had finished anyway)."""

    def __init__(self, stopped: BaseException | None = None) -> None:
        super().__init__("the client went away")
        self.stopped = stopped


class TimedOut(Exception):
    """The computation passed its time limit and was stopped."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(f"stopped after the time limit of {limit_s:g} s")
        self.limit_s = limit_s


class HeavyWork:
    def __init__(self, name: str, *, slots: int, wait_s: float, timeout_s: float) -> None:
        self.name = name
        self.slots = slots
        self.wait_s = wait_s
        self.timeout_s = timeout_s
        self._busy = 0
        self._lock = threading.Lock()
        self.abandoned = 0
        """Computations stopped because their client went away (for the logs and the tests)."""

    @property
    def busy(self) -> int:
        """Slots in use now."""
        return self._busy

    def _try_acquire(self) -> bool:
        with self._lock:
            if self._busy >= self.slots:
                return False
            self._busy += 1
            return True

    def _release(self) -> None:
        with self._lock:
            self._busy -= 1

    async def _acquire(self, request: Request) -> None:
        deadline = time.monotonic() + self.wait_s
        while not self._try_acquire():
            if await request.is_disconnected():
                raise ClientGone
            if time.monotonic() >= deadline:
                retry = max(1, math.ceil(self.timeout_s / 4))
                raise HTTPException(
                    429,
                    f"the server is busy: all {self.slots} {self.name} slot(s) are in use; retry in {retry} s",
                    headers={"Retry-After": str(retry)},
                )
            await asyncio.sleep(CHECK_EVERY_S)

    async def run(self, request: Request, fn: Callable[[Callable[[], bool]], T]) -> T:
        """`fn(should_stop)` in a thread, in a slot; raises ClientGone, TimedOut or fn's own exceptions."""
        await self._acquire(request)
        try:
            stop = threading.Event()
            deadline = time.monotonic() + self.timeout_s

            def should_stop() -> bool:
                if time.monotonic() >= deadline:
                    stop.set()
                return stop.is_set()

            task = asyncio.ensure_future(run_in_threadpool(fn, should_stop))
            gone = False
            while not task.done():
                await asyncio.wait({task}, timeout=CHECK_EVERY_S * 4)
                if not task.done() and not gone and await request.is_disconnected():
                    gone = True
                    stop.set()  # the thread ends at its next check; its slot is freed only then
            try:
                result = task.result()
            except Exception as exc:
                if gone:
                    self.abandoned += 1
                    raise ClientGone(exc) from None
                if stop.is_set():
                    raise TimedOut(self.timeout_s) from None
                raise
            if gone:
                self.abandoned += 1
                raise ClientGone
            return result
        finally:
            self._release()


def heavy_work(request: Request, key: str, make: Callable[[], HeavyWork]) -> HeavyWork:
    """The app's `HeavyWork` of this name, made at first use from its settings."""
    state = request.app.state
    found = getattr(state, key, None)
    if not isinstance(found, HeavyWork):
        found = make()
        setattr(state, key, found)
    return found
