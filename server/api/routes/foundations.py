"""Foundations lessons API (issue 6): scaling, softmax, entropy and budget lessons."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/foundations", tags=["foundations"])
