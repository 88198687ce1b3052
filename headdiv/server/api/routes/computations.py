"""The long computations, submitted as jobs: one route per job kind of `headdiv.workers.jobs.kinds`.

Each body is validated by the kind's own pydantic model (a 422 names the field, the work budget
included) before anything is queued; the answer is the job, 200 once ended and 202 while pending, or
429 when its client (or everyone) already has as much work queued as `headdiv.server.admission` allows.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response

from headdiv.server.api.deps import BackendDep, SettingsDep
from headdiv.server.api.responses import Until, UntilQuery, WaitQuery, client_of, job_responses, submit
from headdiv.workers.jobs.kinds import JOB_KINDS, JobKind

router = APIRouter(tags=["jobs"])


def _endpoint(kind: JobKind) -> Callable[..., Awaitable[Response]]:
    async def post(
        request: Any,
        http: Request,
        backend: BackendDep,
        settings: SettingsDep,
        wait: float = WaitQuery,
        until: Until = UntilQuery,
    ) -> Response:
        return await submit(backend, kind.name, request, min(wait, settings.max_wait_s), client_of(http), until)

    # FastAPI reads the body's model from the signature: give it this kind's request model.
    signature = inspect.signature(post)
    body = signature.parameters["request"].replace(annotation=kind.request)
    post.__signature__ = signature.replace(parameters=[body, *list(signature.parameters.values())[1:]])  # type: ignore[attr-defined]
    post.__name__ = f"post_{kind.name}"
    return post


for _kind in JOB_KINDS.values():
    router.add_api_route(
        _kind.path, _endpoint(_kind), methods=["POST"], summary=_kind.summary, responses=job_responses(_kind)
    )
