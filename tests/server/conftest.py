"""Fixtures for the service tests. Redis comes from the shared `redis_url` fixture (tests/conftest.py),
which skips without Redis and fails under HEADDIV_REQUIRE_SERVICES=1."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from server.main import create_app
from server.settings import ServerSettings
from tests.server.helpers import delete_queue


def embedded_settings(**overrides: object) -> ServerSettings:
    return ServerSettings(**{"redis_url": None, "warm_up": False, **overrides})  # type: ignore[arg-type]


def rq_settings(redis_url: str, queue: str, **overrides: object) -> ServerSettings:
    values: dict[str, object] = {
        "redis_url": redis_url,
        "queue_name": queue,
        "warm_up": False,
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
