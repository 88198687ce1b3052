"""Result caches keyed by job id: an in-memory LRU (embedded) and Redis (scaled), one protocol.

- `result_cache`: what a result cache is (`ResultCache`): bytes of encoded JSON in, bytes out, keyed by job id.
- `memory_cache`: the in-memory LRU of encoded results, bounded by total bytes (embedded mode).
- `redis_cache`: results in Redis under namespaced, versioned keys with a TTL (scaled mode; shared by API and workers).
"""

from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.jobs.cache.result_cache import CacheUnavailable, NonFiniteResult, ResultCache, encode_result

__all__ = ["CacheUnavailable", "MemoryCache", "NonFiniteResult", "ResultCache", "encode_result"]
