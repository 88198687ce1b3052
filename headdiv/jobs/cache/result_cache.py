"""What a result cache is: bytes of JSON in, bytes out, keyed by job id.

Results are stored as encoded JSON so a cache hit can be answered without parsing and re-encoding
the (sometimes large) result, and so the size bound of the in-memory cache is exact.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from pydantic import BaseModel


class CacheUnavailable(RuntimeError):
    """The cache's backing store cannot be reached (Redis down): the API answers 503."""


class NonFiniteResult(ValueError):
    """A result holding NaN or infinity: never cached, and the job fails with this message."""


def encode_result(result: BaseModel | dict[str, Any]) -> bytes:
    """Strict JSON bytes of a result; NaN or infinity anywhere raises NonFiniteResult. A result model is
    finite by its validation and is written by pydantic."""
    if isinstance(result, BaseModel):
        return result.model_dump_json().encode("utf-8")
    try:
        return json.dumps(result, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except ValueError as exc:
        raise NonFiniteResult(
            "the engine produced NaN or infinite numbers for this request; try more replicates, a larger n "
            "or a larger bandwidth"
        ) from exc


class ResultCache(Protocol):
    kind: str
    """'memory' or 'redis', reported by /health."""

    def get(self, key: str) -> bytes | None: ...

    def get_many(self, keys: list[str]) -> list[bytes | None]:
        """The values of several keys at once (one round trip in Redis), None where absent."""
        ...

    def set(self, key: str, value: bytes) -> None: ...

    def ping(self) -> bool: ...
