"""Pydantic models at the edges: the scenario and the request bodies built on it (no torch here)."""

from workers.schemas.requests import (
    SWEEP_PARAMS,
    ArchitectureRequest,
    Axis,
    DiversitySweepRequest,
    HDIRequest,
    SurfaceRequest,
    TheoryQuery,
)
from workers.schemas.scenario import Scenario, StrictModel, check_work

__all__ = [
    "SWEEP_PARAMS",
    "ArchitectureRequest",
    "Axis",
    "DiversitySweepRequest",
    "HDIRequest",
    "Scenario",
    "StrictModel",
    "SurfaceRequest",
    "TheoryQuery",
    "check_work",
]
