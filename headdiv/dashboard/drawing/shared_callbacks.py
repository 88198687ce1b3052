"""Callbacks whose answer is a pure function of the request body, answered once for every visitor.

Sixty phones opening one lecture link send the same first callbacks with the same bodies (the URL-sync
callback with the link's query, the tour panel for its step), and each cost the server milliseconds of
Python. A callback registered with `pure_callback` promises that its outputs depend only on its inputs
and states (no API call, no clock, no randomness, no cookie): its answers are kept by the hash of the
request body and the page's language, in the app's one memory of drawn answers (`figure_memory`, one byte bound with the live
figures), and a repeated body is answered from memory without running it.
Callbacks that read anything else (a job, a poll's counts) use `app.callback` as usual.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import Any

import flask
from dash import Dash

from headdiv.dashboard.drawing.figure_memory import FIGURE_CACHE_BYTES, Answer, Memory, figure_memory, new_memory
from headdiv.dashboard.page.language import request_language

EXTENSION = "headdiv_shared_callbacks"


class SharedCallbacks:
    """The pure callbacks' outputs (Dash's callback keys) and their answers by body hash."""

    def __init__(self, limit: int = FIGURE_CACHE_BYTES, memory: Memory | None = None) -> None:
        """Answers kept in `memory` (the app's, shared with the live figures), else in one of `limit` bytes."""
        self.memory = memory if memory is not None else new_memory(limit)
        self.outputs: set[str] = set()
        self._lock = threading.Lock()
        self.answered = 0
        """Answers given from memory (tests and the storm bench read it)."""

    def key(self, request: flask.Request) -> str | None:
        try:
            body = request.get_json(silent=True, cache=True)
        except RecursionError:  # nested past the stack: not shared; the callback check answers 400
            return None
        if not isinstance(body, dict) or body.get("output") not in self.outputs:
            return None
        # the same body from pages in two languages is answered in each (a notice, the tour's words)
        return hashlib.sha256(request.get_data(cache=True)).hexdigest() + " " + request_language()

    def get(self, key: str) -> Answer | None:
        found = self.memory.get(("callback", key))
        if not isinstance(found, tuple):
            return None
        with self._lock:
            self.answered += 1
        return found

    def put(self, key: str, status: int, body: bytes, mimetype: str) -> None:
        self.memory.put(("callback", key), (status, body, mimetype))


def shared_callbacks(app: Dash) -> SharedCallbacks:
    """The app's registry, installed on first use: the callback route answers a known body from memory."""
    found = app.server.extensions.get(EXTENSION)
    if isinstance(found, SharedCallbacks):
        return found
    shared = SharedCallbacks(memory=figure_memory(app))
    app.server.extensions[EXTENSION] = shared
    route = app.config.routes_pathname_prefix + "_dash-update-component"

    @app.server.before_request
    def _known() -> Any:
        if flask.request.path != route or flask.request.method != "POST":
            return None
        key = shared.key(flask.request)
        answer = shared.get(key) if key is not None else None
        if answer is None:
            flask.g.shared_callback = key
            return None
        status, body, mimetype = answer
        return flask.Response(body, status, mimetype=mimetype)

    @app.server.after_request
    def _keep(response: flask.Response) -> flask.Response:
        key = flask.g.pop("shared_callback", None)
        if key is not None and response.status_code in (200, 204) and "Set-Cookie" not in response.headers:
            shared.put(key, response.status_code, response.get_data(), response.mimetype or "application/json")
        return response

    return shared


def pure_callback(app: Dash, *dependencies: Any, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`app.callback` for a callback whose outputs depend on its request body alone (see the module)."""
    shared = shared_callbacks(app)

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        before = set(app.callback_map)
        registered = app.callback(*dependencies, **options)(function)
        shared.outputs.update(set(app.callback_map) - before)
        return registered  # type: ignore[no-any-return]

    return register
