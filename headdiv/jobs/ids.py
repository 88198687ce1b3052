"""Job identity: one hash of the canonical request, so identical work is done once.

The id covers the job kind, the normalised payload (defaults filled, keys sorted), the engine's
version and the registered choices (a new weighting scheme adds a number to every result): a changed
engine never serves a stale result, and any two requests that mean the same computation share one id,
one run and one cache entry.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from headdiv.schemas.scenario import CHOICES
from headdiv.version import ENGINE_VERSION


def _choices_fingerprint() -> str:
    """A short hash of every registered choice and its parameters (what a result's shape depends on)."""
    names = {field: [[e.name, sorted(e.model_fields)] for e in reg] for field, reg in CHOICES.items()}
    return hashlib.sha256(json.dumps(names, sort_keys=True).encode()).hexdigest()[:16]


CHOICES_FINGERPRINT = _choices_fingerprint()


def job_id(kind: str, payload: dict[str, Any]) -> str:
    """sha256 (hex) of canonical JSON `{kind, payload, engine, choices}` with sorted keys (`payload` is a
    request's `fields.canonical` form)."""
    document = {"kind": kind, "payload": payload, "engine": ENGINE_VERSION, "choices": CHOICES_FINGERPRINT}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()
