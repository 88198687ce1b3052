"""The answers every visitor shares (`headdiv/server/shared_responses.py`): built once however many ask at
once, compressed once (gzip, brotli), revalidated by ETag, and never shared when they could differ."""

from __future__ import annotations

import asyncio
import gzip
import json
import time

import brotli
import httpx
import pytest
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from headdiv.server.main import create_app
from headdiv.server.shared_responses import (
    IMMUTABLE,
    REVALIDATE,
    SharedResponseMiddleware,
    SharedResponses,
    pick_encoding,
)
from tests.server.conftest import embedded_settings
from tests.server.helpers import in_own_loop

BUNDLE = (b"var x = 1;\n" * 20000) + b"// end"


class Counting:
    """An app whose answers a test can count: a bundle, a page that sets a cookie, a missing file."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        await asyncio.sleep(0.05)  # long enough for every concurrent first request to arrive meanwhile
        path = scope["path"]
        headers = [(b"content-type", b"text/javascript")]
        status, body = 200, BUNDLE
        if path.endswith("cookie.js"):
            headers.append((b"set-cookie", b"who=you"))
        if path.endswith("missing.js"):
            status, body = 404, b"no"
        if dict(scope["headers"]).get(b"accept-encoding"):
            body = b"the app was asked to compress"  # the store must ask for the plain body
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _client(store: SharedResponses, inner: Counting) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=SharedResponseMiddleware(inner, store))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


@pytest.mark.parametrize(
    ("accept", "offered", "chosen"),
    [
        ("gzip, deflate, br", {"gzip", "br"}, "br"),
        ("gzip, deflate, br", {"gzip"}, "gzip"),
        ("br;q=0, gzip", {"gzip", "br"}, "gzip"),
        ("", {"gzip", "br"}, "identity"),
        ("*", {"gzip"}, "gzip"),
        ("identity", {"gzip", "br"}, "identity"),
    ],
)
def test_the_encoding_is_the_best_one_the_client_takes(accept: str, offered: set[str], chosen: str) -> None:
    assert pick_encoding(accept, offered) == chosen


def test_a_hundred_first_requests_at_once_build_the_answer_once_and_get_the_same_bytes() -> None:
    async def run() -> None:
        store, inner = SharedResponses(), Counting()
        path = "/_dash-component-suites/dash/dcc/bundle.v4_4_1m123.js"
        async with _client(store, inner) as client:
            answers = await asyncio.gather(*(client.get(path, headers={"accept-encoding": "gzip"}) for _ in range(100)))
            assert inner.calls == 1 and store.built == 1
            assert {a.status_code for a in answers} == {200}
            assert all(a.content == BUNDLE for a in answers)  # httpx decoded the gzip
            first = answers[0]
            assert first.headers["content-encoding"] == "gzip" and first.headers["cache-control"] == IMMUTABLE
            assert first.headers["vary"] == "accept-encoding"
            # brotli comes once it is computed (in a thread), smaller than the gzip
            deadline = time.monotonic() + 30
            while "br" not in store.items[path].encoded and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            raw = await client.get(path, headers={"accept-encoding": "gzip, br"})
            assert raw.headers["content-encoding"] == "br"
            assert brotli.decompress(store.items[path].encoded["br"]) == BUNDLE
            assert gzip.decompress(store.items[path].encoded["gzip"]) == BUNDLE
            plain = await client.get(path, headers={"accept-encoding": "identity"})
            assert "content-encoding" not in plain.headers and plain.content == BUNDLE
            # revalidation: the same ETag is 304 with no body; HEAD has the headers and no body
            again = await client.get(path, headers={"if-none-match": first.headers["etag"]})
            assert again.status_code == 304 and again.content == b""
            head = await client.head(path, headers={"accept-encoding": "gzip"})
            assert head.status_code == 200 and head.content == b"" and int(head.headers["content-length"]) > 0
            assert inner.calls == 1

    in_own_loop(run)


def test_what_could_differ_between_visitors_is_never_shared() -> None:
    async def run() -> None:
        store, inner = SharedResponses(), Counting()
        async with _client(store, inner) as client:
            for path in ("/assets/cookie.js", "/assets/missing.js"):
                for _ in range(2):
                    answer = await client.get(path)
                assert path not in store.items
            assert (await client.get("/assets/missing.js")).status_code == 404
            assert "set-cookie" in (await client.get("/assets/cookie.js")).headers
            calls = inner.calls
            # not a shared path, or not a GET: passed on every time
            await client.get("/api/v1/health")
            await client.post("/assets/style.css", content=b"{}")
            assert inner.calls == calls + 2 and "/api/v1/health" not in store.items
            assert answer.status_code == 404

    in_own_loop(run)


def test_a_files_many_names_are_stored_once_and_a_query_is_no_new_answer() -> None:
    """Dash serves a bundle under any fingerprint: each name costs one look, its bytes are kept once; an
    asset's `?m=` query is a cache-buster (the path is the key)."""

    async def run() -> None:
        store, inner = SharedResponses(), Counting()
        async with _client(store, inner) as client:
            for i in range(5):
                await client.get(f"/_dash-component-suites/dash/x.v1m{i}.js")
            kept = store.bytes
            assert len(store.items) == 5 and len({id(s) for s in store.items.values()}) == 1
            for i in range(5):
                answer = await client.get(f"/assets/style.css?m={i}")
            assert inner.calls == 6 and answer.headers["cache-control"] == IMMUTABLE
            assert store.bytes == kept  # the same content again: no new bytes
            assert (await client.get("/_dash-layout")).headers["cache-control"] == REVALIDATE

    in_own_loop(run)


def test_the_server_warms_the_first_view_and_serves_dashs_own_layout_from_memory() -> None:
    app = create_app(embedded_settings())
    store: SharedResponses = app.state.shared_responses
    with TestClient(app) as client:
        deadline = time.monotonic() + 60
        while not store.warmed:
            assert time.monotonic() < deadline, sorted(store.items)
            time.sleep(0.05)
        wanted = ("/_dash-layout", "/_dash-dependencies", "dash_renderer", "/assets/live.js", "async-mathjax.js")
        assert all(any(w in p for p in store.items) for w in wanted), sorted(store.items)
        built = store.built
        answer = client.get("/_dash-layout", headers={"accept-encoding": "gzip"})
        assert answer.status_code == 200 and answer.headers["content-encoding"] == "gzip"
        assert json.loads(answer.content)["type"] == "Div"  # the layout Dash built, decoded
        page = client.get("/?tour=why-many-heads&step=2")
        assert page.status_code == 200 and "dash_renderer" in page.text
        assert page.headers["content-security-policy"]  # the security headers still wrap it
        assert store.built == built  # nothing rebuilt for these visitors
    off = create_app(embedded_settings(shared_responses=False))
    with TestClient(off) as client:
        assert client.get("/_dash-layout").status_code == 200
        assert not off.state.shared_responses.items
