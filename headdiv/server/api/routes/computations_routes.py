"""The long computations, submitted as jobs: one route per job kind of `headdiv.jobs.kinds`.

Each body is validated by the kind's own pydantic model (a 422 names the field, the work budget
included) before anything is queued; the answer is the job, 200 once ended and 202 while pending, or
429 when its client (or everyone) already has as much work queued as `headdiv.server.admission` allows.
The routes are written out, one small function per kind, so a reader (and mypy) can follow a job from its
route to `headdiv.workers.runner` and the engine; a test checks that every kind has its route.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel

from headdiv.jobs.kinds import JOB_KINDS, JobKind
from headdiv.schemas import (
    ArchitectureRequest,
    CovarianceRequest,
    DiversitySweepRequest,
    Scenario,
    SurfaceRequest,
)
from headdiv.schemas.training_request import TrainingRequest
from headdiv.server.api.deps import BackendDep, SettingsDep
from headdiv.server.api.responses import (
    Priority,
    PriorityQuery,
    Until,
    UntilQuery,
    WaitQuery,
    client_of,
    job_responses,
)
from headdiv.server.api.responses import submit as submit_job
from headdiv.server.backends.backend_protocol import JobBackend
from headdiv.server.server_settings import ServerSettings

router = APIRouter(tags=["jobs"])
RouteT = TypeVar("RouteT", bound=Callable[..., Any])


@dataclass(frozen=True)
class Submitter:
    """Submits a job for the request being answered: its client, `?wait=` (within the server's bound),
    `&until=` and `&priority=`."""

    http: Request
    backend: JobBackend
    settings: ServerSettings
    wait: float
    until: Until
    priority: Priority

    async def __call__(self, kind: JobKind, request: BaseModel) -> Response:
        wait = min(self.wait, self.settings.max_wait_s)
        client = client_of(self.http)
        return await submit_job(self.backend, kind.name, request, wait, client, self.until, self.priority)


async def submitter(
    http: Request,
    backend: BackendDep,
    settings: SettingsDep,
    wait: float = WaitQuery,
    until: Until = UntilQuery,
    priority: Priority = PriorityQuery,
) -> Submitter:
    return Submitter(http, backend, settings, wait, until, priority)


Submit = Annotated[Submitter, Depends(submitter)]


def job_route(kind: JobKind) -> Callable[[RouteT], RouteT]:
    """`POST /api/v1<kind.path>`, summarised and documented (its result model by name) from the kind."""
    return router.post(kind.path, summary=kind.summary, responses=job_responses(kind))


SIMULATION, SURFACE, ARCHITECTURE, DIVERSITY_SWEEP, COVARIANCE, TRAINING = (
    JOB_KINDS[name] for name in ("simulation", "surface", "architecture", "diversity_sweep", "covariance", "training")
)


@job_route(SIMULATION)
async def post_simulation(request: Scenario, submit: Submit) -> Response:
    return await submit(SIMULATION, request)


@job_route(SURFACE)
async def post_surface(request: SurfaceRequest, submit: Submit) -> Response:
    return await submit(SURFACE, request)


@job_route(ARCHITECTURE)
async def post_architecture(request: ArchitectureRequest, submit: Submit) -> Response:
    return await submit(ARCHITECTURE, request)


@job_route(DIVERSITY_SWEEP)
async def post_diversity_sweep(request: DiversitySweepRequest, submit: Submit) -> Response:
    return await submit(DIVERSITY_SWEEP, request)


@job_route(COVARIANCE)
async def post_covariance(request: CovarianceRequest, submit: Submit) -> Response:
    return await submit(COVARIANCE, request)


@job_route(TRAINING)
async def post_training(request: TrainingRequest, submit: Submit) -> Response:
    return await submit(TRAINING, request)
