"""Watching jobs for `?wait=`: woken by the runner's announcements, one read per change for every watcher.

A long-poll costs the event loop nothing while it waits: it awaits a future that the runner's publish
(embedded: its thread; scaled: a message on Redis pub/sub) resolves, and only for the changes it waits
for (its job's end, or with `until=progress` any step). The watchers of one job share their reads: one
read per change (or per `max_age` without news), however many are watching.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from headdiv.jobs.state import JobState

Until = Literal["end", "progress"]


@dataclass(eq=False)
class Watcher:
    job_id: str
    until: Until
    loop: asyncio.AbstractEventLoop
    woken: asyncio.Future[None]


@dataclass
class _Latest:
    state: JobState | None
    read_at: float
    version: int
    """The job's change count when the read began: a later announcement makes it stale."""


@dataclass
class JobWatch:
    max_age_s: float = 1.0
    """A shared read younger than this (and no change announced since) answers without a new read."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _watchers: dict[str, set[Watcher]] = field(default_factory=dict)
    _versions: dict[str, int] = field(default_factory=dict)
    _latest: dict[str, _Latest] = field(default_factory=dict)
    _reading: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Future[JobState | None]] = field(default_factory=dict)

    def watch(self, job_id: str, until: Until) -> Watcher:
        """Register before reading the state, so no change between the read and the wait is missed."""
        loop = asyncio.get_running_loop()
        watcher = Watcher(job_id, until, loop, loop.create_future())
        with self._lock:
            self._watchers.setdefault(job_id, set()).add(watcher)
        return watcher

    def forget(self, watcher: Watcher) -> None:
        with self._lock:
            watchers = self._watchers.get(watcher.job_id)
            if watchers is not None:
                watchers.discard(watcher)
                if not watchers:
                    del self._watchers[watcher.job_id]
                    self._latest.pop(watcher.job_id, None)
                    self._versions.pop(watcher.job_id, None)

    def announce(self, job_id: str, *, ended: bool) -> None:
        """The job's record changed (any thread): wake its watchers that wait for this change."""
        with self._lock:
            watchers = self._watchers.get(job_id)
            if not watchers:
                return
            self._versions[job_id] = self._versions.get(job_id, 0) + 1
            woken = [w for w in watchers if ended or w.until == "progress"]
        by_loop: dict[asyncio.AbstractEventLoop, list[Watcher]] = {}
        for w in woken:
            by_loop.setdefault(w.loop, []).append(w)
        for loop, group in by_loop.items():
            with contextlib.suppress(RuntimeError):  # a loop that has closed: its requests are gone
                loop.call_soon_threadsafe(_wake, group)

    async def read(self, job_id: str, fetch: Callable[[], Awaitable[JobState | None]]) -> JobState | None:
        """The job's state, read once for all the watchers asking at about the same time."""
        with self._lock:
            latest = self._latest.get(job_id)
            version = self._versions.get(job_id, 0)
        if latest is not None and latest.version == version and time.monotonic() - latest.read_at < self.max_age_s:
            return latest.state
        key = (asyncio.get_running_loop(), job_id)
        pending = self._reading.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._fetch(key, version, fetch))
            self._reading[key] = pending
        return await asyncio.shield(pending)

    async def _fetch(
        self,
        key: tuple[asyncio.AbstractEventLoop, str],
        version: int,
        fetch: Callable[[], Awaitable[JobState | None]],
    ) -> JobState | None:
        job_id = key[1]
        try:
            read_at = time.monotonic()
            state = await fetch()
            with self._lock:
                if job_id in self._watchers:
                    self._latest[job_id] = _Latest(state, read_at, version)
            return state
        finally:
            self._reading.pop(key, None)


def _wake(watchers: list[Watcher]) -> None:
    for w in watchers:
        if not w.woken.done():
            w.woken.set_result(None)
