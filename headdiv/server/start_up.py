"""What an embedded server does in the background as it starts: compile the engine (or load the kernels an
earlier start of this version kept), know its speed (kept, else measured), and compute the dashboard's first
views at the lowest priority (or take them from an earlier start), so the first person never pays for any of it."""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from headdiv.jobs.ids import job_id
from headdiv.jobs.kinds import JobKind, kind_at
from headdiv.plumbing.kept import keep, read_kept
from headdiv.schemas.fields import canonical
from headdiv.server.activity import Activity
from headdiv.server.admission import Speed
from headdiv.server.backends.backend_protocol import JobBackend
from headdiv.server.backends.inline import InlineBackend
from headdiv.server.server_settings import ServerSettings
from headdiv.workers import instant_reports

log = logging.getLogger(__name__)


def warm_requests() -> list[tuple[JobKind, BaseModel]]:
    """The dashboard's first computations as validated job requests (none when the dashboard is absent)."""
    try:
        from headdiv.dashboard import warm_requests as dashboard_requests
    except ImportError:
        return []
    out = []
    for path, body in dashboard_requests():
        kind = kind_at(path)
        try:
            out.append((kind, kind.validate(body)))
        except ValidationError as exc:  # a preset beyond this server's limits: skip it, say which
            log.warning("warm start skips %s: %s", path, exc.errors()[0]["msg"])
    return out


QUIET_S = 1.5
"""How long nobody must have been answered before a step of the engine's compilation takes the interpreter
(tracing holds it for about a second per kernel on two cores)."""
SWITCH_WHILE_COMPILING_S = 0.0002
QUIET_LIMIT_S = 60.0
"""A server never quiet for that long compiles anyway: the eager path is about 3x slower per computation."""


COMPILE_NICE = 10
"""The compilation's nice value: on a machine whose cores the browser shares (a lecturer's laptop, a student
opening the page as the server starts), the tracing gets about a tenth of a core that a program at normal
priority also wants (the kernel's weights 110 against 1024), so the browser goes first; not the lowest (19:
1.5%), with which a machine kept busy by other work would leave people on the 3x slower eager path for long."""

T = TypeVar("T")


def at_low_priority(fn: Callable[[], T]) -> T:
    """`fn()` in a thread of its own at a low CPU priority (`COMPILE_NICE`, or the server's own if lower),
    waited for. On Linux a thread's nice value is its own (the process's other threads, people's jobs among
    them, keep theirs), and it cannot be raised again, hence a thread that ends with the work; threads and
    processes it starts inherit it. Elsewhere the priority is left as it is."""

    def lower() -> None:
        if sys.platform == "linux":
            tid = threading.get_native_id()
            try:
                os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), COMPILE_NICE))
            except OSError:
                log.info("the compilation runs at the server's priority (its nice value could not be set)")

    with ThreadPoolExecutor(1, thread_name_prefix="headdiv-compile", initializer=lower) as pool:
        return pool.submit(fn).result()


_handover_lock = threading.Lock()
_handover: list[float] = []
"""The interpreter's switch interval before the first of the compilations now running (one per app; tests
run several apps in one process): restored when the last ends."""


@contextmanager
def quick_handover() -> Iterator[None]:
    """Tracing is pure Python: at the default 5 ms, each time a request's thread gives the interpreter up
    (every await, every socket write) it waits up to 5 ms to get it back, a convoy that made a cached answer
    take 0.7 s instead of 30 ms behind it; handing over every 0.2 ms meanwhile costs the tracing little."""
    with _handover_lock:
        _handover.append(sys.getswitchinterval())
        sys.setswitchinterval(SWITCH_WHILE_COMPILING_S)
    try:
        yield
    finally:
        with _handover_lock:
            first = _handover[0]
            _handover.pop()
            if not _handover:
                sys.setswitchinterval(first)


FULL_COLLECTION_DEFERRED = 1 << 30
"""The garbage collector's third threshold while the start-up imports and compiles: no full collection."""
_deferred: list[tuple[int, int, int]] = []
"""The collector's thresholds before the first of the deferrals now running (one per app; tests run several
apps in one process): restored when the last ends."""


@contextmanager
def full_collections_deferred() -> Iterator[None]:
    """CPython's full collection walks every object in the process (the dashboard's, torch's): 0.3-0.6 s
    holding the interpreter on two cores, three of them set off by the imports and tracing of one
    compilation, each a stall a cached answer waited behind. What the start-up's imports make lives as long
    as the process: it is frozen (`gc.freeze`: never walked again) before and after, and full collections
    wait meanwhile; young objects are still collected (measured: under 5000 objects of garbage frozen with
    the rest, no stall over 30 ms left in the compilation)."""
    with _handover_lock:
        gc.freeze()
        _deferred.append(gc.get_threshold())
        gc.set_threshold(_deferred[0][0], _deferred[0][1], FULL_COLLECTION_DEFERRED)
    try:
        yield
    finally:
        with _handover_lock:
            first = _deferred[0]
            _deferred.pop()
            if not _deferred:
                gc.set_threshold(*first)
            gc.freeze()


def start_up(
    backend: JobBackend,
    settings: ServerSettings,
    activity: Activity | None = None,
    stopped: threading.Event | None = None,
) -> None:
    """In the background: first what an earlier start of this version kept (the first views' results, the
    engine's speed and compiled kernels: disk reads, ready for a person who comes at once); else compile the
    engine, each step in a quiet moment (`activity`: a person who opens the page as the server starts is
    answered by the eager path meanwhile, not made to wait behind the tracing), measure its speed (for
    admission control), and compute the rest of the dashboard's first views at low priority; last, in a
    quiet moment, build the compiled kernels for the next start in a process of its own at the lowest
    priority (ended when `stopped` is set, the server shutting down). Failures leave the eager path, no
    bound by speed and an empty cache in place."""
    pause = None if activity is None else lambda: activity.wait_quiet(QUIET_S, QUIET_LIMIT_S)
    compiled = False
    with full_collections_deferred() if settings.warm_up else contextlib.nullcontext():
        todo = take_kept(backend) if settings.warm_start else []
        if isinstance(backend, InlineBackend) and settings.warm_up and backend.speed is None:
            _set_speed(backend, instant_reports.kept_speed())
        if settings.warm_up:
            with quick_handover():
                try:
                    compiled = at_low_priority(lambda: instant_reports.warm_up(pause))
                except Exception:
                    log.warning("engine warm-up failed; the eager path will be used", exc_info=True)
            if isinstance(backend, InlineBackend) and backend.speed is None:
                try:
                    _set_speed(backend, instant_reports.engine_speed())
                except Exception:
                    log.warning("engine speed not measured; jobs are not bounded by it", exc_info=True)
    if settings.warm_start:
        warm_start(backend, todo)
    if compiled and not (stopped is not None and stopped.is_set()):
        if pause is not None:
            pause()
        try:
            instant_reports.keep_kernels(stopped)
        except Exception:
            log.warning("the compiled kernels were not kept for the next start", exc_info=True)


def _set_speed(backend: InlineBackend, speed: float | None) -> None:
    if speed is not None:
        backend.speed = Speed(speed, speed)
        log.info("engine speed: %.3g work units per second", speed)


KEPT_WAIT_S = 900.0
"""How long the start-up thread waits for a warm job to end, to keep its result for the next start."""


def take_kept(backend: JobBackend) -> list[tuple[JobKind, BaseModel, str]]:
    """Embedded: put the first views an earlier start of this version computed into the cache (their job ids
    name the engine's version, `headdiv.plumbing.kept`); the others, with their ids, are left to compute.
    Scaled, the results live in Redis and outlive a restart already."""
    todo = []
    for kind, request in warm_requests():
        jid = job_id(kind.name, canonical(request))
        if isinstance(backend, InlineBackend):
            raw = read_kept("results", f"{jid}.json")
            if raw is not None:
                if backend.cache.get(jid) is None:
                    backend.cache.set(jid, raw)
                continue
        todo.append((kind, request, jid))
    return todo


def warm_start(backend: JobBackend, todo: list[tuple[JobKind, BaseModel, str]]) -> None:
    """Compute the first views not kept at the lowest priority; embedded, keep each result for the next start,
    those a person had computed already included (the default view, asked as the server started, was found
    cached here and never kept: every later start computed it again)."""
    for kind, request, jid in todo:
        backend.submit(kind.name, request, jid, background=True)
    if isinstance(backend, InlineBackend):
        keep_when_done(backend, [jid for _, _, jid in todo])


def keep_when_done(backend: InlineBackend, computing: list[str]) -> None:
    """Keep each warm job's result on disk once it is finished (in the start-up thread, polled: it holds
    nothing else)."""
    deadline = time.monotonic() + KEPT_WAIT_S
    while computing and time.monotonic() < deadline:
        state = backend.get(computing[0])
        if state is not None and not state.done:
            time.sleep(0.5)
            continue
        jid = computing.pop(0)
        raw = backend.cache.get(jid) if state is not None and state.status == "finished" else None
        if raw is not None:
            keep("results", f"{jid}.json", raw)
