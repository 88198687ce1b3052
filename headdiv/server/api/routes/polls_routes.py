"""Class polls for a guided tour's prediction questions: open one, answer it, read its counts.

Counts live apart from the result cache (memory embedded, the queue's Redis scaled) and expire with the
poll. Every answer is validated against the poll's own choice ids and needs a voter token this server
issued for that poll (`POST /polls/{id}/voters`); one answer per token (`headdiv.server.poll_counts`).
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from headdiv.schemas.polls import (
    ANSWERED_ALREADY,
    NO_POLL,
    NOT_ISSUED,
    POLL_FULL,
    POLL_ID_PATTERN,
    PollAnswer,
    PollCreate,
    PollView,
    VoterIssued,
    VoterRequest,
)
from headdiv.server.api.deps import BackendDep, call
from headdiv.server.api.responses import ERROR_RESPONSES, client_of
from headdiv.server.backends.backend_protocol import JobBackend
from headdiv.server.poll_counts import (
    VOTER_TOKENS,
    VOTER_TOKENS_WINDOW_S,
    MemoryPolls,
    PollRefused,
    PollStore,
    RedisPolls,
    VoterTokens,
)

router = APIRouter(prefix="/polls", tags=["polls"])
PollId = Annotated[str, Path(pattern=POLL_ID_PATTERN, description="The poll's id (16 URL-safe characters).")]
POLL_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such poll (never opened, or expired)."}}
_lock = threading.Lock()


def poll_store(request: Request, backend: JobBackend) -> PollStore:
    """The app's poll store, made on first use: on the queue's Redis when the backend has one (it never
    evicts; the result cache may), else in this process's memory, apart from its result cache."""
    store: PollStore | None = getattr(request.app.state, "polls", None)
    if store is None:
        with _lock:
            store = getattr(request.app.state, "polls", None)
            if store is None:
                queue = getattr(backend, "redis", None)
                settings = getattr(backend, "settings", None)
                namespace = str(getattr(settings, "queue_name", ""))
                store = RedisPolls(queue, namespace=namespace) if queue is not None else MemoryPolls()
                request.app.state.polls = store
    return store


async def _tokens(store: PollStore, backend: JobBackend) -> VoterTokens:
    return VoterTokens(await call(backend, store.secret))


def _view(view: PollView, status: int = 200) -> JSONResponse:
    return JSONResponse(view.model_dump(), status_code=status)


@router.post("", status_code=201, response_model=PollView, responses=ERROR_RESPONSES, summary="Open a poll")
async def create_poll(body: PollCreate, request: Request, backend: BackendDep) -> JSONResponse:
    """A new poll with an unguessable id; it expires after a few hours. One address may open a few per ten
    minutes (429), and the server keeps a bounded number live (503): no poll is ever dropped for another."""
    store = poll_store(request, backend)
    try:
        view = await call(backend, store.create, body.topic, body.choices, client_of(request))
    except PollRefused as exc:
        raise HTTPException(exc.status, exc.message, headers={"Retry-After": str(exc.retry_after_s)}) from None
    return _view(view, 201)


@router.get(
    "/{poll_id}", response_model=PollView, responses={**ERROR_RESPONSES, **POLL_NOT_FOUND}, summary="Read a poll"
)
async def get_poll(poll_id: PollId, request: Request, backend: BackendDep) -> JSONResponse:
    view = await call(backend, poll_store(request, backend).get, poll_id)
    if view is None:
        raise HTTPException(404, NO_POLL.format(poll_id))
    return _view(view)


@router.post(
    "/{poll_id}/voters",
    response_model=VoterIssued,
    status_code=201,
    responses={**ERROR_RESPONSES, **POLL_NOT_FOUND, 200: {"description": "The token sent is valid: it is given back."}},
    summary="Get a voter token",
)
async def voter_token(poll_id: PollId, body: VoterRequest, request: Request, backend: BackendDep) -> JSONResponse:
    """A token to answer this poll with, signed by this server and bound to the poll (a browser keeps it in
    a cookie). A valid token sent in the body is given back (200); otherwise a fresh one is issued (201), at
    most a few hundred per address per minute (429: a lecture hall behind one address gets one each)."""
    store = poll_store(request, backend)
    if await call(backend, store.get, poll_id) is None:
        raise HTTPException(404, NO_POLL.format(poll_id))
    tokens = await _tokens(store, backend)
    if body.voter is not None and tokens.valid(poll_id, body.voter):
        return JSONResponse({"voter": body.voter})
    if not await call(backend, store.allow, "voters", client_of(request), VOTER_TOKENS, VOTER_TOKENS_WINDOW_S):
        raise HTTPException(
            429, "too many voter tokens for this address this minute; try again", headers={"Retry-After": "60"}
        )
    return JSONResponse({"voter": tokens.issue(poll_id)}, status_code=201)


@router.post(
    "/{poll_id}/answers",
    response_model=PollView,
    responses={
        **ERROR_RESPONSES,
        **POLL_NOT_FOUND,
        403: {"description": "The voter token was not issued by this server for this poll."},
        409: {"description": "This voter has answered already, or the poll is full."},
    },
    summary="Answer a poll",
)
async def answer_poll(poll_id: PollId, body: PollAnswer, request: Request, backend: BackendDep) -> JSONResponse:
    """Count one answer: `choice` must be one of the poll's choice ids; one answer per `voter` token, which
    must be one this server issued for this poll (`POST /polls/{id}/voters`)."""
    store = poll_store(request, backend)
    if not (await _tokens(store, backend)).valid(poll_id, body.voter):
        if await call(backend, store.get, poll_id) is None:
            raise HTTPException(404, NO_POLL.format(poll_id))
        raise HTTPException(403, NOT_ISSUED)
    outcome, view = await call(backend, store.answer, poll_id, body.choice, body.voter)
    if outcome == "missing" or view is None:
        raise HTTPException(404, NO_POLL.format(poll_id))
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
        raise HTTPException(409, ANSWERED_ALREADY)
    if outcome == "full":
        raise HTTPException(409, f"{POLL_FULL}; the lecturer can open a new one")
    return _view(view)
