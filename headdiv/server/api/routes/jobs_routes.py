"""Poll and cancel jobs by id."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Response

from headdiv.server.api.deps import BackendDep, SettingsDep, call
from headdiv.server.api.responses import (
    ERROR_RESPONSES,
    JOB_RESPONSES,
    Until,
    UntilQuery,
    WaitQuery,
    job_response,
    settle,
)

router = APIRouter(prefix="/jobs", tags=["jobs"])
JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{64}$", description="The job id (64 hex digits).")]
NO_JOB = "no job {}: it was never submitted here, or its result has expired; submit its request again"
JOB_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "No job with this id (never submitted, or expired)."}
}


@router.get("/{job_id}", responses={**JOB_RESPONSES, **JOB_NOT_FOUND}, summary="Poll a job")
async def get_job(
    job_id: JobId, backend: BackendDep, settings: SettingsDep, wait: float = WaitQuery, until: Until = UntilQuery
) -> Response:
    state = await settle(backend, job_id, None, min(wait, settings.max_wait_s), until)
    if state is None:
        raise HTTPException(404, NO_JOB.format(job_id))
    return job_response(state)


@router.delete("/{job_id}", responses={**JOB_RESPONSES, **ERROR_RESPONSES, **JOB_NOT_FOUND}, summary="Cancel a job")
async def cancel_job(job_id: JobId, backend: BackendDep) -> Response:
    """Queued jobs end at once; running ones stop at the engine's next step (202 until then)."""
    state = await call(backend, backend.cancel, job_id)
    if state is None:
        raise HTTPException(404, NO_JOB.format(job_id))
    return job_response(state)
