"""How job states become HTTP responses, and the `?wait=` loop they share."""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial
from typing import Any, Generic, Literal, TypeVar

from fastapi import Query, Request, Response
from pydantic import BaseModel, Field

from headdiv.jobs.ids import job_id
from headdiv.jobs.kinds import JobKind, job_kind
from headdiv.jobs.state import CellCount, JobState
from headdiv.plumbing.vouching import CLIENT_HEADER, KEY_HEADER, vouched
from headdiv.schemas.fields import canonical
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.server.api.deps import call
from headdiv.server.backends.backend_protocol import JobBackend

ResultT = TypeVar("ResultT", bound=ResultModel)

WaitQuery = Query(0.0, ge=0, le=60, allow_inf_nan=False, description="Seconds to wait for the result (0..60).")
Until = Literal["end", "progress"]
UntilQuery = Query(
    "end",
    description="What `wait` waits for: `end`, the job's end; `progress`, its end or its next step (a cell "
    "done, or more progress than when the request arrived), so a client draws partial results at once.",
)

Priority = Literal["user", "background"]
PriorityQuery = Query(
    "user",
    description="`background`: computed ahead of a person (the dashboard's anticipation of the next slider "
    "value): only a small job is taken (429 otherwise, or when too many wait already), it runs only while no "
    "person's job waits, and a person asking for the same job takes it over at once.",
)

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    413: {"description": "Request body too large."},
    503: {"description": "The queue or cache (Redis) is unreachable; retry later."},
}
JOB_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": JobState, "description": "The job has ended: finished (with its result), failed or canceled."},
    202: {"model": JobState, "description": "The job is queued or running; poll `GET /api/v1/jobs/{job_id}`."},
    429: {
        "description": "Too much work queued already, by this client or by everyone: retry after the "
        "`Retry-After` header's seconds (the body's `message` says which bound)."
    },
    **ERROR_RESPONSES,
}


class Job(JobState, Generic[ResultT]):
    """A job of one kind, as its route answers: its `result` (and a running job's `partial`) is that kind's
    result model (the published schema's name for it; the body is a `JobState`)."""

    result: ResultT | None = None  # type: ignore[assignment]
    partial: ResultT | None = Field(  # type: ignore[assignment]
        None,
        description="While a multi-cell job runs: its result shaped as when finished, null for cells not done yet.",
    )


def job_responses(kind: JobKind) -> dict[int | str, dict[str, Any]]:
    """The responses of `kind`'s route, its result model named in the schema."""
    model = Job[kind.result]  # type: ignore[name-defined]  # a kind's model, known at run time
    return {
        **JOB_RESPONSES,
        200: {**JOB_RESPONSES[200], "model": model},
        202: {**JOB_RESPONSES[202], "model": model},
    }


def job_response(state: JobState) -> Response:
    headers = {} if state.done else {"Location": f"/api/v1/jobs/{state.job_id}"}
    return Response(
        content=state.to_json(), status_code=200 if state.done else 202, media_type="application/json", headers=headers
    )


def _moved_on(state: JobState, since: JobState) -> bool:
    """More cells done than `since` (a job made of cells), or more progress (any other job)."""
    if state.cells is not None:
        return state.cells.done > (since.cells.done if since.cells is not None else 0)
    return (state.progress or 0.0) > (since.progress or 0.0)


async def settle(
    backend: JobBackend, job_id: str, state: JobState | None, wait: float, until: Until = "end"
) -> JobState | None:
    """Wait until the job ends (or, `until="progress"`, moves on) or `wait` seconds pass: woken by the
    runner's announcements, reading the job once per change for all its watchers (`JobWatch`). `state`: the
    job as its submission left it; None reads it first (None back: no such job)."""
    if state is not None and (state.done or wait <= 0):
        return state
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    start = state
    watch = backend.watch

    async def fetch() -> JobState | None:
        return await call(backend, backend.get, job_id)

    while True:
        watcher = watch.watch(job_id, until)  # before the read: a change from now on wakes it
        try:
            fresh = await watch.read(job_id, fetch)
            if fresh is None and start is None:
                return None
            if fresh is not None:  # None after a submission: another submitter is still enqueueing it
                state, start = fresh, start or fresh
                if state.done or (until == "progress" and _moved_on(state, start)):
                    return state
            left = deadline - loop.time()
            if left <= 0:
                return state
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watcher.woken, min(left, backend.poll_interval_s))
        finally:
            watch.forget(watcher)


def client_of(http: Request) -> str:
    """Whose work a request adds to: the browser the dashboard vouches for (`plumbing.vouching`), else the
    peer's address (uvicorn puts X-Forwarded-For there only from HEADDIV_TRUSTED_PROXIES)."""
    named = vouched(http.headers.get(CLIENT_HEADER), http.headers.get(KEY_HEADER))
    return named or (http.client.host if http.client else "unknown")


async def submit(
    backend: JobBackend,
    kind: str,
    request: BaseModel,
    wait: float,
    client: str = "",
    until: Until = "end",
    priority: Priority = "user",
) -> Response:
    jid = job_id(kind, canonical(request))
    state = await backend.cached(jid)
    if state is None:
        ahead = priority == "background"
        submit = partial(backend.submit, client=client, cache_checked=True, background=ahead)
        state = await call(backend, submit, kind, request, jid)
    state = await settle(backend, jid, state, wait, until) or state
    if state.cached and state.cells is None and job_kind(kind).made_of_cells:
        total = len(request.scenarios())  # type: ignore[attr-defined]
        state = state.model_copy(update={"cells": CellCount(total=total, done=total, from_cache=total)})
    return job_response(state)
