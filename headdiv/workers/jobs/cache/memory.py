"""In-memory LRU of encoded results, bounded by total bytes (embedded mode)."""

from __future__ import annotations

import threading
from collections import OrderedDict


class MemoryCache:
    """Least-recently-used eviction once the stored bytes pass `max_bytes`; thread-safe."""

    kind = "memory"

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def get_many(self, keys: list[str]) -> list[bytes | None]:
        return [self.get(k) for k in keys]

    def set(self, key: str, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return  # one result larger than the whole cache is simply not kept
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            self._items[key] = value
            self._bytes += len(value)
            while self._bytes > self.max_bytes:
                _, evicted = self._items.popitem(last=False)
                self._bytes -= len(evicted)

    def ping(self) -> bool:
        return True

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)
