"""Rooms (`headdiv/server/rooms.py`, `/api/v1/rooms`): only the lecturer's token changes a room, followers get
the current state at once and the newest at each change (never a queue of old ones), one address cannot
flood the server with rooms, and with Redis a follower on one replica sees what the lecturer set on another."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from headdiv.server.main import create_app
from headdiv.server.rooms import CLIENT_ROOMS, MemoryRooms, RoomRefused, RoomState
from tests.server.conftest import embedded_settings, rq_settings
from tests.server.helpers import ServerThread

pytestmark = pytest.mark.timeout(120)


def run_async(scenario: Any) -> Any:
    """`asyncio.run(scenario())` in a thread of its own: a browser test's Playwright keeps an event loop
    running in the main thread for the rest of the session."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(scenario())
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(60)
    if "error" in out:
        raise out["error"]
    return out["value"]


def _make(url: str) -> tuple[str, str]:
    made = httpx.post(f"{url}/api/v1/rooms", timeout=10)
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["follow_url"].endswith(f"/r/{body['code']}") and body["qr"].startswith("data:image/svg+xml")
    return body["code"], body["token"]


def _put(url: str, code: str, token: str, query: str, poll: str | None = None, **more: str) -> httpx.Response:
    return httpx.put(
        f"{url}/api/v1/rooms/{code}/state",
        json={"query": query, "poll": poll, **more},
        headers={"X-Headdiv-Lecturer": token},
        timeout=10,
    )


class Follower:
    """A follower's event stream read in a thread: each state event with the time it arrived."""

    def __init__(self, url: str, code: str) -> None:
        self.states: list[tuple[float, dict[str, Any]]] = []
        self.ended = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(url, code), daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    def _read(self, url: str, code: str) -> None:
        with httpx.stream("GET", f"{url}/api/v1/rooms/{code}/events", timeout=30) as answer:
            assert answer.headers["content-type"].startswith("text/event-stream")
            self.ready.set()
            event = ""
            for line in answer.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "state":
                    self.states.append((time.monotonic(), json.loads(line[6:])))
                elif line.startswith("data: ") and event == "end":
                    self.ended.set()
                    return

    def wait_for(self, query: str, limit_s: float = 10, **more: str) -> float:
        """When the first state with this query (and the `more` fields) arrived."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            for at, state in self.states:
                if state["query"] == query and all(state.get(k) == v for k, v in more.items()):
                    return at
            time.sleep(0.01)
        raise AssertionError(f"never received {query!r}: {[s['query'] for _, s in self.states]}")


@pytest.fixture
def served() -> Iterator[str]:
    settings = embedded_settings()
    with ServerThread(create_app(settings, mount_dashboard=False), settings=settings) as running:
        yield running.url


def test_followers_see_the_lecturers_states_and_nobody_else_can_set_them(served: str) -> None:
    code, token = _make(served)
    first = Follower(served, code)
    assert _put(served, code, token, "?tab=weighting").json()["followers"] == 1
    sent = time.monotonic()
    second = Follower(served, code)  # joins late: is sent the current state at once
    assert second.wait_for("?tab=weighting") - sent < 2
    for i in range(5):
        assert _put(served, code, token, f"?theta={i}").status_code == 200
    for follower in (first, second):
        follower.wait_for("?theta=4")
        assert [s["version"] for _, s in follower.states] == sorted(s["version"] for _, s in follower.states)
    # not the lecturer: refused, and nothing changes
    wrong = _put(served, code, "x" * 40, "?tab=ensemble")
    assert wrong.status_code == 403 and "X-Headdiv-Lecturer" in wrong.json()["message"]
    assert httpx.get(f"{served}/api/v1/rooms/{code}").json()["query"] == "?theta=4"
    assert httpx.get(f"{served}/api/v1/rooms/AAAAAA").status_code == 404
    elsewhere = _put(served, code, token, "/../elsewhere?x=1")  # only a query: never a path of its own
    assert elsewhere.status_code == 422 and elsewhere.json()["message"].startswith("query: ")
    assert httpx.get(f"{served}/api/v1/rooms/nope!").status_code == 422
    # the same state again keeps the room alive without waking anyone
    count = len(first.states)
    assert _put(served, code, token, "?theta=4").json()["version"] == 6
    time.sleep(0.3)
    assert len(first.states) == count
    # the step's question revealed on the lecturer's page is news, with the answer it was revealed with
    assert _put(served, code, token, "?theta=4", reveal="falls").json()["version"] == 7
    first.wait_for("?theta=4", reveal="falls")
    bad = _put(served, code, token, "?theta=4", reveal="<b>falls</b>")
    assert bad.status_code == 422 and bad.json()["message"].startswith("reveal: ")
    # the lecturer ends it: every follower is told
    assert httpx.delete(f"{served}/api/v1/rooms/{code}", headers={"X-Headdiv-Lecturer": token}).status_code == 204
    assert first.ended.wait(5) and second.ended.wait(5)
    assert _put(served, code, token, "?x=1").status_code == 404


def test_one_address_cannot_flood_the_server_with_rooms(served: str) -> None:
    for _ in range(CLIENT_ROOMS):
        _make(served)
    refused = httpx.post(f"{served}/api/v1/rooms", timeout=10)
    assert refused.status_code == 429 and "reuse one" in refused.json()["message"] and refused.headers["Retry-After"]


def test_a_slow_follower_gets_the_newest_state_not_a_queue_of_old_ones() -> None:
    async def scenario() -> tuple[bytes | None, bytes | None]:
        rooms = MemoryRooms(heartbeat_s=5)
        code, token = await rooms.create()
        stream = rooms.follow(code)
        first = await anext(stream)
        for i in range(50):  # the follower reads nothing meanwhile
            await rooms.publish(code, token, RoomState(query=f"?theta={i}"))
        after = await asyncio.wait_for(anext(stream), 1)
        await stream.aclose()
        return first, after

    first, after = run_async(scenario)
    assert first is not None and first.startswith(b"id: 0\n")
    assert after is not None and after.startswith(b"id: 50\nevent: state\n")
    assert json.loads(after.split(b"data: ")[1])["query"] == "?theta=49"


def test_an_ended_or_unknown_room_refuses_a_follower() -> None:
    async def scenario() -> None:
        rooms = MemoryRooms()
        with pytest.raises(RoomRefused) as refused:
            await anext(rooms.follow("ABCDEF"))
        assert refused.value.status == 404
        code, token = await rooms.create()
        with pytest.raises(RoomRefused) as wrong:
            await rooms.publish(code, "y" * 40, RoomState(query="?a=1"))
        assert wrong.value.status == 403
        await rooms.close(code, token)
        assert await rooms.get(code) is None

    run_async(scenario)


def test_with_redis_a_follower_on_one_replica_follows_a_lecturer_on_another(redis_url: str) -> None:
    """Two API processes' worth of apps on one Redis (the lecture profile's replicas behind nginx)."""
    name = f"hdtest-rooms-{time.monotonic_ns()}"
    one, two = (rq_settings(redis_url, name) for _ in range(2))
    with (
        ServerThread(create_app(one, mount_dashboard=False), settings=one) as a,
        ServerThread(create_app(two, mount_dashboard=False), settings=two) as b,
    ):
        code, token = _make(a.url)
        on_b = Follower(b.url, code)
        on_a = Follower(a.url, code)
        sent = time.monotonic()
        assert _put(a.url, code, token, "?tab=covariance").status_code == 200
        assert on_b.wait_for("?tab=covariance") - sent < 2 and on_a.wait_for("?tab=covariance") - sent < 2
        seen = httpx.get(f"{b.url}/api/v1/rooms/{code}").json()
        assert seen["followers"] == 2 and seen["query"] == "?tab=covariance"
        assert _put(b.url, code, "z" * 40, "?tab=ensemble").status_code == 403
        assert httpx.delete(f"{b.url}/api/v1/rooms/{code}", headers={"X-Headdiv-Lecturer": token}).status_code == 204
        assert on_a.ended.wait(5) and on_b.ended.wait(5)


def test_with_redis_a_follower_who_comes_after_the_last_one_left_still_follows(redis_url: str) -> None:
    """A replica's subscription to a room goes with its last follower; the next one gets a subscription of
    its own (not the old, ending one) and every change after it."""
    from headdiv.server.rooms import RedisRooms

    async def scenario() -> bytes | None:
        rooms = RedisRooms(redis_url, f"hdtest-rooms-{time.monotonic_ns()}", idle_s=60, heartbeat_s=1)
        code, token = await rooms.create()
        first = rooms.follow(code)
        await anext(first)
        await first.aclose()  # the last follower here leaves
        again = rooms.follow(code)
        await anext(again)
        await asyncio.sleep(0.2)  # its subscription is in place
        await rooms.publish(code, token, RoomState(query="?tab=training"))
        got = await asyncio.wait_for(anext(again), 5)
        await again.aclose()
        await rooms.close(code, token)
        await rooms.redis.aclose()
        return got

    got = run_async(scenario)
    assert got is not None and json.loads(got.split(b"data: ")[1])["query"] == "?tab=training"
