"""Class polls for a guided tour's prediction questions: open one, answer it, read its counts.

Counts live in the cache backend (memory embedded, Redis scaled) and expire with the poll. Every answer
is validated against the poll's own choice ids; one answer per voter token (a browser's random token).
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from headdiv.server.api.deps import BackendDep, call
from headdiv.server.api.responses import ERROR_RESPONSES
from headdiv.server.backends.base import JobBackend
from headdiv.server.polls import MemoryPolls, PollStore, RedisPolls
from headdiv.workers.schemas.polls import POLL_ID_PATTERN, PollAnswer, PollCreate, PollView

router = APIRouter(prefix="/polls", tags=["polls"])
PollId = Annotated[str, Path(pattern=POLL_ID_PATTERN, description="The poll's id (16 URL-safe characters).")]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such poll (never opened, or expired)."}}
_lock = threading.Lock()


def poll_store(request: Request, backend: JobBackend) -> PollStore:
    """The app's poll store, made on first use beside the backend's result cache (Redis when it is Redis)."""
    store: PollStore | None = getattr(request.app.state, "polls", None)
    if store is None:
        with _lock:
            store = getattr(request.app.state, "polls", None)
            if store is None:
                cache = getattr(backend, "cache", None)
                client = getattr(cache, "client", None)
                store = RedisPolls(client) if getattr(cache, "kind", "") == "redis" and client else MemoryPolls()
                request.app.state.polls = store
    return store


def _view(view: PollView, status: int = 200) -> JSONResponse:
    return JSONResponse(view.model_dump(), status_code=status)


@router.post("", status_code=201, response_model=PollView, responses=ERROR_RESPONSES, summary="Open a poll")
async def create_poll(body: PollCreate, request: Request, backend: BackendDep) -> JSONResponse:
    """A new poll with an unguessable id; it expires after a few hours."""
    store = poll_store(request, backend)
    return _view(await call(backend, store.create, body.topic, body.choices), 201)


@router.get("/{poll_id}", response_model=PollView, responses={**ERROR_RESPONSES, **NOT_FOUND}, summary="Read a poll")
async def get_poll(poll_id: PollId, request: Request, backend: BackendDep) -> JSONResponse:
    view = await call(backend, poll_store(request, backend).get, poll_id)
    if view is None:
        raise HTTPException(404, f"no poll {poll_id}")
    return _view(view)


@router.post(
    "/{poll_id}/answers",
    response_model=PollView,
    responses={
        **ERROR_RESPONSES,
        **NOT_FOUND,
        409: {"description": "This voter has answered already, or the poll is full."},
    },
    summary="Answer a poll",
)
async def answer_poll(poll_id: PollId, body: PollAnswer, request: Request, backend: BackendDep) -> JSONResponse:
    """Count one answer: `choice` must be one of the poll's choice ids; one answer per `voter` token."""
    outcome, view = await call(backend, poll_store(request, backend).answer, poll_id, body.choice, body.voter)
    if outcome == "missing" or view is None:
        raise HTTPException(404, f"no poll {poll_id}")
    if outcome == "unknown-choice":
        raise RequestValidationError(
            [
                {
                    "loc": ("body", "choice"),
                    "msg": f"not a choice of this poll; choices: {', '.join(view.choices)}",
                    "type": "value_error",
                }
            ]
        )
    if outcome == "repeat":
        raise HTTPException(409, "this browser has answered this poll already")
    if outcome == "full":
        raise HTTPException(409, "this poll has all the answers it can count")
    return _view(view)
