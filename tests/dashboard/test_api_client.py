"""The dashboard's API client: real answers from a running app become readable messages."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from headdiv.client import UNAVAILABLE, ApiClient, ApiError, describe_422


@pytest.fixture
def client(server_url: str) -> ApiClient:
    return ApiClient(server_url)


def test_a_small_simulation_finishes_within_the_wait(client: ApiClient) -> None:
    job = client.submit("/simulations", {"H": 2, "replicates": 20, "queries": 16}, wait=30)
    assert job.status == "finished" and job.done
    assert job.result is not None and job.result["scenario"]["H"] == 2
    again = client.submit("/simulations", {"H": 2, "replicates": 20, "queries": 16}, wait=30)
    assert again.cached and again.result == job.result
    assert client.job(job.job_id).result == job.result


def test_invalid_fields_become_field_colon_reason(client: ApiClient) -> None:
    with pytest.raises(ApiError) as info:
        client.submit("/simulations", {"H": 0, "replicates": 20})
    assert info.value.status == 422
    assert info.value.message.startswith("H: ")
    assert "greater than or equal to 1" in info.value.message

    with pytest.raises(ApiError) as info:
        client.submit("/simulations", {"geometry": "shared_dims", "shared_dims": 9})
    assert "shared_dims" in info.value.message and "d_k" in info.value.message


def test_unknown_job_is_not_found(client: ApiClient) -> None:
    with pytest.raises(ApiError) as info:
        client.job("0" * 64)
    assert info.value.status == 404 and "not found" in info.value.message


def test_cheap_get_returns_the_object(client: ApiClient) -> None:
    theory = client.get("/theory/architecture", {"n": 256, "budget": 16, "c1": 1, "c2": 1})
    assert {c["H"] * c["d_k"] for c in theory["candidates"]} == {16}


def test_no_server_means_the_api_is_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ApiError) as info:
        ApiClient(f"http://127.0.0.1:{port}").submit("/simulations", {})
    assert info.value.message.startswith(UNAVAILABLE) and info.value.status is None


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (503, {"detail": "Redis is down"}, f"{UNAVAILABLE}: Redis is down"),
        (502, None, UNAVAILABLE),
        (413, {"detail": "too big"}, "the request is too large"),
        (
            429,
            {"detail": "your queued jobs already need 9e+11 work units"},
            "the server is busy: your queued jobs already need 9e+11 work units",
        ),
        (429, None, "the server is busy; retry in 7 s"),
        (500, {"detail": "boom"}, "the API answered 500: boom"),
        (500, None, "the API answered 500"),
    ],
)
def test_other_statuses_read_as_sentences(status: int, body: object, expected: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        content = b"<html>oops</html>" if body is None else json.dumps(body).encode()
        return httpx.Response(status, content=content, headers={"retry-after": "7"})

    client = ApiClient("http://api", transport=httpx.MockTransport(answer))
    with pytest.raises(ApiError) as info:
        client.get("/health")
    assert info.value.message == expected and info.value.status == status


def test_describe_422_handles_fastapi_shapes() -> None:
    body = {"detail": [{"loc": ["body", "x", "values"], "msg": "Value error, values: H takes whole numbers, got 1.5"}]}
    assert describe_422(body) == "values: H takes whole numbers, got 1.5"
    body = {"detail": [{"loc": ["query", "n"], "msg": "Input should be greater than or equal to 2"}]}
    assert describe_422(body) == "n: Input should be greater than or equal to 2"
    assert describe_422({"detail": "plain"}) == "plain"


def test_requests_made_for_a_browser_carry_its_address() -> None:
    """So the API counts a dashboard user's work as that user's, not the dashboard's (server.admission)."""
    import flask

    from headdiv.dashboard.drawing.vouched_client import dashboard_client
    from headdiv.plumbing.vouching import CLIENT_HEADER, KEY_HEADER, vouched

    seen: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(vouched(request.headers.get(CLIENT_HEADER), request.headers.get(KEY_HEADER)))
        assert "x-forwarded-for" not in request.headers
        return httpx.Response(200, json={"status": "ok"})

    client = dashboard_client("http://api", transport=httpx.MockTransport(answer))
    client.get("/health")
    with flask.Flask(__name__).test_request_context(environ_base={"REMOTE_ADDR": "203.0.113.9"}):
        client.get("/health")
    assert seen == [None, "203.0.113.9"]


def test_a_422_keeps_every_field_line_apart_from_its_one_line_message() -> None:
    """The dashboard shows one line (the first five problems); the Python API raises all of them."""
    detail = [{"loc": ["body", f"f{i}"], "msg": "bad"} for i in range(7)]

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(422, json={"detail": detail})

    with pytest.raises(ApiError) as info:
        ApiClient("http://api", transport=httpx.MockTransport(answer)).post("/hdi", {})
    assert info.value.status == 422 and info.value.problems == tuple(f"f{i}: bad" for i in range(7))
    assert info.value.message == "; ".join(f"f{i}: bad" for i in range(5))
