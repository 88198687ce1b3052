"""The page's download buttons: `<prefix>_export/tour/<name>.html` (a whole tour) and
`<prefix>_export/view.html?<the page's query>` (the view shown, at its state), each one self-contained HTML
file. A file is built once per process and kept (compressed) for everyone who asks next: a lecture hall
downloading the same tour costs one build, and visitors asking while it builds are told to come back
(503 with Retry-After) rather than holding a thread."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable

import flask
from dash import Dash

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.live import FigureCache
from headdiv.dashboard.page.url_state import UrlRegistry
from headdiv.dashboard.standalone.buttons import EXPORT_PATH
from headdiv.dashboard.standalone.files import Exported, tour_file, view_file
from headdiv.dashboard.standalone.snapshot import NotExportable
from headdiv.dashboard.teaching.tours import TOURS, expand
from headdiv.dashboard.views.view_protocol import View
from headdiv.i18n import SOURCE, speaking

FILES = FigureCache(96 << 20)
"""Exported files by what they show (gzipped); the least recently used out first past the bound."""
BUILDS = threading.BoundedSemaphore(2)
"""At most two files built at once: a build holds one of the dashboard's threads for its whole computation
(a tour: tens of seconds), so a crowd asking for files can never take the threads everyone else needs."""
_building: set[str] = set()
_guard = threading.Lock()


class Busy(Exception):
    """The file is being built for someone else, or two builds run already: ask again shortly (503)."""


def _once(key: str, build: Callable[[], Exported]) -> tuple[str, bytes]:
    """The file for `key`: built by the first visitor to ask; whoever asks meanwhile is told to come back
    (`Busy`) instead of holding a thread while it builds. Built in English whatever the asking page's
    language (docs/languages.md: the exported files are not translated yet), so one file serves everyone."""
    found = FILES.get(key)
    if found is None:
        with _guard:
            if key in _building or not BUILDS.acquire(blocking=False):
                raise Busy
            _building.add(key)
        try:
            with speaking(SOURCE):
                exported = build()
            found = exported.filename.encode() + b"\n" + gzip.compress(exported.text.encode(), compresslevel=9)
            FILES.put(key, found)
        finally:
            with _guard:
                _building.discard(key)
                BUILDS.release()
    name, _, body = found.partition(b"\n")
    return name.decode(), body


def _answer(name: str, body: bytes) -> flask.Response:
    headers = {"content-disposition": f'attachment; filename="{name}"', "cache-control": "no-cache"}
    if "gzip" in flask.request.headers.get("accept-encoding", ""):
        headers.update({"content-encoding": "gzip", "vary": "accept-encoding"})
    else:
        body = gzip.decompress(body)
    return flask.Response(body, 200, mimetype="text/html", headers=headers)


def _refused(message: str, status: int) -> flask.Response:
    return flask.Response(message + "\n", status, mimetype="text/plain", headers={"cache-control": "no-store"})


def _busy() -> flask.Response:
    answer = _refused(
        "this file is being prepared (its charts are computed once, for everyone); try again in a minute", 503
    )
    answer.headers["retry-after"] = "30"
    return answer


def register_exports(app: Dash, client: ApiClient, registry: UrlRegistry, views: list[View]) -> None:
    prefix = app.config.requests_pathname_prefix.rstrip("/")

    def tour(name: str) -> flask.Response:
        found = TOURS.get(name)
        if found is None:
            return _refused(f"no tour {name!r}", 404)
        try:
            return _answer(*_once(f"tour:{name}", lambda: tour_file(found, registry, views, client)))
        except Busy:
            return _busy()
        except ApiError as exc:
            return _refused(f"the tour could not be computed: {exc.message}", 503)

    def view() -> flask.Response:
        query = flask.request.query_string.decode("latin-1")
        state = registry.parse(expand(query))
        if state.notices:
            return _refused("; ".join(state.notices), 422)
        try:
            key = "view:" + registry.serialize(state.values)
            return _answer(*_once(key, lambda: view_file(state, registry, views, client)))
        except Busy:
            return _busy()
        except NotExportable as exc:
            return _refused(str(exc), 422)
        except ApiError as exc:
            return _refused(f"the view could not be computed: {exc.message}", 422 if exc.status == 422 else 503)

    app.server.add_url_rule(f"{prefix}/{EXPORT_PATH}/tour/<name>.html", "export_tour", tour, methods=["GET"])
    app.server.add_url_rule(f"{prefix}/{EXPORT_PATH}/view.html", "export_view", view, methods=["GET"])
