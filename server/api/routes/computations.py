"""The long computations, submitted as jobs: simulations, surfaces, architectures, diversity sweeps.

Each body is validated by the engine's own pydantic model (a 422 names the field, the work budget
included) before anything is queued; the answer is the job, 200 once ended and 202 while pending.
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from server.api.deps import BackendDep, SettingsDep
from server.api.responses import JOB_RESPONSES, WaitQuery, submit
from workers.schemas import ArchitectureRequest, DiversitySweepRequest, Scenario, SurfaceRequest

router = APIRouter(tags=["jobs"], responses=JOB_RESPONSES)


@router.post("/simulations", summary="Run one Monte Carlo simulation of a scenario")
async def post_simulation(
    scenario: Scenario, backend: BackendDep, settings: SettingsDep, wait: float = WaitQuery
) -> Response:
    return await submit(backend, "simulation", scenario, min(wait, settings.max_wait_s))


@router.post("/surfaces", summary="Sweep two scenario keys over a grid")
async def post_surface(
    request: SurfaceRequest, backend: BackendDep, settings: SettingsDep, wait: float = WaitQuery
) -> Response:
    return await submit(backend, "surface", request, min(wait, settings.max_wait_s))


@router.post("/architectures", summary="Compare every split H x d_k of a head-dimension budget")
async def post_architecture(
    request: ArchitectureRequest, backend: BackendDep, settings: SettingsDep, wait: float = WaitQuery
) -> Response:
    return await submit(backend, "architecture", request, min(wait, settings.max_wait_s))


@router.post("/sweeps/diversity", summary="MSE against head diversity over a range of angles")
async def post_diversity_sweep(
    request: DiversitySweepRequest, backend: BackendDep, settings: SettingsDep, wait: float = WaitQuery
) -> Response:
    return await submit(backend, "diversity_sweep", request, min(wait, settings.max_wait_s))
