"""A job's state: what a backend records, what the API answers, what the dashboard reads.

The result travels as the cached JSON bytes, spliced into the response as is: a cache hit costs a
lookup and a concatenation, never a parse and re-encode of a large result. A state read back from
JSON (the dashboard's client) holds the parsed `result` instead.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

JobStatus = Literal["queued", "running", "finished", "failed", "canceled"]
TERMINAL: frozenset[str] = frozenset({"finished", "failed", "canceled"})


class JobError(BaseModel):
    """Why a job failed or was canceled, in words meant for the user."""

    message: str
    type: str = Field("error", description="error | canceled | timeout | abandoned | invalid")


class CellCount(BaseModel):
    """How far a job made of simulations (cells) has got."""

    total: int = Field(ge=0, description="Cells (simulations) the job is made of.")
    done: int = Field(ge=0, description="Cells computed so far, by this job or found in the cache.")
    from_cache: int = Field(ge=0, description="Cells already in the cache when the job started.")


class JobState(BaseModel):
    """One job, in every mode and every state."""

    model_config = ConfigDict(frozen=True)

    job_id: str = Field(description="sha256 of the canonical request and the engine version.")
    status: JobStatus
    progress: float = Field(0.0, ge=0, le=1)
    cached: bool = Field(False, description="True when the result came from the cache, without new work.")
    result: dict[str, Any] | None = None
    error: JobError | None = None
    cells: CellCount | None = Field(None, description="For a job made of simulations: how many are done.")
    partial: dict[str, Any] | None = Field(
        None,
        description="While a multi-cell job runs: its result shaped as when finished, null for cells not done yet.",
    )
    _result_json: bytes | None = PrivateAttr(None)

    @field_validator("progress", mode="before")
    @classmethod
    def _clamp(cls, value: Any) -> float:
        return min(1.0, max(0.0, float(value)))

    @classmethod
    def finished(cls, job_id: str, result_json: bytes, *, cached: bool, cells: CellCount | None = None) -> JobState:
        """A finished job whose result is the encoded JSON `result_json` (kept as bytes)."""
        state = cls.model_construct(
            job_id=job_id, status="finished", progress=1.0, cached=cached, error=None, cells=cells, partial=None
        )
        state._result_json = result_json
        return state

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    @property
    def message(self) -> str:
        """One line for a job that ended without a result."""
        if self.status == "canceled":
            return "the job was canceled"
        if self.error is not None:
            return self.error.message
        return f"the job {self.status} without a result"

    def to_json(self) -> bytes:
        """The API's body: the state, with the stored result bytes spliced in unchanged."""
        head = {
            "job_id": self.job_id,
            "status": self.status,
            "progress": self.progress,
            "cached": self.cached,
            "error": self.error.model_dump() if self.error else None,
            "cells": self.cells.model_dump() if self.cells else None,
            "partial": self.partial,
        }
        body = json.dumps(head, separators=(",", ":"), allow_nan=False).encode("utf-8")
        result = self._result_json
        if result is None:
            result = json.dumps(self.result, separators=(",", ":"), allow_nan=False).encode("utf-8")
        return body[:-1] + b',"result":' + result + b"}"
