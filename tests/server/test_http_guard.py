"""Slow and abusive connections cannot starve everyone else (`headdiv/server/http_guard.py`, the body limits
and `dashboard_mount.WholeBody`): each attack is driven over real sockets against uvicorn with the server's
own configuration, and another client's request is answered meanwhile."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread, in_own_loop

pytestmark = pytest.mark.timeout(120)


@contextmanager
def serving(**overrides: Any) -> Iterator[tuple[str, int]]:
    """The embedded app (with the dashboard) under uvicorn configured as `headdiv serve` configures it."""
    settings = embedded_settings(**overrides)
    with ServerThread(create_app(settings), settings=settings) as running:
        yield running.url, running.port


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def test_a_huge_header_is_refused_before_it_is_read_and_nobody_else_waits() -> None:
    with serving() as (url, port):
        sock = _connect(port)
        sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ")
        started = time.monotonic()
        with pytest.raises(OSError):  # the server closes while the client still sends
            for _ in range(100 * 16):  # up to 100 MB, 64 KB at a time: refused long before
                sock.sendall(b"a" * 65536)
        answer = _answer(sock)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert b"x-content-type-options: nosniff" in answer and b"larger than 65536 bytes" in answer
        assert time.monotonic() - started < 5
        assert httpx.get(f"{url}/api/v1/health", timeout=5).status_code == 200


def test_too_many_headers_are_refused() -> None:
    with serving() as (_url, port):
        sock = _connect(port)
        head = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(150))
        sock.sendall(head + b"\r\n")
        answer = _answer(sock)
        assert answer.startswith(b"HTTP/1.1 431 ") and b"more than 100 headers" in answer, answer[:300]
        ok = _connect(port)
        ok.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + b"X: 1\r\n" * 90 + b"\r\n")
        fine = _answer(ok)
        assert fine.startswith(b"HTTP/1.1 200 ")
        assert b"\r\nserver:" not in fine.lower(), fine[:300]  # the server's software is nobody's business


def test_idle_and_half_sent_heads_are_closed_and_the_server_keeps_answering() -> None:
    """A thousand idle sockets and twenty stalled callback bodies: another phone's first view (the page, the
    layout, the dependencies) still takes under 2 s; then the idle ones are closed and the half-sent head
    gets 408."""
    with serving(head_timeout_s=3.0, body_timeout_s=3.0) as (url, port):
        idle = [_connect(port) for _ in range(1000)]
        stalled = [_connect(port) for _ in range(20)]
        for sock in stalled:
            sock.sendall(b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{")
        half = _connect(port)
        half.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        with httpx.Client(base_url=url, timeout=5) as phone:
            for path in ("/", "/_dash-layout", "/_dash-dependencies", "/api/v1/health"):
                assert phone.get(path).status_code == 200, path
        assert time.monotonic() - started < 2
        for sock in idle:
            assert _answer(sock) == b""  # closed by the server, nothing said (nothing was asked)
        answer = _answer(half)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"longer than 3 s" in answer, answer[:300]


def test_slow_callback_bodies_hold_no_dashboard_thread() -> None:
    """Forty phones (more than the dashboard's threads) stuck sending a callback's body: the dashboard still
    serves a page and a callback at once; each slow body then ends in 408."""
    with serving(body_timeout_s=4.0) as (url, port):
        slow = []
        for _ in range(40):
            sock = _connect(port)
            sock.sendall(
                b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{"
            )
            slow.append(sock)
        started = time.monotonic()
        with httpx.Client(base_url=url, timeout=10) as client:
            assert client.get("/").status_code == 200
            answer = client.post("/_dash-update-component", json={"output": "nope"})
            assert answer.status_code == 400  # a callback request was read and answered (this one is bad)
        assert time.monotonic() - started < 2
        stalled = _answer(slow[0])
        assert stalled.startswith(b"HTTP/1.1 408 ") and b"stalled" in stalled, stalled[:300]


def test_a_body_trickled_just_inside_the_stall_timeout_meets_the_whole_bodys_deadline() -> None:
    with serving(body_timeout_s=1.0, body_deadline_s=3.0) as (_url, port):
        trickle = _connect(port)
        trickle.sendall(b"POST /api/v1/simulations HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        begun = time.monotonic()
        trickle.settimeout(0.5)  # a byte, then up to half a second for an answer: a byte every half second
        answer = b""
        while not answer and time.monotonic() - begun < 10:
            try:
                trickle.sendall(b" ")
                answer = trickle.recv(65536)
            except TimeoutError:
                continue
            except OSError:  # answered and closed while this byte was on its way
                break
        trickle.settimeout(30)
        answer += _answer(trickle)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"in all" in answer, answer[:300]
        assert time.monotonic() - begun < 6


def test_a_held_body_is_bounded_and_a_relayed_upload_streams_through() -> None:
    """`WholeBody` holds a callback's body (at most `max_bytes`: 413 beyond, without calling the app, as a
    stand-alone `headdiv dashboard` has no other body limit) and passes an upload's pieces on as they come."""
    from headdiv.server.dashboard_mount import WholeBody

    seen: list[list[int]] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        pieces = []
        while True:
            message = await receive()
            pieces.append(len(message.get("body", b"")))
            if not message.get("more_body"):
                break
        seen.append(pieces)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def call(path: str, sizes: list[int]) -> int:
        queue = [
            {"type": "http.request", "body": b"x" * n, "more_body": i < len(sizes) - 1} for i, n in enumerate(sizes)
        ]
        status: list[int] = []

        async def receive() -> Any:
            return queue.pop(0)

        async def send(message: Any) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        app = WholeBody(inner, max_bytes=1000, stream_paths=("/api/v1/models/hdi",))
        await app({"type": "http", "method": "POST", "path": path, "headers": []}, receive, send)
        return status[0]

    def run(path: str, sizes: list[int]) -> int:
        return int(in_own_loop(lambda: call(path, sizes)))

    assert run("/_dash-update-component", [400, 400]) == 200 and seen[-1] == [800]  # held, then given whole
    assert run("/_dash-update-component", [600, 600]) == 413 and len(seen) == 1  # over the bound: app not called
    assert run("/api/v1/models/hdi", [600, 600, 600]) == 200 and seen[-1] == [600, 600, 600]  # streamed


def test_an_over_long_link_is_a_readable_page_and_an_api_call_a_json_line() -> None:
    """A browser following a link over the head limit reads a page saying so; an API client gets JSON."""
    with serving() as (_url, port):
        answers = {}
        for path in (b"/?tab=ensemble&x=", b"/api/v1/jobs/x?y="):
            sock = _connect(port)
            with contextlib.suppress(OSError):  # the server may close while the client still sends
                sock.sendall(b"GET " + path + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            answers[path] = _answer(sock)
        page, api = answers[b"/?tab=ensemble&x="], answers[b"/api/v1/jobs/x?y="]
        assert page.startswith(b"HTTP/1.1 431 ") and b"text/html" in page and b"too long to open" in page, page[:400]
        assert b"x-content-type-options: nosniff" in page
        assert api.startswith(b"HTTP/1.1 431 ") and b"application/json" in api and b'"detail"' in api


def test_a_malformed_request_and_a_crash_carry_the_headers_and_no_details() -> None:
    """The parser's own 400 and a bug's 500 are answered outside the app's header middleware: they carry the
    security headers anyway, and the 500 names nothing of the bug (the log has it)."""
    settings = embedded_settings()
    app = create_app(settings, mount_dashboard=False)

    def boom() -> None:
        raise RuntimeError("secret detail at /srv/x.py talking to 10.0.0.5")

    app.add_api_route("/api/v1/boom", boom)
    app.router.routes.insert(0, app.router.routes.pop())  # before the API's catch-all
    with ServerThread(app, settings=settings) as running:
        sock = _connect(running.port)
        sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n")
        bad = _answer(sock)
        assert bad.startswith(b"HTTP/1.1 400 ") and b"x-content-type-options: nosniff" in bad, bad[:300]
        crash = httpx.get(f"{running.url}/api/v1/boom", timeout=10)
        assert crash.status_code == 500 and crash.headers["x-content-type-options"] == "nosniff"
        assert "secret" not in crash.text and "RuntimeError" not in crash.text and "10.0.0.5" not in crash.text


def _read_one_answer(sock: socket.socket) -> bytes:
    """One whole answer (head and its content-length of body), without waiting for the connection to close."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def _rest(sock: socket.socket) -> bytes:
    out = b""
    try:
        while chunk := sock.recv(65536):
            out += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return out


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_refused_body_never_poisons_its_connection_and_its_413_always_arrives(framing: str) -> None:
    """An oversized JSON body sent in two parts around the early 413, then a small request on the same
    connection, many times: the 413 is read every time (never a reset in its place), and nothing is ever
    answered 431 (the rest of the body is never taken for the next request's head)."""
    part = b"[" + b"0," * 350_000  # 700 KB, twice: over the 1 MiB body limit
    with serving() as (_, port):
        for _ in range(25):
            sock = _connect(port)
            if framing == "content-length":
                head = b"Content-Length: %d\r\n" % (2 * len(part))
                first, second = part, part
            else:
                head = b"Transfer-Encoding: chunked\r\n"
                first = b"%x\r\n%s\r\n" % (len(part), part)
                second = first + b"0\r\n\r\n"
            sock.sendall(b"POST /api/v1/hdi HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + head + b"\r\n")
            sock.sendall(first)
            if framing == "chunked":  # no length declared: the limit is passed only by the second part
                sock.sendall(second)
                second = b""
            answer = _read_one_answer(sock)
            assert answer.startswith(b"HTTP/1.1 413") and b"too large" in answer, answer[:200]
            after = b""
            try:
                sock.sendall(second)  # the rest of the refused body, after its answer
                sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server had closed (gracefully): nothing more to say
            after = _rest(sock)
            sock.close()
            assert b"431" not in after and (not after or after.startswith(b"HTTP/1.1 200")), after[:200]
