"""Class polls in both set-ups: counts in memory (embedded) or in Redis (scaled), one answer per voter."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator

import pytest
import redis
from fastapi.testclient import TestClient

from headdiv.schemas.polls import POLL_TTL_S
from headdiv.server import poll_counts as polls_store
from headdiv.server.api.routes import polls_routes as polls_route
from headdiv.server.main import create_app
from headdiv.server.poll_counts import MemoryPolls, PollRefused, RedisPolls, index_key, poll_key, voters_key
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
    """A token this server never issued (a forged one)."""
    return secrets.token_urlsafe(16)


def issued(api: TestClient, poll_id: str) -> str:
    resp = api.post(f"/api/v1/polls/{poll_id}/voters", json={})
    assert resp.status_code == 201, resp.text
    return str(resp.json()["voter"])


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
    a, b = issued(api, poll["id"]), issued(api, poll["id"])
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
        ({"choice": "sideways", "voter": "ISSUED"}, "body.choice"),
        ({"choice": "<b>falls</b>", "voter": "ISSUED"}, "body.choice"),
        ({"choice": "falls", "voter": "short"}, "body.voter"),
        ({"choice": "falls", "voter": "ISSUED", "name": "Ann"}, "body.name"),
        ({"voter": "ISSUED"}, "body.choice"),
        ({"choice": 1, "voter": "ISSUED"}, "body.choice"),
    ],
)
def test_bad_answers_are_422_naming_the_field_and_not_counted(api: TestClient, answer: dict, field: str) -> None:
    poll = open_poll(api)
    answer = {k: issued(api, poll["id"]) if v == "ISSUED" else v for k, v in answer.items()}
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


def test_counts_are_bounded_and_a_full_server_refuses_new_polls_instead_of_dropping_one() -> None:
    store = MemoryPolls(max_answers=2, max_polls=2)
    poll = store.create("t/1", ["a", "b"])
    assert store.answer(poll.id, "a", "x" * 16)[0] == "counted"
    assert store.answer(poll.id, "b", "y" * 16)[0] == "counted"
    outcome, view = store.answer(poll.id, "b", "z" * 16)
    assert outcome == "full" and view is not None and view.total == 2
    second = store.create("t/1", ["a", "b"], "another lecturer")
    with pytest.raises(PollRefused) as refused:
        store.create("t/1", ["a", "b"], "a third")
    assert refused.value.status == 503 and "live polls" in refused.value.message
    assert store.get(poll.id) is not None and store.get(second.id) is not None  # nobody's poll was dropped


def test_expired_polls_are_gone() -> None:
    store = MemoryPolls(ttl_s=0)
    poll = store.create("t/1", ["a", "b"])
    assert store.get(poll.id) is None
    assert store.answer(poll.id, "a", "x" * 16)[0] == "missing"


@pytest.mark.redis
def test_redis_poll_keys_expire(redis_url: str, queue_name: str) -> None:
    with TestClient(create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)) as c:
        poll = c.post("/api/v1/polls", json=BODY).json()
        c.post(f"/api/v1/polls/{poll['id']}/answers", json={"choice": "stays", "voter": issued(c, poll["id"])})
    conn = redis.Redis.from_url(redis_url)
    try:
        for key in (poll_key(poll["id"]), voters_key(poll["id"])):
            assert 0 < conn.ttl(key) <= POLL_TTL_S
        stored = {k.decode() if isinstance(k, bytes) else k for k in conn.hkeys(poll_key(poll["id"]))}
        assert stored == {"topic", "choices", "c:falls", "c:stays", "c:rises"}  # counts, nothing a voter wrote
    finally:
        conn.delete(poll_key(poll["id"]), voters_key(poll["id"]))


@pytest.mark.redis
def test_redis_keeps_the_number_of_live_polls_bounded_without_dropping_any(redis_url: str) -> None:
    conn = redis.Redis.from_url(redis_url)
    index = f"{index_key()}:test-{secrets.token_hex(4)}"  # private to this test
    store = RedisPolls(conn, ttl_s=60, max_polls=2, index=index)
    made = []
    try:
        made = [store.create("t/1", ["a", "b"], f"client {i}").id for i in range(2)]
        with pytest.raises(PollRefused) as refused:
            store.create("t/1", ["a", "b"], "client 3")
        assert refused.value.status == 503
        assert all(store.get(p) for p in made)  # none was dropped
        assert conn.zcard(index) == 2 and 0 < conn.ttl(index) <= 60
    finally:
        conn.delete(*[k for p in made for k in (poll_key(p), voters_key(p))])
        conn.delete(index)


def test_forged_tokens_count_nothing_and_a_token_counts_only_on_its_own_poll(api: TestClient) -> None:
    poll, other = open_poll(api), open_poll(api)
    url = f"/api/v1/polls/{poll['id']}/answers"
    for _ in range(50):  # a stuffer's random voter ids
        resp = api.post(url, json={"choice": "falls", "voter": voter()})
        assert resp.status_code == 403 and "not issued" in resp.json()["detail"], resp.text
    elsewhere = issued(api, other["id"])
    assert api.post(url, json={"choice": "falls", "voter": elsewhere}).status_code == 403
    assert api.get(f"/api/v1/polls/{poll['id']}").json()["total"] == 0
    # a valid token is given back as it is; a forged one is replaced by a fresh one
    mine = issued(api, poll["id"])
    again = api.post(f"/api/v1/polls/{poll['id']}/voters", json={"voter": mine})
    assert again.status_code == 200 and again.json()["voter"] == mine
    replaced = api.post(f"/api/v1/polls/{poll['id']}/voters", json={"voter": voter()})
    assert replaced.status_code == 201 and replaced.json()["voter"] != mine
    assert api.post(f"/api/v1/polls/{'A' * 16}/voters", json={}).status_code == 404


def test_a_hall_behind_one_address_is_counted_once_each(api: TestClient) -> None:
    """200 phones behind one NAT: 200 tokens, 200 answers, exactly 200 counted, in well under 10 s."""
    poll = open_poll(api)
    started = time.monotonic()
    tokens = [issued(api, poll["id"]) for _ in range(200)]
    choices = ["falls", "stays", "rises"]
    for i, token in enumerate(tokens):
        resp = api.post(f"/api/v1/polls/{poll['id']}/answers", json={"choice": choices[i % 3], "voter": token})
        assert resp.status_code == 200, resp.text
    assert time.monotonic() - started < 10
    view = api.get(f"/api/v1/polls/{poll['id']}").json()
    assert view["total"] == 200 and view["counts"] == {"falls": 67, "stays": 67, "rises": 66}


def test_tokens_and_polls_are_rationed_per_address_and_nobody_elses_poll_suffers(
    api: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(polls_route, "VOTER_TOKENS", 3)
    monkeypatch.setattr(polls_store, "CLIENT_POLLS", 4)
    flooder = f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    lecturer = open_poll(api)  # another address's poll, opened before the flood
    api_flood = TestClient(api.app, client=(flooder, 1))
    made = []
    for _ in range(6):
        resp = api_flood.post("/api/v1/polls", json=BODY)
        if resp.status_code == 201:
            made.append(resp.json()["id"])
            if hasattr(api, "created"):
                api.created.append(made[-1])
    assert len(made) == 4  # the rest were refused, and said why
    refused = api_flood.post("/api/v1/polls", json=BODY)
    assert refused.status_code == 429 and refused.headers["retry-after"] and "opened 4 polls" in refused.text
    answers = [api_flood.post(f"/api/v1/polls/{made[0]}/voters", json={}).status_code for _ in range(5)]
    assert answers == [201, 201, 201, 429, 429]
    token = issued(api, lecturer["id"])  # the lecturer's class is untouched
    ok = api.post(f"/api/v1/polls/{lecturer['id']}/answers", json={"choice": "stays", "voter": token})
    assert ok.status_code == 200 and ok.json()["total"] == 1


@pytest.mark.redis
def test_an_answer_racing_the_polls_expiry_recreates_nothing(redis_url: str, queue_name: str) -> None:
    app = create_app(rq_settings(redis_url, queue_name), mount_dashboard=False)
    with TestClient(app) as c:
        poll = open_poll(c)
        token = issued(c, poll["id"])
        conn = redis.Redis.from_url(redis_url)
        assert app.state.polls.client is app.state.backend.redis  # on the queue's Redis, not the cache's
        conn.delete(poll_key(poll["id"]))  # expired (or evicted) between the check and the answer
        resp = c.post(f"/api/v1/polls/{poll['id']}/answers", json={"choice": "stays", "voter": token})
        assert resp.status_code == 404, resp.text
        assert conn.exists(poll_key(poll["id"])) == 0 and conn.exists(voters_key(poll["id"])) == 0
        assert c.get(f"/api/v1/polls/{poll['id']}").status_code == 404  # gone, not a 500 for ever
