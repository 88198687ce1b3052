"""Real-model HDI API (issue 6): built-in models and safetensors uploads."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/models", tags=["models"])
