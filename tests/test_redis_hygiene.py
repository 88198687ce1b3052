"""Keys a test run leaves in the test Redis database expire (tests/conftest.py gives them a TTL)."""

from __future__ import annotations

import uuid

import pytest
import redis

from tests.conftest import expire_leftovers

pytestmark = pytest.mark.redis


def test_leftover_keys_get_an_expiry_and_keys_with_one_keep_it(redis_url: str) -> None:
    conn = redis.Redis.from_url(redis_url)
    stem = f"headdiv-test-hygiene:{uuid.uuid4().hex}"
    try:
        conn.set(f"{stem}:forever", "1")
        conn.set(f"{stem}:short", "1", ex=30)
        assert conn.ttl(f"{stem}:forever") == -1
        assert expire_leftovers(conn, 120) >= 1
        assert 0 < conn.ttl(f"{stem}:forever") <= 120
        assert 0 < conn.ttl(f"{stem}:short") <= 30  # an expiry a test chose is left alone
    finally:
        conn.delete(f"{stem}:forever", f"{stem}:short")
        conn.close()
