"""Result caches keyed by job id: an in-memory LRU (embedded) and Redis (scaled), one protocol.

- `base`: what a result cache is (`ResultCache`): bytes of encoded JSON in, bytes out, keyed by job id.
- `memory`: the in-memory LRU of encoded results, bounded by total bytes (embedded mode).
- `redis`: results in Redis under namespaced, versioned keys with a TTL (scaled mode; shared by API and workers).
"""

from headdiv.jobs.cache.base import CacheUnavailable, NonFiniteResult, ResultCache, encode_result
from headdiv.jobs.cache.memory import MemoryCache

__all__ = ["CacheUnavailable", "MemoryCache", "NonFiniteResult", "ResultCache", "encode_result"]
