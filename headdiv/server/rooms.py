"""Rooms: every phone in a lecture hall follows what the lecturer's page shows.

A room holds one state, the newest the lecturer's page sent: its URL query (view, every parameter, tour step,
large fonts), the class poll open on it, if any, and the answer its step's question was revealed with. Followers hold a server-sent-event stream; each is woken
when the state changes and is sent the state as it is *then*: a follower slow to read skips the states it
missed (the newest wins; nothing queues behind old states). A state is a few hundred bytes; the figures it
names are drawn by the page from the same content-cached answers as everyone else's.

- **Who may change it**: the lecturer's token (32 random bytes), given once when the room is made and kept by
  the lecturer's page (session storage), never in the link students get; the server keeps only its hash.
- **How long**: a room ends `ROOM_IDLE_S` after the lecturer's page last spoke (it re-sends its state every
  `KEEPALIVE_S` while open), or when the lecturer ends it; followers are told (`event: end`).
- **Bounded**: one address makes at most `CLIENT_ROOMS` rooms per `CLIENT_ROOMS_WINDOW_S`; the server holds at
  most `MAX_ROOMS` live rooms and `MAX_FOLLOWERS` streams per room.
- **Scaled**: the room lives in the queue's Redis (the state with its TTL) and each change is published on the
  room's channel; every API replica relays it to the followers connected to it, so phones on any replica
  behind the lecture profile's nginx follow. Embedded, all of it is in this process's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import secrets
import time
import weakref
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, Field

ROOM_IDLE_S = 1800.0
"""A room ends this long after its lecturer's page last sent anything."""
KEEPALIVE_S = 60.0
"""How often the lecturer's page re-sends its state while it is open (the room stays alive)."""
HEARTBEAT_S = 15.0
"""A comment line on every follower's stream this often: proxies keep it open, a dead phone is noticed."""
MAX_ROOMS = 200
MAX_FOLLOWERS = 2000
CLIENT_ROOMS = 10
CLIENT_ROOMS_WINDOW_S = 600
MAX_QUERY = 4000
"""Characters of a state's URL query (the page's own queries are a few hundred)."""
QUERY_PATTERN = r"^(\?[^#\s]*)?$"
"""A URL query and nothing else: a follower's page appends it to the room's own path."""
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room codes are read aloud and typed on phones: no 0/O, 1/I."""
CODE_LENGTH = 6
CHOICE_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
"""A prediction question's choice id (`headdiv.dashboard.teaching.tours`)."""


class RoomState(BaseModel):
    """What the lecturer's page shows, as followers receive it."""

    query: str = Field(
        "", max_length=MAX_QUERY, pattern=QUERY_PATTERN, description="The page's URL query, `?` included."
    )
    poll: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{16}$", description="The class poll open on it.")
    reveal: str | None = Field(
        None,
        pattern=CHOICE_PATTERN,
        description="The answer the lecturer's page revealed the shown step's question with.",
    )
    version: int = 0
    at: float = 0.0

    def shows(self) -> tuple[str, str | None, str | None]:
        """What followers see of it: a state that shows the same is a keep-alive, not a change."""
        return self.query, self.poll, self.reveal


class RoomRefused(Exception):
    """A room that cannot be made or changed: `status` and a sentence saying what to do."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class _Room:
    token_hash: str
    state: RoomState
    alive_until: float
    followers: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    _event: tuple[int, bytes] = (-1, b"")

    def event(self) -> bytes:
        """The state as one server-sent event, encoded once per version for all its followers."""
        if self._event[0] != self.state.version:
            body = f"id: {self.state.version}\nevent: state\ndata: {self.state.model_dump_json()}\n\n"
            self._event = (self.state.version, body.encode())
        return self._event[1]

    def wake(self) -> None:
        """Wake every follower waiting on this room (each reads the state as it is when it runs)."""
        self.changed.set()
        self.changed = asyncio.Event()


class Rooms(Protocol):
    async def create(self) -> tuple[str, str]:
        """A new room: (code, lecturer token)."""
        ...

    async def publish(self, code: str, token: str, state: RoomState) -> RoomState:
        """The lecturer's new state (the same state again only keeps the room alive); raises RoomRefused."""
        ...

    async def get(self, code: str) -> tuple[RoomState, int] | None:
        """The room's state and how many follow it, or None."""
        ...

    async def close(self, code: str, token: str) -> None: ...

    def follow(self, code: str) -> AsyncGenerator[bytes | None, None]:
        """The room's states for one follower, each a server-sent event: the current one at once, then the
        newest each time it changes; None at each heartbeat with no change; ends when the room does. Raises
        RoomRefused when there is no such room or it is full."""
        ...


NO_ROOM = "no such room: it has ended, or the code is mistyped; ask for the code again"
NOT_LECTURER = "X-Headdiv-Lecturer: not this room's lecturer token; only the page that made the room may change it"


def _verify(expected_hash: str, token: str) -> None:
    if not hmac.compare_digest(expected_hash, token_hash(token)):
        raise RoomRefused(403, NOT_LECTURER)


def _check(room: _Room | None, token: str | None = None) -> _Room:
    if room is None or room.alive_until < time.monotonic():
        raise RoomRefused(404, NO_ROOM)
    if token is not None:
        _verify(room.token_hash, token)
    return room


class _Streams:
    """What both kinds of rooms share: their followers' streams end when the server stops (`end_streams`),
    without the room's end: the phones reconnect to whatever serves next."""

    closing = False
    loop: asyncio.AbstractEventLoop | None = None

    def _opened(self) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            _OPEN.add(self)

    def _rooms(self) -> list[_Room]:
        raise NotImplementedError

    def end_streams(self) -> None:
        self.closing = True
        for room in self._rooms():
            room.wake()


_OPEN: weakref.WeakSet[_Streams] = weakref.WeakSet()


def end_streams() -> None:
    """End every follower's stream served by this event loop (a stopping server: its streams would hold the
    stop for its whole graceful timeout)."""
    loop = asyncio.get_running_loop()
    for rooms in list(_OPEN):
        if rooms.loop is loop:
            rooms.end_streams()


async def _states(room: _Room, heartbeat_s: float, owner: _Streams) -> AsyncGenerator[bytes | None, None]:
    """One follower's view of a room: its state now, then the state as it is each time it is woken (the
    newest: a slow reader skips what it missed), None each heartbeat with no change; ends with the room or
    when the server stops. Counts the follower while it follows (at most `MAX_FOLLOWERS`)."""
    if room.followers >= MAX_FOLLOWERS:
        raise RoomRefused(503, f"this room has {MAX_FOLLOWERS} followers, its most")
    room.followers += 1
    owner._opened()
    try:
        seen = -1
        while room.alive_until >= time.monotonic() and not owner.closing:
            if room.state.version != seen:
                seen = room.state.version
                yield room.event()
                continue
            changed = room.changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), heartbeat_s)
                continue
            yield None
    finally:
        room.followers -= 1


class MemoryRooms(_Streams):
    """Rooms in this process (embedded mode): one event loop touches them, so no lock is needed."""

    def __init__(self, idle_s: float = ROOM_IDLE_S, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.rooms: dict[str, _Room] = {}
        self.idle_s, self.heartbeat_s = idle_s, heartbeat_s

    def _rooms(self) -> list[_Room]:
        return list(self.rooms.values())

    def _sweep(self) -> None:
        now = time.monotonic()
        for code in [c for c, r in self.rooms.items() if r.alive_until < now]:
            self.rooms.pop(code).wake()

    async def create(self) -> tuple[str, str]:
        self._sweep()
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomRefused(503, f"this server holds {MAX_ROOMS} rooms, its most; try again later")
        code = new_code()
        while code in self.rooms:
            code = new_code()
        token = secrets.token_urlsafe(32)
        self.rooms[code] = _Room(token_hash(token), RoomState(at=time.time()), time.monotonic() + self.idle_s)
        return code, token

    async def publish(self, code: str, token: str, state: RoomState) -> RoomState:
        room = _check(self.rooms.get(code), token)
        room.alive_until = time.monotonic() + self.idle_s
        if state.shows() == room.state.shows():
            return room.state  # a keep-alive: followers are not woken
        room.state = state.model_copy(update={"version": room.state.version + 1, "at": time.time()})
        room.wake()
        return room.state

    async def get(self, code: str) -> tuple[RoomState, int] | None:
        room = self.rooms.get(code)
        if room is None or room.alive_until < time.monotonic():
            return None
        return room.state, room.followers

    async def close(self, code: str, token: str) -> None:
        room = _check(self.rooms.get(code), token)
        room.alive_until = 0.0
        self.rooms.pop(code, None)
        room.wake()

    async def follow(self, code: str) -> AsyncGenerator[bytes | None, None]:
        async for state in _states(_check(self.rooms.get(code)), self.heartbeat_s, self):
            yield state


class RedisRooms(_Streams):
    """Rooms in the queue's Redis, for several API replicas: the state (and the token's hash) under one key
    with the room's TTL, each change published on the room's channel. A replica listens once per room it
    has followers for and wakes them from a local mirror, so a state crosses Redis once per replica, not
    once per phone."""

    def __init__(self, url: str, namespace: str, idle_s: float = ROOM_IDLE_S, heartbeat_s: float = HEARTBEAT_S) -> None:
        import redis.asyncio as aioredis

        self.redis = aioredis.Redis.from_url(url, decode_responses=True)
        self.prefix = f"headdiv:{namespace}:room:"
        self.idle_s, self.heartbeat_s = idle_s, heartbeat_s
        self.local: dict[str, _Room] = {}
        self.listeners: dict[str, asyncio.Task[None]] = {}

    def _rooms(self) -> list[_Room]:
        return list(self.local.values())

    def _key(self, code: str) -> str:
        return self.prefix + code

    async def _load(self, code: str, token: str | None = None) -> dict[str, Any]:
        raw = await self.redis.get(self._key(code))
        if raw is None:
            raise RoomRefused(404, NO_ROOM)
        record = dict(json.loads(raw))
        if token is not None:
            _verify(record["token_hash"], token)
        return record

    async def create(self) -> tuple[str, str]:
        live = 0
        async for _ in self.redis.scan_iter(match=self.prefix + "??????", count=500):
            live += 1
        if live >= MAX_ROOMS:
            raise RoomRefused(503, f"this server holds {MAX_ROOMS} rooms, its most; try again later")
        token = secrets.token_urlsafe(32)
        record = {"token_hash": token_hash(token), "state": RoomState(at=time.time()).model_dump()}
        for _ in range(10):
            code = new_code()
            if await self.redis.set(self._key(code), json.dumps(record), ex=int(self.idle_s), nx=True):
                return code, token
        raise RoomRefused(503, "no free room code; try again")

    async def publish(self, code: str, token: str, state: RoomState) -> RoomState:
        record = await self._load(code, token)
        old = RoomState.model_validate(record["state"])
        if state.shows() == old.shows():
            await self.redis.expire(self._key(code), int(self.idle_s))
            return old
        new = state.model_copy(update={"version": old.version + 1, "at": time.time()})
        record["state"] = new.model_dump()
        await self.redis.set(self._key(code), json.dumps(record), ex=int(self.idle_s))
        await self.redis.publish(self._key(code), new.model_dump_json())
        return new

    async def get(self, code: str) -> tuple[RoomState, int] | None:
        try:
            record = await self._load(code)
        except RoomRefused:
            return None
        followers = int(await self.redis.get(self._key(code) + ":followers") or 0)
        return RoomState.model_validate(record["state"]), followers

    async def close(self, code: str, token: str) -> None:
        await self._load(code, token)
        await self.redis.delete(self._key(code))
        await self.redis.publish(self._key(code), "end")

    async def _listen(self, code: str, room: _Room) -> None:
        """This replica's one subscription to a room: each message updates the local mirror and wakes its
        followers; the room's end (or its key's expiry, checked at each heartbeat) ends them."""
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(self._key(code))
        try:
            while room.followers > 0:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=self.heartbeat_s)
                if message is None:
                    if not await self.redis.exists(self._key(code)):
                        room.alive_until = 0.0
                        room.wake()
                        return
                    continue
                if message["data"] == "end":
                    room.alive_until = 0.0
                else:
                    state = RoomState.model_validate_json(message["data"])
                    if state.version > room.state.version:
                        room.state = state
                room.wake()
        finally:
            with contextlib.suppress(Exception):
                await pubsub.unsubscribe()
                await pubsub.aclose()

    async def follow(self, code: str) -> AsyncGenerator[bytes | None, None]:
        record = await self._load(code)
        room = self.local.get(code)
        if room is None or room.alive_until < time.monotonic():
            room = _Room(record["token_hash"], RoomState.model_validate(record["state"]), float("inf"))
            self.local[code] = room
        counter = self._key(code) + ":followers"
        await self.redis.incr(counter)
        await self.redis.expire(counter, int(self.idle_s))
        task = self.listeners.get(code)
        if task is None or task.done():
            self.listeners[code] = asyncio.get_running_loop().create_task(self._listen(code, room))
        try:
            async for state in _states(room, self.heartbeat_s, self):
                yield state
        finally:
            with contextlib.suppress(Exception):
                await self.redis.decr(counter)
            if room.followers == 0:  # this replica's last follower: its subscription goes with it
                self.local.pop(code, None)
                listener = self.listeners.pop(code, None)
                if listener is not None:
                    listener.cancel()
