"""How job states become HTTP responses, and the `?wait=` loop they share."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Query, Response
from pydantic import BaseModel

from server.api.deps import call
from server.jobs.backend import JobBackend
from server.jobs.ids import canonical_payload, job_id
from server.jobs.models import JobView
from server.jobs.state import JobState

WaitQuery = Query(0.0, ge=0, le=60, allow_inf_nan=False, description="Seconds to wait for the result (0..60).")

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    413: {"description": "Request body too large."},
    503: {"description": "The queue or cache (Redis) is unreachable; retry later."},
}
JOB_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": JobView, "description": "The job has ended: finished (with its result), failed or canceled."},
    202: {"model": JobView, "description": "The job is queued or running; poll `GET /api/v1/jobs/{job_id}`."},
    **ERROR_RESPONSES,
}


def job_response(state: JobState) -> Response:
    headers = {} if state.done else {"Location": f"/api/v1/jobs/{state.job_id}"}
    return Response(
        content=state.to_json(), status_code=200 if state.done else 202, media_type="application/json", headers=headers
    )


async def settle(backend: JobBackend, state: JobState, wait: float) -> JobState:
    """Re-read the job until it ends or `wait` seconds pass."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while not state.done and loop.time() < deadline:
        await asyncio.sleep(min(backend.poll_interval_s, max(0.0, deadline - loop.time())))
        fresh = await call(backend, backend.get, state.job_id)
        if fresh is not None:
            state = fresh
    return state


async def submit(backend: JobBackend, kind: str, request: BaseModel, wait: float) -> Response:
    payload = canonical_payload(request)
    jid = job_id(kind, payload)
    state = await backend.cached(jid)
    if state is None:
        state = await call(backend, backend.submit, kind, payload, jid)
    return job_response(await settle(backend, state, wait))
