"""In-memory LRU of encoded results, bounded by total bytes (embedded mode)."""

from __future__ import annotations

from headdiv.plumbing.lru import ByteLRU


class MemoryCache:
    """Least-recently-used eviction once the stored bytes pass `max_bytes` (`ByteLRU`); thread-safe."""

    kind = "memory"

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._lru: ByteLRU[str, bytes] = ByteLRU(max_bytes, len)

    def get(self, key: str) -> bytes | None:
        return self._lru.get(key)

    def get_many(self, keys: list[str]) -> list[bytes | None]:
        return [self.get(k) for k in keys]

    def set(self, key: str, value: bytes) -> None:
        self._lru.put(key, value)

    def ping(self) -> bool:
        return True

    @property
    def size_bytes(self) -> int:
        return self._lru.size_bytes

    def __len__(self) -> int:
        return len(self._lru)
