"""Fixtures for the service tests. Redis comes from the shared `redis_url` fixture (tests/conftest.py),
which skips without Redis and fails under HEADDIV_REQUIRE_SERVICES=1."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from bench.queues import delete_queue
from headdiv.server.main import create_app
from headdiv.server.server_settings import ServerSettings
from tests.server.helpers import workers

MODES = [
    pytest.param(False, id="embedded"),
    pytest.param(True, id="scaled", marks=[pytest.mark.redis, pytest.mark.slow]),
]
"""Parametrize a test with these to run it against both set-ups (see `service`)."""


def embedded_settings(**overrides: object) -> ServerSettings:
    return ServerSettings(**{"redis_url": None, "warm_up": False, "warm_start": False, **overrides})  # type: ignore[arg-type]


def rq_settings(redis_url: str, queue: str, **overrides: object) -> ServerSettings:
    values: dict[str, object] = {
        "redis_url": redis_url,
        "queue_name": queue,
        "warm_up": False,
        "warm_start": False,
        "maintenance_interval_s": 2,
        "heartbeat_interval_s": 1,
        "heartbeat_ttl_s": 4,
        "cache_ttl_s": 600,
    }
    values.update(overrides)
    return ServerSettings(**values)  # type: ignore[arg-type]


@pytest.fixture
def client() -> Iterator[TestClient]:
    """The embedded app (no Redis), with its lifespan running."""
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


@pytest.fixture
def queue_name(redis_url: str) -> Iterator[str]:
    """A queue private to this test; deleted (with its jobs) afterwards."""
    name = f"hdtest-{secrets.token_hex(4)}"
    yield name
    delete_queue(redis_url, name)


@contextlib.contextmanager
def service(
    scaled: bool,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    *,
    fast_lane: bool = False,
    worker_env: dict[str, str] | None = None,
    **settings: object,
) -> Iterator[TestClient]:
    """The API in either set-up with these settings; scaled, with one worker of the app's queues on a private
    queue (and, with `fast_lane`, a second worker taking small jobs only), its environment plus `worker_env`."""
    if not scaled:
        with TestClient(create_app(embedded_settings(**settings), mount_dashboard=False)) as client:
            yield client
        return
    redis_url, queue = request.getfixturevalue("redis_url"), request.getfixturevalue("queue_name")
    app = create_app(rq_settings(redis_url, queue, **settings), mount_dashboard=False)
    with contextlib.ExitStack() as stack:
        stack.enter_context(workers(redis_url, queue, tmp_path, **(worker_env or {})))
        if fast_lane:
            stack.enter_context(workers(redis_url, queue, tmp_path / "fast", fast_lane=True, **(worker_env or {})))
        yield stack.enter_context(TestClient(app))
