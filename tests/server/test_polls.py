"""Class polls in both set-ups: counts in memory (embedded) or in Redis (scaled), one answer per voter."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import redis
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from headdiv.server.polls import MemoryPolls, RedisPolls, index_key, poll_key, voters_key
from headdiv.workers.schemas.polls import POLL_TTL_S
from tests.server.conftest import MODES, embedded_settings, rq_settings

BODY = {"topic": "why-many-heads/3", "choices": ["falls", "stays", "rises"]}


@pytest.fixture(params=MODES)
def api(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The API without workers (polls need none), embedded or on Redis; the test's poll keys are deleted."""
    if not request.param:
        with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
            yield c
        return
    redis_url, queue = request.getfixturevalue("redis_url"), request.getfixturevalue("queue_name")
    with TestClient(create_app(rq_settings(redis_url, queue), mount_dashboard=False)) as c:
        c.created = []  # type: ignore[attr-defined]
        yield c
        conn = redis.Redis.from_url(redis_url)
        for pid in c.created:  # type: ignore[attr-defined]
            conn.delete(poll_key(pid), voters_key(pid))


def voter() -> str:
    return secrets.token_urlsafe(16)


def open_poll(api: TestClient, body: dict | None = None) -> dict:
    resp = api.post("/api/v1/polls", json=body or BODY)
    assert resp.status_code == 201, resp.text
    poll = resp.json()
    if hasattr(api, "created"):
        api.created.append(poll["id"])
    return poll


def test_poll_counts_answers_one_per_voter(api: TestClient) -> None:
    poll = open_poll(api)
    assert len(poll["id"]) == 16 and poll["counts"] == {"falls": 0, "stays": 0, "rises": 0}
    assert poll["total"] == 0 and 0 < poll["expires_in_s"] <= POLL_TTL_S
    url = f"/api/v1/polls/{poll['id']}/answers"
    a, b = voter(), voter()
    assert api.post(url, json={"choice": "falls", "voter": a}).status_code == 200
    second = api.post(url, json={"choice": "rises", "voter": b})
    assert second.status_code == 200 and second.json()["total"] == 2
    again = api.post(url, json={"choice": "rises", "voter": a})
    assert again.status_code == 409 and "already" in again.json()["detail"]
    body = api.get(f"/api/v1/polls/{poll['id']}").json()
    assert body["counts"] == {"falls": 1, "stays": 0, "rises": 1} and body["total"] == 2
    assert body["topic"] == "why-many-heads/3" and body["choices"] == ["falls", "stays", "rises"]


def test_poll_ids_are_random_and_unknown_ones_404(api: TestClient) -> None:
    ids = {open_poll(api)["id"] for _ in range(3)}
    assert len(ids) == 3
    missing = "A" * 16
    assert api.get(f"/api/v1/polls/{missing}").status_code == 404
    assert api.post(f"/api/v1/polls/{missing}/answers", json={"choice": "falls", "voter": voter()}).status_code == 404
    assert api.get("/api/v1/polls/short").status_code == 422


def _field(resp: object) -> list[str]:
    detail = resp.json()["detail"]  # type: ignore[attr-defined]
    return [".".join(str(p) for p in d["loc"]) for d in detail]


@pytest.mark.parametrize(
    ("answer", "field"),
    [
        ({"choice": "sideways", "voter": "v" * 20}, "body.choice"),
        ({"choice": "<b>falls</b>", "voter": "v" * 20}, "body.choice"),
        ({"choice": "falls", "voter": "short"}, "body.voter"),
        ({"choice": "falls", "voter": "v" * 20, "name": "Ann"}, "body.name"),
        ({"voter": "v" * 20}, "body.choice"),
        ({"choice": 1, "voter": "v" * 20}, "body.choice"),
    ],
)
def test_bad_answers_are_422_naming_the_field_and_not_counted(api: TestClient, answer: dict, field: str) -> None:
    poll = open_poll(api)
    resp = api.post(f"/api/v1/polls/{poll['id']}/answers", json=answer)
    assert resp.status_code == 422, resp.text
    assert field in _field(resp)
    assert api.get(f"/api/v1/polls/{poll['id']}").json()["total"] == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"topic": "x/1", "choices": ["a"]}, "body.choices"),
        ({"topic": "x/1", "choices": ["a", "a"]}, "body"),
        ({"topic": "x/1", "choices": [f"c{i}" for i in range(9)]}, "body.choices"),
        ({"topic": "<script>", "choices": ["a", "b"]}, "body.topic"),
        ({"topic": "x/1", "choices": ["a", "B C"]}, "body.choices.1"),
    ],
)
def test_bad_polls_are_422_naming_the_field(api: TestClient, body: dict, field: str) -> None:
    resp = api.post("/api/v1/polls", json=body)
    assert resp.status_code == 422, resp.text
    assert any(f.startswith(field) for f in _field(resp)), _field(resp)


def test_counts_are_bounded() -> None:
    store = MemoryPolls(max_answers=2, max_polls=2)
    poll = store.create("t/1", ["a", "b"])
    assert store.answer(poll.id, "a", "x" * 16)[0] == "counted"
    assert store.answer(poll.id, "b", "y" * 16)[0] == "counted"
    outcome, view = store.answer(poll.id, "b", "z" * 16)
    assert outcome == "full" and view is not None and view.total == 2
    later = [store.create("t/1", ["a", "b"]) for _ in range(2)]
    assert store.get(poll.id) is None and all(store.get(p.id) for p in later)  # the oldest poll was dropped


def test_expired_polls_are_gone() -> None:
    store = MemoryPolls(ttl_s=0)
    poll = store.create("t/1", ["a", "b"])
    assert store.get(poll.id) is None
    assert store.answer(poll.id, "a", "x" * 16)[0] == "missing"


@pytest.mark.redis
def test_redis_poll_keys_expire(redis_url: str, queue_name: str) -> None:
    with TestClient(create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)) as c:
        poll = c.post("/api/v1/polls", json=BODY).json()
        c.post(f"/api/v1/polls/{poll['id']}/answers", json={"choice": "stays", "voter": voter()})
    conn = redis.Redis.from_url(redis_url)
    try:
        for key in (poll_key(poll["id"]), voters_key(poll["id"])):
            assert 0 < conn.ttl(key) <= POLL_TTL_S
        stored = {k.decode() if isinstance(k, bytes) else k for k in conn.hkeys(poll_key(poll["id"]))}
        assert stored == {"topic", "choices", "c:falls", "c:stays", "c:rises"}  # counts, nothing a voter wrote
    finally:
        conn.delete(poll_key(poll["id"]), voters_key(poll["id"]))


@pytest.mark.redis
def test_redis_keeps_the_number_of_live_polls_bounded(redis_url: str) -> None:
    conn = redis.Redis.from_url(redis_url)
    index = f"{index_key()}:test-{secrets.token_hex(4)}"  # private to this test
    store = RedisPolls(conn, ttl_s=60, max_polls=2, index=index)
    made = []
    try:
        made = [store.create("t/1", ["a", "b"]).id for _ in range(3)]
        assert store.get(made[0]) is None and all(store.get(p) for p in made[1:])  # the oldest was dropped
        assert conn.zcard(index) == 2 and 0 < conn.ttl(index) <= 60
    finally:
        conn.delete(*[k for p in made for k in (poll_key(p), voters_key(p))])
        conn.delete(index)
