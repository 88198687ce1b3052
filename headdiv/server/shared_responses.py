"""Responses that are the same for every visitor, built and compressed once per process.

A lecture hall opening one link asks for the same page, the same Dash layout and dependency list, and the
same JavaScript bundles (react-dom, Dash's renderer and components, MathJax, plotly): sixty phones made the
server rebuild the 290 KB layout and re-gzip the 2 MB MathJax bundle sixty times. This middleware answers
those paths from memory: the first request is passed to the app (without compression, cookies or
validators), and its 200 answer is kept with its gzip (level 9) and, where the `brotli` module is
installed, brotli (quality 11, computed in a thread after the gzip is served) encodings (both kept on disk
by the body's hash for the next start, `headdiv.plumbing.kept`), an ETag, and
long-lived caching for fingerprinted files (Dash's `.v<version>m<mtime>.` names, the vendored bundles'
content hashes, the assets' `?m=` query). Everything else passes through untouched.

Only answers that cannot differ between visitors are shared: GET or HEAD, status 200, no `Set-Cookie`,
and the path alone is the key (the query of an asset is a cache-buster, not content), so a stranger's
query string cannot fill the memory; what does not fit `max_bytes` is passed through, never evicted. The
page and its layout are written in the visitor's language (`i18n.page_language`: the page's `?lang=`, else
the Referer's, else `Accept-Language`): they are keyed by path and language, one of the few registered, and
built by asking the app for that language alone.
Concurrent first requests for one path wait for the one answer being built. A file-based static server
(servestatic, whitenoise) cannot serve these: Dash's bundles live at virtual, fingerprinted paths and the
layout is built in Python; nginx or caddy in front of a public deployment can still cache them
(docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import anyio
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from headdiv.i18n.choosing import page_language
from headdiv.plumbing.kept import keep, read_kept

try:
    import brotli
except ImportError:  # pragma: no cover - brotli is a dependency; without it, gzip only
    brotli = None

log = logging.getLogger(__name__)

SHARED_PREFIXES = ("/_dash-component-suites/", "/assets/", "/_headdiv/vendor/")
SHARED_PATHS = frozenset({"/", "/_dash-layout", "/_dash-dependencies", "/_favicon.ico"})
IN_LANGUAGES = frozenset({"/", "/_dash-layout"})
"""Shared paths whose answer is written in the visitor's language: one answer per language."""
SPOKEN = (b"referer", b"accept-language")
"""What says a visitor's language besides the query: not passed when a page is built for one language."""
FINGERPRINT = re.compile(r"\.v[\w-]+m[0-9a-fA-F]+\.|/_headdiv/vendor/")
"""Dash's versioned bundle names and the vendored bundles' content-hash names: never change meaning."""
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
MAX_BYTES = 96 << 20
MAX_PATHS = 4096
"""Paths remembered: Dash serves a bundle under any fingerprint, so one file has unboundedly many names
(their answers are stored once, by content; past this many names, new ones pass through)."""
THREAD_FROM = 64 << 10
"""Bodies above this are compressed in a worker thread, not on the event loop."""
DROPPED = (b"accept-encoding", b"cookie", b"if-none-match", b"if-modified-since", b"range")


@dataclass
class Shared:
    """One path's answer: its identity body and encodings, by content."""

    content_type: bytes
    identity: bytes
    etag: bytes
    cache_control: str
    encoded: dict[str, bytes] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.identity) + sum(len(b) for b in self.encoded.values())


def is_shared(scope: Scope) -> bool:
    path = scope.get("path", "")
    return scope.get("method") in ("GET", "HEAD") and (path in SHARED_PATHS or path.startswith(SHARED_PREFIXES))


def shared_key(scope: Scope) -> tuple[str, str | None]:
    """The key of the scope's shared answer, and its language (None for a path the same in every language)."""
    path = scope["path"]
    if path not in IN_LANGUAGES:
        return path, None
    headers = Headers(raw=list(scope.get("headers") or ()))
    query = scope.get("query_string", b"").decode("latin-1")
    code = page_language(query, headers.get("referer"), headers.get("accept-language"))
    return f"{path} {code}", code


def cache_control(path: str, query: bytes) -> str:
    if FINGERPRINT.search(path) or (path.startswith("/assets/") and query.startswith(b"m=")):
        return IMMUTABLE
    return REVALIDATE


def pick_encoding(accept: str, offered: Iterable[str]) -> str:
    """The best encoding the client accepts (q > 0) among those `offered`: br, then gzip, else identity."""
    accepted: dict[str, float] = {}
    for part in accept.lower().split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        accepted[name.strip()] = q
    for name in ("br", "gzip"):
        if name in offered and accepted.get(name, accepted.get("*", 0.0)) > 0:
            return name
    return "identity"


class _Scripts(HTMLParser):
    """The same-origin scripts and style sheets of a page (what a first view loads next)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        url = found.get("src") if tag == "script" else found.get("href") if tag == "link" else None
        if url and url.startswith("/") and not url.startswith("//"):
            self.urls.append(url)


class SharedResponses:
    """The shared answers of one process (`SharedResponseMiddleware` fills it; `warm` fills it ahead)."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.items: dict[str, Shared] = {}
        self._by_etag: dict[bytes, Shared] = {}
        self.bytes = 0
        self.built = 0
        """How many answers were built (passed to the app): the bench's proof that each path is built once."""
        self._building: dict[str, asyncio.Future[Shared | None]] = {}
        self.app: ASGIApp | None = None
        self.warmed = False
        """`warm` has built everything it was given (their brotli encodings may still be on their way)."""

    async def get(self, scope: Scope) -> Shared | None:
        """The shared answer for the scope's path (in its language), building it once (None: not shareable,
        pass through)."""
        key, language = shared_key(scope)
        known = self.items.get(key)
        if known is not None:
            return known
        pending = self._building.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Shared | None] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            shared = await self._build(scope, key, language)
            future.set_result(shared)
            return shared
        except BaseException as exc:
            future.set_result(None)
            if not isinstance(exc, Exception):
                raise
            log.warning("shared answer for %s not built: %s", key, exc)
            return None
        finally:
            self._building.pop(key, None)

    async def _build(self, scope: Scope, key: str, language: str | None) -> Shared | None:
        assert self.app is not None, "SharedResponseMiddleware sets the app"
        inner = dict(scope)
        inner["method"] = "GET"
        dropped = DROPPED if language is None else (*DROPPED, *SPOKEN)
        inner["headers"] = [(k, v) for k, v in scope.get("headers", ()) if k.lower() not in dropped]
        if language is not None:  # that language alone: the answer is the same for everyone who reads it
            inner["query_string"] = f"lang={language}".encode()
        status, headers, body = await _capture(self.app, inner)
        self.built += 1
        head = Headers(raw=headers)
        if status != 200 or "set-cookie" in head or "content-encoding" in head:
            return None
        path = scope["path"]
        digest = hashlib.sha256(body).hexdigest()
        etag = ('"' + digest[:32] + '"').encode()
        control = cache_control(path, scope.get("query_string", b""))
        same = self._by_etag.get(etag)
        if same is not None and same.cache_control == control:
            if len(self.items) < MAX_PATHS:
                self.items[key] = same
            return same
        if self.bytes + len(body) > self.max_bytes or len(self.items) >= MAX_PATHS:
            return None
        gz = await _in_thread(len(body), lambda: _encoded(body, digest, "gzip"))
        shared = Shared(
            content_type=head.get("content-type", "application/octet-stream").encode("latin-1"),
            identity=body,
            etag=etag,
            cache_control=control,
            encoded={"gzip": gz} if len(gz) < len(body) else {},
        )
        self.items[key] = shared
        self._by_etag[etag] = shared
        self.bytes += shared.size
        if brotli is not None and len(body) > 1024:
            asyncio.get_running_loop().create_task(self._add_brotli(shared, digest))
        return shared

    async def _add_brotli(self, shared: Shared, digest: str) -> None:
        br = await _in_thread(len(shared.identity), lambda: _encoded(shared.identity, digest, "br"))
        if len(br) < len(shared.encoded.get("gzip", shared.identity)):
            shared.encoded["br"] = br
            self.bytes += len(br)

    async def warm(self, scope: Scope, paths: Iterable[str] = ("/", "/_dash-layout", "/_dash-dependencies")) -> int:
        """Build the first view's shared answers now (the page, its layout and dependencies, and every
        script and style sheet the page names), so the first visitor does not pay for them."""
        todo = list(paths)
        done = 0
        while todo:
            url = todo.pop(0)
            path, _, query = url.partition("?")
            if shared_key({"path": path})[0] in self.items or not is_shared({"method": "GET", "path": path}):
                continue
            shared = await self.get({**scope, "path": path, "raw_path": path.encode(), "query_string": query.encode()})
            done += shared is not None
            if shared is not None and path == "/":
                found = _Scripts()
                found.feed(shared.identity.decode("utf-8", "replace"))
                todo = found.urls + todo  # what the page names first
        self.warmed = True
        return done


def _encoded(body: bytes, digest: str, encoding: str) -> bytes:
    """`body` compressed, as kept by an earlier start (by its content's hash) or compressed now and kept:
    brotli at quality 11 of every bundle cost seconds of both cores at every start."""
    name = f"{digest}.{'gz' if encoding == 'gzip' else 'br'}"
    kept = read_kept("responses", name)
    if kept is not None:
        return kept
    out = gzip.compress(body, compresslevel=9, mtime=0) if encoding == "gzip" else brotli.compress(body, quality=11)
    keep("responses", name, out)
    return out


async def _in_thread(size: int, work: Any) -> bytes:
    if size < THREAD_FROM:
        return work()  # type: ignore[no-any-return]
    return await anyio.to_thread.run_sync(work)  # type: ignore[no-any-return]


async def _capture(app: ASGIApp, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Run `app` for a GET with no body; its status, headers and whole body."""
    sent = False
    never = asyncio.Event()

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await never.wait()  # no disconnect while the answer is read
        return {"type": "http.disconnect"}

    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return int(start.get("status", 500)), list(start.get("headers", [])), b"".join(chunks)


class SharedResponseMiddleware:
    """Answers the shared paths from `store`; passes everything else, and anything not shareable, on."""

    def __init__(self, app: ASGIApp, store: SharedResponses) -> None:
        self.app = app
        self.store = store
        store.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_shared(scope):
            await self.app(scope, receive, send)
            return
        shared = await self.store.get(scope)
        if shared is None:
            await self.app(scope, receive, send)
            return
        request = Headers(scope=scope)
        vary = b"accept-encoding, accept-language, referer" if scope["path"] in IN_LANGUAGES else b"accept-encoding"
        headers = [(b"etag", shared.etag), (b"cache-control", shared.cache_control.encode()), (b"vary", vary)]
        if request.get("if-none-match") == shared.etag.decode():
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        encoding = pick_encoding(request.get("accept-encoding", ""), shared.encoded)
        body = shared.encoded.get(encoding, shared.identity)
        headers.append((b"content-type", shared.content_type))
        if encoding != "identity":
            headers.append((b"content-encoding", encoding.encode()))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
