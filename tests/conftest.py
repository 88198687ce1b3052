"""Shared test helpers: real services or an honest skip.

Tests that need Redis or a browser skip with a reason on a machine without them, but under
HEADDIV_REQUIRE_SERVICES=1 (set by .ci/run) they fail instead, so CI can never pass by skipping.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
from hypothesis import settings as hypothesis_settings

# CI explores a fixed set of examples, so a submission's result does not depend on the draw;
# locally every run keeps exploring new ones.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")

# What a server keeps from one start to the next (`headdiv.plumbing.kept`) goes to a folder of this run's own,
# not the user's ~/.cache: a run never finds work an earlier one left (servers the tests start inherit it).
os.environ["HEADDIV_CACHE_DIR"] = tempfile.mkdtemp(prefix="headdiv-kept-")
atexit.register(shutil.rmtree, os.environ["HEADDIV_CACHE_DIR"], True)


class _LoggerRegistry(dict[str, Any]):
    """`logging`'s registry of loggers, read as a snapshot under logging's own lock. pytest (9.x) walks it at
    the start of every test phase, unlocked, to attach its handlers to non-propagating loggers, while a
    server the tests started may be compiling the engine in a thread of its own, and torch.compile creates
    loggers as it goes: the walk then fails a test that did nothing wrong ("dictionary changed size during
    iteration"). Loggers are created under that lock, so a snapshot taken under it is whole."""

    def values(self) -> list[Any]:  # type: ignore[override]
        with logging._lock:  # type: ignore[attr-defined]
            return list(super().values())

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        with logging._lock:  # type: ignore[attr-defined]
            return list(super().items())


logging.Logger.manager.loggerDict = _LoggerRegistry(logging.Logger.manager.loggerDict)

REQUIRE_SERVICES = os.environ.get("HEADDIV_REQUIRE_SERVICES") == "1"
DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379/15"


def need(reason: str) -> NoReturn:
    """Skip for want of a service, or fail when HEADDIV_REQUIRE_SERVICES=1 says it must be there."""
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (required: HEADDIV_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(f"{reason} (set HEADDIV_REQUIRE_SERVICES=1 to make this a failure)")


LEFTOVER_TTL_S = 3600
"""Keys a test run leaves in the test database expire after this long, so runs never accumulate state."""


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a live Redis for tests: HEADDIV_TEST_REDIS_URL, else database 15 on the local server.

    After the session every key still there without an expiry gets one (`LEFTOVER_TTL_S`): a test that
    forgets to clean up cannot leave state behind for the next run.
    """
    import redis

    url = os.environ.get("HEADDIV_TEST_REDIS_URL", DEFAULT_TEST_REDIS_URL)
    client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        client.close()
        need(f"no Redis answers at {url}: {exc}")
    try:
        yield url
    finally:
        with contextlib.suppress(redis.RedisError, OSError):
            expire_leftovers(client, LEFTOVER_TTL_S)
        client.close()


def expire_leftovers(client: Any, ttl_s: int) -> int:
    """Give every key without an expiry in `client`'s database one of `ttl_s` seconds; how many were."""
    count = 0
    for key in client.scan_iter(count=500):
        if client.ttl(key) == -1:
            client.expire(key, ttl_s)
            count += 1
    return count


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of a Chromium binary for browser tests: HEADDIV_CHROMIUM, else `chromium` on the PATH."""
    path = os.environ.get("HEADDIV_CHROMIUM") or shutil.which("chromium")
    if not path or not os.access(path, os.X_OK):
        need(
            f"no Chromium found (HEADDIV_CHROMIUM={os.environ.get('HEADDIV_CHROMIUM')!r}, `chromium` on PATH: "
            f"{shutil.which('chromium')!r}); install it with `apt-get install chromium chromium-driver`"
        )
    return path
