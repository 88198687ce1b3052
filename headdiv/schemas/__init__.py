"""Pydantic models at the edges and the registries they are built from; importable without torch.

The ground floor of the package (CONTRIBUTING.md, "Layout"): the engine, the job protocol, the API, the
CLI, the Python API and the dashboard all read their vocabulary here, and it imports nothing above it: the
scenario (`scenario`), the bodies of the other requests (`requests`, `report_queries`, `lessons`), the registries of
the model's concepts (`geometries`, `targets`, `kernels`, `bandwidths`, `weightings`), the surface
metrics (`metrics`) and the catalogue of built-in example models (`builtin_models`).
"""

from headdiv.schemas.fields import StrictModel
from headdiv.schemas.report_queries import HDIRequest, TheoryQuery
from headdiv.schemas.requests import (
    SWEEP_PARAMS,
    ArchitectureRequest,
    Axis,
    CovarianceRequest,
    DiversitySweepRequest,
    SurfaceRequest,
)
from headdiv.schemas.scenario import Scenario, check_work

__all__ = [
    "SWEEP_PARAMS",
    "ArchitectureRequest",
    "Axis",
    "CovarianceRequest",
    "DiversitySweepRequest",
    "HDIRequest",
    "Scenario",
    "StrictModel",
    "SurfaceRequest",
    "TheoryQuery",
    "check_work",
]
