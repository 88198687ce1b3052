"""Warm start: the dashboard's first computations are done ahead of a newcomer, never ahead of a user."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from rq import Queue

from bench.queues import delete_queue
from headdiv import cli
from headdiv.dashboard.drawing.view_jobs import request_key
from headdiv.dashboard.drawing.warm import warm_requests
from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.sidebar_simulation import simulation_request
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.views import VIEWS
from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.jobs.ids import job_id
from headdiv.jobs.kinds import JOB_KINDS, job_kind
from headdiv.plumbing.kept import read_kept
from headdiv.schemas import Scenario, SurfaceRequest
from headdiv.schemas.fields import canonical
from headdiv.server import main as server_main
from headdiv.server import start_up
from headdiv.server.backends.inline import InlineBackend
from tests.server.conftest import embedded_settings, rq_settings
from tests.server.helpers import RUN_SEED as SEED
from tests.server.helpers import slow_surface, small


def wait_for(predicate: Any, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def test_warm_requests_cover_every_tab_default_and_every_preset() -> None:
    requests = warm_requests()
    keys = {request_key(r) for r in requests}
    assert len(keys) == len(requests)  # each computation once
    assert {path for path, _ in requests} <= {kind.path for kind in JOB_KINDS.values()}  # a kind may have no tab
    registry = build_registry(VIEWS)
    default = registry.parse("")
    for view in VIEWS:
        for job in view.jobs:
            assert request_key(job.build(default)) in keys, view.id  # type: ignore[arg-type]
    for preset in PRESETS:
        state = registry.parse(preset.query)
        assert request_key(simulation_request(state)) in keys, preset.id
    budget = next(body for path, body in requests if path == "/architectures" and body["base"]["replicates"] == 100)
    assert budget["budget"] == 32  # the "many small heads" preset's own comparison
    assert len(start_up.warm_requests()) == len(requests)  # all of them valid requests for this server


def surface_of(cells: int, **base: Any) -> SurfaceRequest:
    return SurfaceRequest.model_validate(
        {
            "base": {"replicates": 60, "queries": 32, "n": 256, "H": 4, "seed": SEED + 31, **base},
            "x": {"param": "theta", "values": [float(3 * i) for i in range(cells)]},
            "y": {"param": "noise", "values": [0.5]},
        }
    )


def test_background_work_yields_to_a_users_job() -> None:
    backend = InlineBackend(MemoryCache(1 << 28), threads=2)
    try:
        background = surface_of(12)
        bg_id = job_id("surface", canonical(background))
        backend.submit("surface", background, bg_id, background=True)
        wait_for(lambda: backend.get(bg_id).status == "running")  # type: ignore[union-attr]
        user = Scenario(**small(seed=SEED + 32))
        user_id = job_id("simulation", canonical(user))
        backend.submit("simulation", user, user_id)
        wait_for(lambda: backend.get(user_id).done)  # type: ignore[union-attr]
        assert backend.get(user_id).status == "finished"  # type: ignore[union-attr]
        assert not backend.get(bg_id).done  # type: ignore[union-attr]  # it paused while the user's job ran
        wait_for(lambda: backend.get(bg_id).done)  # type: ignore[union-attr]
        assert backend.get(bg_id).status == "finished"  # type: ignore[union-attr]
    finally:
        backend.close()


def test_a_user_asking_for_a_background_computation_takes_it_over() -> None:
    backend = InlineBackend(MemoryCache(1 << 28), threads=2)
    try:
        first, second = surface_of(6, seed=SEED + 41), surface_of(6, seed=SEED + 42)
        ids = [job_id("surface", canonical(r)) for r in (first, second)]
        backend.submit("surface", first, ids[0], background=True)
        backend.submit("surface", second, ids[1], background=True)  # queued behind the first
        state = backend.submit("surface", second, ids[1])  # a user wants it now
        assert state.status in ("queued", "running")
        wait_for(lambda: backend.get(ids[1]).done)  # type: ignore[union-attr]
        assert backend.get(ids[1]).status == "finished"  # type: ignore[union-attr]
    finally:
        backend.close()


def test_an_embedded_server_warms_its_cache_after_start(monkeypatch: pytest.MonkeyPatch) -> None:
    first_views = [(job_kind("simulation"), Scenario(**small(seed=SEED + 51, H=3)))]
    monkeypatch.setattr(start_up, "warm_requests", lambda: first_views)
    app = server_main.create_app(embedded_settings(warm_start=True), mount_dashboard=False)
    with TestClient(app) as client:
        backend: InlineBackend = app.state.backend
        jid = job_id("simulation", canonical(first_views[0][1]))
        wait_for(lambda: (s := backend.get(jid)) is not None and s.done)
        r = client.post("/api/v1/simulations", json=small(seed=SEED + 51, H=3))
        assert r.status_code == 200 and r.json()["cached"] is True
        wait_for(lambda: read_kept("results", f"{jid}.json") is not None)  # kept for the next start
    # the next start of this version takes the first views from disk: nothing is computed again
    app = server_main.create_app(embedded_settings(warm_start=True), mount_dashboard=False)
    with TestClient(app) as client:
        backend = app.state.backend
        wait_for(lambda: backend.cache.get(jid) is not None)
        assert backend.runs == 0  # never computed: read back as it was kept
        again = client.post("/api/v1/simulations", json=small(seed=SEED + 51, H=3))
        assert again.json()["cached"] is True and again.json()["result"] == r.json()["result"]


@pytest.mark.redis
def test_headdiv_warm_enqueues_the_first_views_at_low_priority(
    redis_url: str, queue_name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("HEADDIV_QUEUE_NAME", queue_name)
    monkeypatch.setenv("HEADDIV_CACHE_TTL_S", "600")
    conn = redis.Redis.from_url(redis_url)
    low = Queue(f"{queue_name}.low", connection=conn)
    try:
        assert cli.main(["warm"]) == 0
        out = capsys.readouterr().out
        count = len(start_up.warm_requests())
        assert f"{count} computations submitted on queue {queue_name}.low" in out
        statuses = [line.split()[-1] for line in out.splitlines()[:-1]]
        # queued; or finished, already cached; or running, a chunk of it already taken by a worker
        assert len(statuses) == count and set(statuses) <= {"queued", "running", "finished"}
        queued = statuses.count("queued") + statuses.count("running")
        assert Queue(queue_name, connection=conn).count == 0  # nothing ahead of users' jobs
        assert low.count + low.deferred_job_registry.count >= queued
    finally:
        delete_queue(redis_url, queue_name)
    monkeypatch.delenv("REDIS_URL")
    assert cli.main(["warm"]) == 2 and "warms its own cache" in capsys.readouterr().err


@pytest.mark.redis
def test_a_user_asking_for_warm_work_moves_it_ahead_of_the_rest_of_the_warm_start(
    redis_url: str, queue_name: str
) -> None:
    """No worker runs, so nothing is dequeued behind the test's back: the warm start's queued simulation, and
    the queued chunks of its surface, move to the main queue when a user submits the same requests."""
    conn = redis.Redis.from_url(redis_url)
    low, main = Queue(f"{queue_name}.low", connection=conn), Queue(queue_name, connection=conn)
    simulation = Scenario.model_validate(small(seed=SEED + 61, H=3))
    surface = SurfaceRequest.model_validate(slow_surface(4, seed=SEED + 62))
    app = server_main.create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)
    try:
        with TestClient(app) as client:
            backend = app.state.backend
            for kind, request in (("simulation", simulation), ("surface", surface)):
                backend.submit(kind, request, job_id(kind, canonical(request)), background=True)
            warm = low.count
            assert warm >= 3 and main.count == 0  # the simulation and at least two chunks wait at low priority
            assert client.post("/api/v1/simulations", json=simulation.model_dump()).json()["status"] == "queued"
            assert client.post("/api/v1/surfaces", json=slow_surface(4, seed=SEED + 62)).json()["status"] == "queued"
            assert low.count == 0 and main.count == warm
            # submitting again finds the work already promoted and moves nothing twice
            client.post("/api/v1/simulations", json=simulation.model_dump())
            assert low.count == 0 and main.count == warm
    finally:
        delete_queue(redis_url, queue_name)


def test_a_later_start_recomputes_nothing_an_earlier_one_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first start of a version compiles the engine, measures its speed, computes its first views and has
    the compiled kernels built for the next start (by a process of its own, stood in for here); the next start
    reads all of it back: nothing compiled, measured, computed or built again."""
    import subprocess
    import threading

    import torch

    from headdiv.plumbing.kept import keep
    from headdiv.schemas.engine_settings import get_engine_settings
    from headdiv.server.activity import Activity
    from headdiv.workers.engine import kernel_build, nw, speed

    for name, value in {"CACHE_DIR": str(tmp_path), "DEVICE": "cpu", "DTYPE": "float32", "COMPILE": "auto"}.items():
        monkeypatch.setenv(f"HEADDIV_{name}", value)
    get_engine_settings.cache_clear()
    first_views = [(job_kind("simulation"), Scenario(**small(seed=SEED + 71, H=3)))]
    jid = job_id("simulation", canonical(first_views[0][1]))
    monkeypatch.setattr(start_up, "warm_requests", lambda: first_views)
    work: list[str] = []

    def compile_here(fn: Any, **options: Any) -> Any:  # what is tested is what runs, not inductor
        work.append("compile")
        return fn

    class Building:
        """The building process, stood in for: it keeps a package for each kernel and ends."""

        returncode = 0

        def poll(self) -> int:
            return 0

    real_popen = subprocess.Popen

    def popen(command: list[str], **options: Any) -> Any:
        if kernel_build.MODULE not in command:
            return real_popen(command, **options)
        work.append("build")
        for kernel in kernel_build.missing(torch.float32):
            keep(nw.KEPT_KIND, nw.kept_name(kernel, torch.float32), b"package")
        return Building()

    def measure_here(device: str | None = None) -> float:
        work.append("measure")
        return 2e9

    monkeypatch.setattr(nw.torch, "compile", compile_here)
    monkeypatch.setattr(speed, "measure_speed", measure_here)
    monkeypatch.setattr(subprocess, "Popen", popen)
    # a kept package stands for the eager kernel it was built from
    monkeypatch.setattr(nw, "_packaged", lambda path: nw.COMPILED_KERNELS[path.name.split("-")[1]][0])

    def one_start() -> InlineBackend:
        monkeypatch.setattr(nw, "_compiled", {})
        monkeypatch.setattr(nw, "_from_kept", set())
        backend = InlineBackend(MemoryCache(1 << 28), threads=2)
        backend.start()
        settings = embedded_settings(warm_up=True, warm_start=True)
        start_up.start_up(backend, settings, Activity(), threading.Event())
        return backend

    try:
        first = one_start()
        assert work == ["compile", "compile", "measure", "build"] and first.runs == 1
        work.clear()
        later = one_start()
        assert work == [] and later.runs == 0 and nw.compiled_from_kept()
        assert later.cache.get(jid) == first.cache.get(jid) is not None and later.speed == first.speed
        first.close()
        later.close()
    finally:
        get_engine_settings.cache_clear()


def test_a_first_view_a_person_computed_before_the_warm_start_is_kept_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default view, asked by whoever opens the page as the server starts, is cached before the warm start
    comes to it: it is kept for the next start all the same (else every later start computed it again)."""
    from headdiv.schemas.engine_settings import get_engine_settings

    monkeypatch.setenv("HEADDIV_CACHE_DIR", str(tmp_path))
    get_engine_settings.cache_clear()
    backend = InlineBackend(MemoryCache(1 << 28), threads=2)
    try:
        request = Scenario(**small(seed=SEED + 81, H=3))
        jid = job_id("simulation", canonical(request))
        backend.submit("simulation", request, jid)  # a person's
        wait_for(lambda: (s := backend.get(jid)) is not None and s.done)
        start_up.warm_start(backend, [(job_kind("simulation"), request, jid)])
        assert read_kept("results", f"{jid}.json") == backend.cache.get(jid) is not None
        assert backend.runs == 1  # computed once, by the person
    finally:
        backend.close()
        get_engine_settings.cache_clear()
