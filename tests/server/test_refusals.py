"""Every refusal a person or a script can meet says which field or header is wrong and what to do, in one
line, and leaves one log line with that reason (never the request's body): `headdiv/server/refusals.py`."""

from __future__ import annotations

import logging
import socket
from typing import Any

import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from headdiv.server.refusals import RateLimitedLog, reason_of
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

SECRET = "s3cret-body-marker"
"""Sent inside refused bodies: it must never reach the log."""

HEALTH = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"
JOB = "0" * 64
POLL = "A" * 16

# (method, path, request keywords, status, what the message must name, what it must tell to do)
CASES: list[tuple[str, str, dict[str, Any], int, str, str]] = [
    ("POST", "/api/v1/simulations", {"json": {"H": -1, "note": SECRET}}, 422, "H:", "greater than or equal to 1"),
    ("POST", "/api/v1/simulations", {"json": {"heads": 3}}, 422, "heads:", "leave it out"),
    (
        "POST",
        "/api/v1/simulations",
        {"content": b"{" + SECRET.encode(), "headers": {"content-type": "application/json"}},
        422,
        "body:",
        "send a JSON object",
    ),
    ("POST", "/api/v1/simulations", {"json": [1, 2]}, 422, "body:", "send a JSON object"),
    (
        "POST",
        "/api/v1/simulations",
        {"content": b'{"x": "' + SECRET.encode() * 80_000 + b'"}', "headers": {"content-type": "application/json"}},
        413,
        "request body",
        "send a smaller body",
    ),
    ("GET", "/api/v1/jobs/nope", {}, 422, "job_id:", "64 lowercase hex digits"),
    ("GET", f"/api/v1/jobs/{JOB}", {}, 404, JOB, "submit its request again"),
    ("DELETE", f"/api/v1/jobs/{JOB}", {}, 404, JOB, "submit its request again"),
    ("GET", f"/api/v1/jobs/{JOB}", {"params": {"wait": "soon"}}, 422, "wait:", "valid number"),
    ("GET", f"/api/v1/jobs/{JOB}", {"params": {"wiat": "5"}}, 422, "wiat:", "leave it out"),
    ("GET", "/api/v1/polls/nope", {}, 422, "poll_id:", "its poll link holds"),
    ("GET", f"/api/v1/polls/{POLL}", {}, 404, POLL, "ask for the link again"),
    ("GET", "/api/v1/nothing", {}, 404, "/api/v1/nothing", "/docs lists the endpoints"),
    ("PUT", "/api/v1/simulations", {}, 405, "PUT", "use POST"),
    (
        "POST",
        "/api/v1/models/hdi",
        {"files": {"file": ("m.safetensors", SECRET.encode())}},
        403,
        "X-Headdiv-Upload",
        "add the header",
    ),
    ("GET", "/api/v1/models/builtin/nope/hdi", {}, 404, "'nope'", "known:"),
    ("GET", "/api/v1/models/local/nope/hdi", {}, 404, "'nope'", "GET /api/v1/models/local lists them"),
    ("POST", "/_dash-update-component", {"json": {"output": 5, "x": SECRET}}, 400, "output", "reload the page"),
    (
        "POST",
        "/_dash-update-component",
        {"json": {"output": "nope.children"}},
        400,
        "'nope.children'",
        "reload the page",
    ),
    ("GET", "/assets/nope.js", {}, 404, "/assets/nope.js", "the dashboard is at /"),
]


@pytest.fixture(autouse=True)
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal log's own rate window: the suite's other tests refuse requests too, in the same minute."""
    from headdiv.server import refusals

    monkeypatch.setattr(refusals, "REFUSALS", RateLimitedLog())


@pytest.fixture(scope="module")
def api() -> Any:
    with TestClient(create_app(embedded_settings(max_body_bytes=1 << 20))) as client:
        yield client


def _refusal_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "headdiv.refusals"]


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "names", "todo"), CASES, ids=lambda v: str(v)[:40])
def test_a_refusal_names_what_is_wrong_and_what_to_do_and_logs_one_line(
    api: TestClient,
    caplog: pytest.LogCaptureFixture,
    method: str,
    path: str,
    kwargs: dict[str, Any],
    status: int,
    names: str,
    todo: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="headdiv.refusals")
    answer = api.request(method, path, **kwargs)
    assert answer.status_code == status, answer.text[:300]
    message = answer.json()["message"]
    assert isinstance(message, str) and "\n" not in message and len(message) <= 600
    assert names in message and todo in message, message
    assert SECRET not in message
    lines = _refusal_lines(caplog)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"refused {status} {method} {path} from ") and message[:200] in lines[0], lines[0]
    assert SECRET not in lines[0]


def test_an_accepted_request_logs_no_refusal(api: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="headdiv.refusals")
    assert api.get("/api/v1/health").status_code == 200
    assert api.get("/").status_code == 200
    assert _refusal_lines(caplog) == []


def test_a_refused_head_is_answered_with_what_to_do_and_logged_before_any_app_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The HTTP guard's 431 and 400 never reach the app (nor its middleware): the guard logs them itself."""
    caplog.set_level(logging.WARNING, logger="headdiv.refusals")
    settings = embedded_settings()
    with ServerThread(create_app(settings, mount_dashboard=False), settings=settings) as running:
        for head, status, todo in (
            (HEALTH + b"".join(b"X-%d: 1\r\n" % i for i in range(150)), 431, "send at most 100"),
            (b"GET /api/v1/health HTTP/1.1\r\nHost x\r\n", 400, "send a well-formed HTTP/1.1 request"),
        ):
            with socket.create_connection(("127.0.0.1", running.port), timeout=30) as sock:
                sock.sendall(head + b"\r\n")
                answer = b""
                while chunk := sock.recv(65536):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 %d " % status), answer[:200]
            body = answer.split(b"\r\n\r\n", 1)[1]
            assert todo in reason_of(body), body
    lines = _refusal_lines(caplog)
    assert len(lines) == 2, lines
    assert lines[0].startswith("refused 431 GET /api/v1/health") and "send at most 100" in lines[0]
    assert lines[1].startswith("refused 400 GET /api/v1/health") and "well-formed" in lines[1]


def test_the_log_holds_back_a_flood_and_counts_what_it_held(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="headdiv.refusals")
    now = [0.0]
    limited = RateLimitedLog(per_window=3, window_s=10.0, clock=lambda: now[0])
    for i in range(8):
        limited.warning("refused %d", i)
    assert _refusal_lines(caplog) == ["refused 0", "refused 1", "refused 2"]
    now[0] = 10.0
    limited.warning("refused %d", 8)
    assert _refusal_lines(caplog)[-1] == "refused 8 (5 more refused and not logged before this)"


def test_a_compressed_or_plain_text_refusal_still_gives_its_reason() -> None:
    import gzip

    assert reason_of(gzip.compress(b'{"message": "x: do y"}'), gzipped=True) == "x: do y"
    assert reason_of(b"plain words\nmore") == "plain words"
    assert reason_of(b'{"detail": [{"loc": ["body"]}]}') == "(no reason given)"
