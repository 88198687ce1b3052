"""Pydantic models at the edges and the registries they are built from; importable without torch.

The ground floor of the package (CONTRIBUTING.md, "Layout"): the engine, the job protocol, the API, the
CLI, the Python API and the dashboard all read their vocabulary here, and it imports nothing above it.

Requests and results:
- `fields`: the building blocks of every request model (`StrictModel`), and validation errors as text.
- `scenario`: the scenario, the one schema of a simulation (the engine, the CLI, the API, the dashboard's URL).
- `requests`: the bodies of the long computations (surfaces, architectures, diversity sweeps, the covariance lab).
- `training_request`: the training lab's request, and its closed tables of options.
- `report_queries`: the queries of the reports computed at once (`HDIRequest`, `TheoryQuery`).
- `lesson_queries`: the query models of the foundations lessons, and their table.
- `polls`: class polls' request and response bodies.
- `results`: what the engine answers: every job kind's result and every report's.

The model's concepts, one registry each (docs/model.md):
- `registry`: one name -> choice table per concept, that everything else derives from.
- `scenario_fields`: what the registries read of a scenario, a Protocol (so they need not import it).
- `geometries`: head geometries: their parameters and rules (the engine builds the heads).
- `targets`: the regression functions m(x) = f(a . x).
- `kernels`: the NW kernels.
- `bandwidths`: the Gaussian kernel's bandwidth rules.
- `weightings`: the head weighting schemes, fixed weights or per-draw gates.
- `metrics`: the numbers a surface reports per cell, with the label people read.
- `builtin_models`: the catalogue of built-in example models (only the declaration: nothing is loaded).

Shared by every door:
- `cost`: what a run costs, part by part, in work units (the work budget, the fast lane, admission).
- `verdicts`: the tests behind the conclusions the page states, with their Monte Carlo error.
- `csv_tables`: results as CSV tables, the same text wherever a user takes one away.
- `errors`: the errors a computation raises on purpose, in words a user can act on.
- `engine_settings`: the engine's settings, and `DoorSettings`, read by the API and the dashboard alike.
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
