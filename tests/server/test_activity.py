"""The start-up's compilation waits for a quiet moment (`headdiv/server/activity.py`): a person who opens the
page as the server starts is answered first; a server never quiet still compiles within its limit."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import pytest
import torch
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from headdiv.server.activity import Activity, ActivityMiddleware
from headdiv.workers.engine import nw


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_quiet_server_is_quiet_at_once_and_a_busy_one_waits() -> None:
    t = FakeTime()
    activity = Activity(clock=t.clock, sleep=t.sleep)
    assert activity.wait_quiet(1.5, 60) and t.now == 100.0  # nobody has come yet
    activity.last = t.now - 0.5  # a request answered half a second ago
    assert activity.wait_quiet(1.5, 60)
    assert t.now - activity.last >= 1.5 and t.now < 101.5


def test_a_request_in_flight_holds_the_work_until_the_limit() -> None:
    t = FakeTime()
    activity = Activity(clock=t.clock, sleep=t.sleep)
    activity.in_flight = 1  # a long-poll that never ends
    assert not activity.wait_quiet(1.5, 60)
    assert 160.0 <= t.now <= 160.25


def test_requests_stamp_the_clock_but_health_polls_do_not() -> None:
    activity = Activity()

    async def hello(request: Any) -> PlainTextResponse:
        assert activity.in_flight == 1  # counted while it is answered
        return PlainTextResponse("hi")

    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/", hello), Route("/api/v1/health", health)])
    client = TestClient(ActivityMiddleware(app, activity))
    assert client.get("/api/v1/health").status_code == 200
    assert activity.last == -float("inf")
    assert client.get("/").text == "hi"
    assert activity.last > 0 and activity.in_flight == 0


def test_compilation_pauses_before_each_kernel(monkeypatch: Any) -> None:
    """`nw._compile` calls `pause()` before each of its two kernels (torch.compile replaced by the eager
    function here: what is tested is where the pauses fall, not inductor)."""
    import threading

    me = threading.get_ident()
    calls: list[int] = []

    def compile_here(fn: Any, **options: Any) -> Any:  # counts this thread's calls (a server of an earlier
        if threading.get_ident() == me:  # test may still be warming up in its own thread)
            calls.append(len(calls))
        return fn

    monkeypatch.setattr(nw.torch, "compile", compile_here)
    monkeypatch.setattr(nw, "_compiled", {})
    pauses: list[int] = []
    nw._compile(torch.device("cpu"), torch.float64, pause=lambda: pauses.append(len(calls)))
    assert pauses == [0, 1] and len(calls) == 2  # each pause comes before its kernel's compilation


def test_overlapping_compilations_restore_the_interpreters_switch_interval_once_both_end() -> None:
    """Several apps in one process (tests) compile at once: the quick hand-over ends with the last of them."""
    from headdiv.server.start_up import SWITCH_WHILE_COMPILING_S, quick_handover

    before = sys.getswitchinterval()
    first = quick_handover()
    first.__enter__()
    with quick_handover():
        assert sys.getswitchinterval() == pytest.approx(SWITCH_WHILE_COMPILING_S)
    assert sys.getswitchinterval() == pytest.approx(SWITCH_WHILE_COMPILING_S)  # the first still compiles
    first.__exit__(None, None, None)
    assert sys.getswitchinterval() == pytest.approx(before)


@pytest.mark.skipif(sys.platform != "linux", reason="a thread's own nice value is Linux's")
def test_the_compilation_runs_at_a_low_priority_and_leaves_the_callers_as_it_was() -> None:
    """The browser that shares the cores (a student who opens the page as the server starts) comes first;
    the thread that asked, and so people's jobs, keep their priority."""
    from headdiv.server.start_up import COMPILE_NICE, at_low_priority

    def own_nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = own_nice()
    assert at_low_priority(own_nice) == max(COMPILE_NICE, before)
    assert own_nice() == before


def test_a_failed_compilation_reaches_the_start_up_thread() -> None:
    """The start-up falls back to the eager path on a failure: the error must come out of the thread."""
    from headdiv.server.start_up import at_low_priority

    def fails() -> None:
        raise RuntimeError("no compiler")

    with pytest.raises(RuntimeError, match="no compiler"):
        at_low_priority(fails)


def test_full_collections_wait_while_the_start_up_imports_and_compiles() -> None:
    """A full collection walks the whole process holding the interpreter (a stall of 0.3-0.6 s a cached answer
    waited behind): what the start-up imports is frozen, and full collections wait until the last app's
    imports and compilation end (young objects are still collected)."""
    import gc

    from headdiv.server.start_up import FULL_COLLECTION_DEFERRED, full_collections_deferred

    before = gc.get_threshold()
    first = full_collections_deferred()
    first.__enter__()
    try:
        with full_collections_deferred():
            assert gc.get_threshold() == (before[0], before[1], FULL_COLLECTION_DEFERRED)
            assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[2] == FULL_COLLECTION_DEFERRED  # the first still runs
    finally:
        first.__exit__(None, None, None)
        gc.unfreeze()  # the test process's objects go back to the collector
    assert gc.get_threshold() == before
