"""Rooms: a lecturer's page and the phones that follow it (`headdiv.server.rooms`).

`POST /rooms` makes one and answers its code, the link students open (`/r/<code>`), its QR code and the
lecturer's token, which only the lecturer's page keeps; `PUT /rooms/{code}/state` (with the token in
`X-Headdiv-Lecturer`) sets what every follower shows; `GET /rooms/{code}/events` is a follower's
server-sent-event stream: the current state at once, then the newest at each change.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Header, HTTPException, Path, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field

from headdiv.schemas.fields import StrictModel
from headdiv.server.api.deps import BackendDep, SettingsDep, call
from headdiv.server.api.responses import ERROR_RESPONSES, client_of
from headdiv.server.api.routes.polls_routes import poll_store
from headdiv.server.rooms import (
    CHOICE_PATTERN,
    CLIENT_ROOMS,
    CLIENT_ROOMS_WINDOW_S,
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_QUERY,
    NO_ROOM,
    QUERY_PATTERN,
    MemoryRooms,
    RedisRooms,
    RoomRefused,
    Rooms,
    RoomState,
)
from headdiv.server.server_settings import ServerSettings

router = APIRouter(prefix="/rooms", tags=["rooms"])
LECTURER_HEADER = "X-Headdiv-Lecturer"
RoomCode = Annotated[
    str,
    Path(pattern=f"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$", description="The room's code (6 letters and digits)."),
]
LecturerToken = Annotated[
    str, Header(alias=LECTURER_HEADER, min_length=20, max_length=100, description="The token the room was made with.")
]
_lock = threading.Lock()
NO_SUCH_ROOM: dict[int | str, dict[str, Any]] = {404: {"description": "No such room (never made, or ended)."}}
LECTURER_ONLY: dict[int | str, dict[str, Any]] = {
    **NO_SUCH_ROOM,
    403: {"description": "Not this room's lecturer token (`X-Headdiv-Lecturer`)."},
}


class RoomMade(BaseModel):
    code: str
    token: str = Field(description="The lecturer's token: keep it in the lecturer's page, never in a link.")
    follow_url: str = Field(description="What students open (the server's public address, else this one).")
    qr: str = Field(description="The follow link as a QR code (an SVG data URI).")
    unreachable: str | None = Field(
        None, description="Why phones cannot open the follow link, when it is this computer's own address."
    )


class RoomView(BaseModel):
    code: str
    query: str
    poll: str | None
    version: int
    followers: int


class StateSent(StrictModel):
    query: str = Field(
        "", max_length=MAX_QUERY, pattern=QUERY_PATTERN, description="The lecturer's page's URL query, `?` included."
    )
    poll: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{16}$", description="The class poll open on it.")
    reveal: str | None = Field(
        None, pattern=CHOICE_PATTERN, description="The answer the shown step's question was revealed with."
    )


def rooms_of(request: Request, settings: ServerSettings) -> Rooms:
    """The app's rooms, made on first use: in the queue's Redis when there is one (every replica sees
    them), else in this process's memory."""
    rooms: Rooms | None = getattr(request.app.state, "rooms", None)
    if rooms is None:
        with _lock:
            rooms = getattr(request.app.state, "rooms", None)
            if rooms is None:
                url = settings.redis_url
                rooms = RedisRooms(url, settings.queue_name) if url else MemoryRooms()
                request.app.state.rooms = rooms
    return rooms


def _refused(exc: RoomRefused) -> HTTPException:
    return HTTPException(exc.status, exc.message)


def follow_url(request: Request, settings: ServerSettings, code: str) -> str:
    """Under the server's public address when one is configured (HEADDIV_PUBLIC_URL), else the address the
    lecturer's page reached it by."""
    parts = urlsplit(settings.public_url or str(request.base_url))
    return f"{parts.scheme}://{parts.netloc}/r/{code}"


@router.post(
    "",
    status_code=201,
    response_model=RoomMade,
    responses={**ERROR_RESPONSES, 429: {"description": "This address has made its share of rooms; retry later."}},
    summary="Make a room",
)
async def make_room(request: Request, backend: BackendDep, settings: SettingsDep) -> Any:
    """A room for the lecturer's page to present to; one address may make a few per ten minutes (429)."""
    if not await _allowed(request, backend):
        raise HTTPException(
            429,
            f"this address has made {CLIENT_ROOMS} rooms in {CLIENT_ROOMS_WINDOW_S // 60} minutes; reuse one "
            "(its page keeps presenting) or try again later",
            headers={"Retry-After": "60"},
        )
    try:
        code, token = await rooms_of(request, settings).create()
    except RoomRefused as exc:
        raise _refused(exc) from None
    link = follow_url(request, settings, code)
    from headdiv.dashboard import qr_data_uri, unreachable_note

    return RoomMade(code=code, token=token, follow_url=link, qr=qr_data_uri(link), unreachable=unreachable_note(link))


async def _allowed(request: Request, backend: Any) -> bool:
    """One address's share of new rooms, counted in the polls' rate windows (shared by every replica)."""
    store = poll_store(request, backend)
    return bool(await call(backend, store.allow, "room", client_of(request), CLIENT_ROOMS, CLIENT_ROOMS_WINDOW_S))


@router.put(
    "/{code}/state",
    response_model=RoomView,
    responses={**ERROR_RESPONSES, **LECTURER_ONLY},
    summary="Set what followers show",
)
async def set_state(
    code: RoomCode, body: StateSent, token: LecturerToken, request: Request, settings: SettingsDep
) -> Any:
    """The lecturer's page's state; the same state again keeps the room alive without waking anyone."""
    rooms = rooms_of(request, settings)
    try:
        state = await rooms.publish(code, token, RoomState(query=body.query, poll=body.poll, reveal=body.reveal))
    except RoomRefused as exc:
        raise _refused(exc) from None
    found = await rooms.get(code)
    return RoomView(
        code=code, query=state.query, poll=state.poll, version=state.version, followers=found[1] if found else 0
    )


@router.get("/{code}", response_model=RoomView, responses={**ERROR_RESPONSES, **NO_SUCH_ROOM}, summary="Read a room")
async def read_room(code: RoomCode, request: Request, settings: SettingsDep) -> Any:
    found = await rooms_of(request, settings).get(code)
    if found is None:
        raise HTTPException(404, NO_ROOM)
    state, followers = found
    return RoomView(code=code, query=state.query, poll=state.poll, version=state.version, followers=followers)


@router.delete("/{code}", status_code=204, responses={**ERROR_RESPONSES, **LECTURER_ONLY}, summary="End a room")
async def end_room(code: RoomCode, token: LecturerToken, request: Request, settings: SettingsDep) -> Response:
    try:
        await rooms_of(request, settings).close(code, token)
    except RoomRefused as exc:
        raise _refused(exc) from None
    return Response(status_code=204)


@router.get(
    "/{code}/events",
    responses={
        **ERROR_RESPONSES,
        **NO_SUCH_ROOM,
        200: {"content": {"text/event-stream": {}}, "description": "The room's states, as server-sent events."},
    },
    summary="Follow a room (server-sent events)",
)
async def follow_room(code: RoomCode, request: Request, settings: SettingsDep) -> Response:
    """`event: state` with the room's state (JSON) at once and at each change, the newest only (a phone slow
    to read skips what it missed); a comment every 15 s; `event: end` when the room ends. A dropped stream
    reconnects (`retry`) and is sent the current state again."""
    rooms = rooms_of(request, settings)
    stream = rooms.follow(code)
    try:
        first = await anext(stream)
    except RoomRefused as exc:
        raise _refused(exc) from None
    except StopAsyncIteration:
        raise HTTPException(404, NO_ROOM) from None

    async def events() -> AsyncIterator[bytes]:
        yield b"retry: 2000\n\n"
        event: bytes | None = first
        try:
            while True:
                yield b": still here\n\n" if event is None else event
                event = await anext(stream)
        except StopAsyncIteration:
            if not getattr(rooms, "closing", False):  # the room ended (a stopping server just closes)
                yield b"event: end\ndata: {}\n\n"
        finally:
            await stream.aclose()

    headers = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"}
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)
