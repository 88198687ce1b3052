"""Result caches keyed by job id: an in-memory LRU (embedded) and Redis (scaled), one protocol."""

from headdiv.jobs.cache.base import CacheUnavailable, NonFiniteResult, ResultCache, encode_result
from headdiv.jobs.cache.memory import MemoryCache

__all__ = ["CacheUnavailable", "MemoryCache", "NonFiniteResult", "ResultCache", "encode_result"]
