"""Redis connections with short timeouts, so a missing Redis costs a request one second, not a hang."""

from __future__ import annotations

from redis import Redis
from redis.backoff import NoBackoff
from redis.retry import Retry


def connect(url: str, timeout_s: float) -> Redis:
    """A client that fails fast: short connect/socket timeouts and a single quick retry."""
    return Redis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry=Retry(NoBackoff(), 1),
        health_check_interval=30,
    )
