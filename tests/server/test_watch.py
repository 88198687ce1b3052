"""Long-polls wait for the runner's announcements and share their reads (`JobWatch`)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fastapi.testclient import TestClient

from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.jobs.state import JobState
from headdiv.server.backends.watch import JobWatch
from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings
from tests.server.helpers import RUN_SEED, poll, run_async, slow_surface


def running(progress: float = 0.0) -> JobState:
    return JobState(job_id="a" * 64, status="running", progress=progress)


def test_a_thousand_watchers_share_one_read_per_change() -> None:
    watch = JobWatch(max_age_s=60)
    reads = 0

    async def fetch() -> JobState:
        nonlocal reads
        reads += 1
        await asyncio.sleep(0.01)
        return running(reads / 10)

    async def scenario() -> list[JobState | None]:
        watchers = [watch.watch("a" * 64, "end") for _ in range(1000)]
        first = await asyncio.gather(*(watch.read("a" * 64, fetch) for _ in range(1000)))
        assert reads == 1 and all(s is first[0] for s in first)
        again = await watch.read("a" * 64, fetch)  # nothing announced: the shared read answers
        assert reads == 1 and again is first[0]
        watch.announce("a" * 64, ended=False)  # a step: the next read is a new one, for all
        second = await asyncio.gather(*(watch.read("a" * 64, fetch) for _ in range(1000)))
        for w in watchers:
            watch.forget(w)
        return [*first[:1], *second[:1]]

    first, second = run_async(scenario())
    assert reads == 2 and first is not None and second is not None and second.progress > first.progress


def test_an_announcement_from_another_thread_wakes_only_the_watchers_waiting_for_it() -> None:
    watch = JobWatch()

    async def scenario() -> tuple[bool, bool, bool]:
        end = watch.watch("b" * 64, "end")
        step = watch.watch("b" * 64, "progress")
        threading.Thread(target=watch.announce, args=("b" * 64,), kwargs={"ended": False}).start()
        await asyncio.wait_for(step.woken, 5)
        stepped_end = end.woken.done()
        threading.Thread(target=watch.announce, args=("b" * 64,), kwargs={"ended": True}).start()
        await asyncio.wait_for(end.woken, 5)
        for w in (end, step):
            watch.forget(w)
        return step.woken.done(), stepped_end, end.woken.done()

    assert run_async(scenario()) == (True, False, True)


def test_no_read_is_kept_for_a_job_nobody_watches() -> None:
    watch = JobWatch(max_age_s=60)
    reads = 0

    async def fetch() -> JobState:
        nonlocal reads
        reads += 1
        return running()

    async def scenario() -> None:
        await watch.read("c" * 64, fetch)
        await watch.read("c" * 64, fetch)

    run_async(scenario())
    assert reads == 2  # a plain poll always reads the job afresh


def test_polling_a_running_embedded_job_reads_nothing_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner publishes the job's record; a poll reads that record, never the cells in the cache."""
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as client:
        r = client.post("/api/v1/surfaces", json=slow_surface(6, replicates=128, seed=RUN_SEED + 4711))
        job = r.json()["job_id"]
        body = poll(client, job, lambda b: b["status"] == "running" and b["cells"]["done"] >= 1, 120)
        reads: list[str] = []
        real = MemoryCache.get
        monkeypatch.setattr(MemoryCache, "get", lambda self, key: reads.append(key) or real(self, key))
        seen: list[tuple[dict, list[str]]] = []  # each poll's answer, and what it read from the cache
        for _ in range(20):
            reads.clear()
            seen.append((client.get(f"/api/v1/jobs/{job}").json(), list(reads)))
        monkeypatch.undo()
        client.delete(f"/api/v1/jobs/{job}")
    # a poll that finds the job finished reads its result, and may: only the running ones are held to it
    while_running = [(s, read) for s, read in seen if s["status"] == "running"]
    assert len(while_running) >= 10, [s["status"] for s, _ in seen]
    assert all(read == [] for _, read in while_running) and body["partial"] is not None
    assert all(s["cells"]["total"] == 24 and s["cells"]["done"] >= body["cells"]["done"] for s, _ in while_running)
