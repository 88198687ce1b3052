"""The job kinds: each long computation declared once.

A kind names its request model (whose docstring and schema example describe it), the API route that
submits it and the `headdiv` subcommand that runs it locally. A kind made of simulations (cells) is
computed cell by cell (`headdiv.workers.runner`) and assembled by its entry in
`headdiv.workers.engine.multicell.ASSEMBLERS`; any other kind by its entry in
`headdiv.workers.engine.dispatch.RUNNERS`, both keyed by the request model (a test checks that each kind
has exactly one). This table names no engine function, so it needs no torch. The CLI's subcommands, the
job backends, the dashboard's reproduce commands and the table in docs/api.md are generated from
`JOB_KINDS`; each kind's API route is one small function in `headdiv/server/api/routes/computations_routes.py`
that names its request model (a test checks that every kind has one).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from headdiv.schemas import (
    ArchitectureRequest,
    CovarianceRequest,
    DiversitySweepRequest,
    Scenario,
    SurfaceRequest,
)
from headdiv.schemas.requests import CellsRequest
from headdiv.schemas.results.lab_results import CovarianceResult, TrainingResult
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult, SurfaceResult
from headdiv.schemas.training_request import TrainingRequest


@dataclass(frozen=True)
class JobKind:
    name: str
    """The kind's id: part of every job id, and `kind` in a queued job's record."""
    request: type[BaseModel]
    """The body's model; its docstring is the kind's summary, its schema's first example the docs' example."""
    result: type[ResultModel]
    """The model of its result (and of a running job's partial result), as the engine builds it."""
    path: str
    """The route under /api/v1 that submits it."""
    command: str
    """The `headdiv` subcommand that runs it on this machine."""

    @property
    def single_cell(self) -> bool:
        """A simulation: the job is its one cell, and its result the cell's full result."""
        return self.request is Scenario

    @property
    def made_of_cells(self) -> bool:
        """Computed as simulations (cells) cached one by one; anything else by its engine runner."""
        return self.single_cell or issubclass(self.request, CellsRequest)

    @property
    def summary(self) -> str:
        """What it computes, in one line (the route's summary, the subcommand's help, the docs table)."""
        return inspect.cleandoc(self.request.__doc__ or self.name).split("\n", 1)[0]

    @property
    def example(self) -> str:
        """A JSON request (the first example of the request's schema)."""
        examples: list[Any] = self.request.model_json_schema().get("examples") or [{}]
        return json.dumps(examples[0])

    def validate(self, payload: BaseModel | dict[str, Any]) -> BaseModel:
        """The request as its model: a validated one as it is, a JSON payload checked once."""
        if isinstance(payload, self.request):
            return payload
        return self.request.model_validate(payload)


JOB_KINDS: dict[str, JobKind] = {
    kind.name: kind
    for kind in (
        JobKind("simulation", Scenario, SimulationResult, "/simulations", "simulate"),
        JobKind("surface", SurfaceRequest, SurfaceResult, "/surfaces", "surface"),
        JobKind("architecture", ArchitectureRequest, ArchitectureResult, "/architectures", "architecture"),
        JobKind("diversity_sweep", DiversitySweepRequest, DiversitySweepResult, "/sweeps/diversity", "sweep"),
        JobKind("covariance", CovarianceRequest, CovarianceResult, "/labs/covariance", "covariance"),
        JobKind("training", TrainingRequest, TrainingResult, "/trainings", "train"),
    )
}


def job_kind(name: str) -> JobKind:
    try:
        return JOB_KINDS[name]
    except KeyError:
        raise ValueError(f"unknown job kind {name!r}; expected one of {', '.join(JOB_KINDS)}") from None


def kind_at(path: str) -> JobKind:
    """The kind whose route is `path` (e.g. '/surfaces')."""
    found = next((k for k in JOB_KINDS.values() if k.path == path), None)
    if found is None:
        raise ValueError(f"no job kind at {path!r}; routes are {', '.join(k.path for k in JOB_KINDS.values())}")
    return found


def docs_table() -> str:
    """The Markdown table of job kinds in docs/api.md (a test keeps the two in step)."""
    rows = ["| kind | route | command | what it computes |", "|---|---|---|---|"]
    rows += [
        f"| `{k.name}` | `POST /api/v1{k.path}` | `headdiv {k.command}` | {k.summary} |" for k in JOB_KINDS.values()
    ]
    return "\n".join(rows)
