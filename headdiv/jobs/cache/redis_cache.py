"""Results in Redis under namespaced, versioned keys with a TTL (scaled mode; shared by API and workers)."""

from __future__ import annotations

from redis import Redis
from redis.exceptions import RedisError

from headdiv.jobs.cache.result_cache import CacheUnavailable
from headdiv.jobs.keys import result_key


class RedisCache:
    kind = "redis"

    def __init__(self, client: Redis, ttl_s: int) -> None:
        self.client = client
        self.ttl_s = ttl_s

    def get(self, key: str) -> bytes | None:
        try:
            value = self.client.get(result_key(key))
        except RedisError as exc:
            raise CacheUnavailable(f"result cache unreachable: {exc}") from exc
        return value if isinstance(value, bytes) else None

    def get_many(self, keys: list[str]) -> list[bytes | None]:
        if not keys:
            return []
        try:
            values = self.client.mget([result_key(k) for k in keys])
        except RedisError as exc:
            raise CacheUnavailable(f"result cache unreachable: {exc}") from exc
        return [v if isinstance(v, bytes) else None for v in values]

    def set(self, key: str, value: bytes) -> None:
        try:
            self.client.set(result_key(key), value, ex=self.ttl_s)
        except RedisError as exc:
            raise CacheUnavailable(f"result cache unreachable: {exc}") from exc

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except RedisError:
            return False
