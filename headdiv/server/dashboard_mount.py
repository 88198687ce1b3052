"""The Dash dashboard, mounted at `/` of the API app through a2wsgi (one process, one port).

Dash's own routes answer a malformed request with a 500 and a logged traceback (a `null` callback
body, an unknown output, an unknown component suite). `harden` puts a check in front of the callback
route (`headdiv.dashboard.callback_boundary`: every part of the body as the callback declares it, every value
as its property can hold) and error handlers on the Flask server, so every such request gets a 4xx with a short JSON body (its
log line is written by `headdiv.server.refusals`); it also returns the hashes of the page's inline scripts,
for the CSP.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from headdiv.server.api.limits import TooLarge, send_refusal

log = logging.getLogger(__name__)
WSGI_THREADS = 16
"""Threads running the dashboard's callbacks. Each holds a request only while its callback runs (bodies are
read before, `WholeBody`); most callbacks wait on the API, so a few more than the cores."""

PLACEHOLDER = """<!doctype html><html><head><title>headdiv</title></head><body>
<h1>headdiv</h1><p>The dashboard is not available in this installation ({reason}).
The API is: see <a href="/docs">/docs</a>.</p></body></html>"""


@dataclass
class Dashboard:
    app: ASGIApp
    script_hashes: list[str] = field(default_factory=list)
    """CSP hashes of the page's inline scripts."""
    lazy_bundles: list[str] = field(default_factory=list)
    """Paths of the bundles Dash's components fetch once on the page (sliders, graphs, Markdown, MathJax):
    the page does not name them, so the server warms them by name."""


def dashboard_app(
    api_url: str, *, public_url: str | None = None, upload_limit: int | None = None, body_limit: int = 1 << 20
) -> Dashboard:
    """The real Dash app when it imports; otherwise a small page that says why (the API still works).
    `body_limit`: the largest request body it holds (a callback's; a model upload streams to the API)."""
    try:
        from headdiv.dashboard import create_dash_app, upload_url
    except ImportError as exc:
        log.warning("dashboard unavailable: %s", exc)
        return Dashboard(_placeholder(f"import failed: {exc}"))
    dash_app = create_dash_app(api_url, public_url=public_url, upload_limit=upload_limit)
    hashes = harden(dash_app)
    wsgi: ASGIApp = bounded_wsgi(dash_app.server)
    relay = upload_url(dash_app.config.requests_pathname_prefix)
    held = WholeBody(wsgi, max_bytes=body_limit, stream_paths=(relay,))
    return Dashboard(held, hashes, _lazy_bundles(dash_app))


SEND_TIMEOUT_S = 60.0
"""Longest a dashboard thread waits to hand a piece of its answer to the connection. a2wsgi waits for ever:
with the connection's loop stopped (a server shutting down) or its sender gone, the thread never returned,
and the process could not exit."""


def bounded_wsgi(wsgi_app: Any) -> ASGIApp:
    """a2wsgi's WSGI-to-ASGI bridge with `WSGI_THREADS` threads whose every send is bounded (`SEND_TIMEOUT_S`)."""
    import asyncio
    import concurrent.futures

    from a2wsgi import WSGIMiddleware
    from a2wsgi.wsgi import WSGIResponder

    class BoundedResponder(WSGIResponder):
        def send(self, message: Any) -> None:
            future = asyncio.run_coroutine_threadsafe(self.send_queue.put(message), loop=self.loop)
            try:
                future.result(timeout=SEND_TIMEOUT_S)
            except concurrent.futures.TimeoutError:
                future.cancel()
                raise ConnectionAbortedError("the connection took no answer; the dashboard dropped it") from None

    class BoundedMiddleware(WSGIMiddleware):
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                responder = BoundedResponder(self.app, self.executor, self.send_queue_size)
                await responder(scope, receive, send)
                return
            await super().__call__(scope, receive, send)

    return BoundedMiddleware(wsgi_app, workers=WSGI_THREADS)  # type: ignore[return-value]


def _lazy_bundles(dash_app: Any) -> list[str]:
    from pathlib import Path

    import dash.dcc

    prefix = dash_app.config.requests_pathname_prefix
    found = sorted(Path(dash.dcc.__file__).parent.glob("async-*.js"))
    return [f"{prefix}_dash-component-suites/dash/dcc/{p.name}" for p in found]


_FAULTS_SEEN: set[tuple[str, str]] = set()
RELOAD = "reload the page (a page from an older version of this server sends what this one no longer takes)"
"""What a person can do about a refused callback: their page is the only sender the server expects."""


def _short(status: int, detail: str) -> Any:
    """A refusal's JSON, in the API's shape (`message` is the line a person reads; the server's refusal log
    takes its reason from it)."""
    import flask

    return flask.jsonify(detail=detail, message=detail), status


def _fault_once(exc: BaseException) -> bool:
    """Whether this fault (its type and where it was raised) is new: its traceback is logged once."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"
    key = (type(exc).__name__, where)
    if key in _FAULTS_SEEN:
        return False
    _FAULTS_SEEN.add(key)
    return True


def harden(dash_app: Any) -> list[str]:
    """Check callback requests before Dash runs them and answer errors as short JSON; return the page's
    inline-script hashes (after every callback is registered, as `Dash.csp_hashes` requires)."""
    import flask
    from dash.exceptions import DependencyException
    from pydantic import ValidationError
    from werkzeug.exceptions import HTTPException

    from headdiv.dashboard import callback_boundary

    server = dash_app.server
    callback_path = dash_app.config.routes_pathname_prefix + "_dash-update-component"
    boundary = callback_boundary(dash_app)

    @server.before_request
    def _check_callback() -> Any:
        if flask.request.path != callback_path or flask.request.method != "POST":
            return None
        try:
            body = flask.request.get_json(silent=True)
        except RecursionError:  # `silent` covers malformed JSON, not JSON nested past Python's stack
            return _short(400, "the request's JSON is nested too deeply")
        problem = boundary.problem(body)
        return None if problem is None else _short(400, f"{problem}; {RELOAD}")

    @server.errorhandler(DependencyException)
    def _unknown_asset(exc: DependencyException) -> Any:
        return _short(404, f"no dashboard file at {flask.request.path[:200]}; {RELOAD}")

    @server.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        path, method = flask.request.path[:200], flask.request.method
        if exc.code == 404:
            return _short(404, f"nothing at {path}; the dashboard is at / and the API's endpoints at /docs")
        if exc.code == 405:
            return _short(405, f"method {method} not allowed at {path}; open the page with GET")
        return _short(exc.code or 400, f"{exc.description or exc.name}; {RELOAD}")

    @server.errorhandler(ValidationError)
    def _unreadable(exc: ValidationError) -> Any:
        # a store or an input holding data of another shape than the page writes (a script, or a page left
        # open across an upgrade): the client's mistake, told in one line, never a traceback
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) if exc.error_count() else "data"
        return _short(400, f"the callback's {where or 'data'} does not have the shape the page writes; {RELOAD}")

    @server.errorhandler(Exception)
    def _crash(exc: Exception) -> Any:
        # a bug, not bad input (the check above turns that away): the traceback for the operator, a plain
        # sentence for the browser
        if _fault_once(exc):
            log.error("dashboard error on %s", flask.request.path, exc_info=exc)
        else:
            log.error("dashboard error on %s: %s again (its traceback was logged once)", flask.request.path, exc)
        return _short(500, "internal error in the dashboard; the server's log has the details")

    return list(dash_app.csp_hashes())


def _placeholder(reason: str) -> ASGIApp:
    page = HTMLResponse(PLACEHOLDER.format(reason=reason.replace("<", "&lt;")))

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await page(scope, receive, send)

    return app


class WholeBody:
    """Reads a request's whole body on the event loop before the WSGI app gets a thread: a phone that sends
    a callback's body slowly then holds a coroutine, not one of the dashboard's few threads (ten such
    phones froze every page and callback). Its time limits are the server's (`headdiv.server.api.limits`,
    outside this, under `headdiv serve`). Held bodies are bounded (`max_bytes`: 413 beyond, so a stand-alone
    `headdiv dashboard`, which has no body limits of its own, cannot be made to hold one in memory); a model
    upload relayed to the API (`upload_relay`) streams through as it comes, never held."""

    def __init__(self, app: ASGIApp, max_bytes: int = 1 << 20, stream_paths: tuple[str, ...] = ()) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.stream_paths = stream_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") in ("GET", "HEAD", "OPTIONS")
            or scope.get("path", "").rstrip("/") in self.stream_paths
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        held = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: nothing to answer
                return
            chunks.append(message.get("body", b""))
            held += len(chunks[-1])
            if held > self.max_bytes:
                await send_refusal(send, TooLarge(self.max_bytes, close=True))
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()  # after the body: only the disconnect

        await self.app(scope, replay, send)
