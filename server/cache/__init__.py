"""Result caches keyed by job id: an in-memory LRU (embedded) and Redis (scaled), one protocol."""

from server.cache.base import CacheUnavailable, ResultCache, encode_result
from server.cache.memory import MemoryCache

__all__ = ["CacheUnavailable", "MemoryCache", "ResultCache", "encode_result"]
