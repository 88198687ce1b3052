"""Charts that follow the hand: a view's figures for one page state, drawn once and served to every browser.

While a slider moves, `assets/live.js` asks `GET <prefix>_live?<query>` (the page's URL query with the
slider's new value) and applies the answer with `Plotly.react`, before the URL changes: the release still
goes through the URL-sync callback once, so the history gets one entry. The answer is
`{"parts": [{"key", "charts": {chart name: figure}, "headline"?}, ...]}` for the tab the query names, one
part per computation of the view (`View.live`), drawn by the view's own figure builders, the ones its Dash
callbacks, exports and downloads use; the page redraws only the charts whose part's key changed.

Figures are a resource addressed by content: a part's key hashes the view, the normalised request
(`jobs.request_key`) and the figure variant (large fonts, the view's drawing choices), so a state drawn once
by anyone is never drawn again while it stays in the app's memory (its JSON, under one byte bound with the
pure callbacks' answers, `figure_memory`, least recently used out first; the answer is gzipped at the
fastest level on the way out). A state a page opened on (asked without `x-headdiv-move`: a link, a preset,
a tour's slide, the page's own drawing) is also kept on disk for the next start (`FigureCache`). The ETag
hashes the parts' keys. A state the registry refuses answers 422 with its one-line reason (the page keeps its
charts and shows the line); a computation slower than `WAIT_S` answers 202 (the page keeps its charts; the
release draws the final ones through the usual path).

Anticipation: with the header `x-headdiv-ahead: 1` (the page asking for the values a person reaches next,
±1 step of the slider last moved) the computation is submitted at the lowest priority
(`priority=background`: small jobs only, run while no person's job waits, taken over by a person asking for
it) without waiting: 202 until it is done, then the drawn figures, cached here for whoever comes next.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import flask
import plotly.graph_objects as go
from dash import Dash, dcc
from dash.development.base_component import Component
from plotly.io.json import to_json_plotly

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.figure_memory import FIGURE_CACHE_BYTES, Memory, figure_memory, new_memory
from headdiv.dashboard.drawing.view_jobs import Request, computed, request_key
from headdiv.dashboard.page.sidebar_simulation import headline
from headdiv.dashboard.page.url_state import PageState, UrlRegistry
from headdiv.dashboard.teaching.tours import expand
from headdiv.i18n import SOURCE, spoken
from headdiv.jobs.kinds import kind_at
from headdiv.plumbing.kept import code_digest, keep, read_kept
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.results.simulation_results import SimulationResult

LIVE_PATH = "_live"
AHEAD_HEADER = "x-headdiv-ahead"
MOVE_HEADER = "x-headdiv-move"
"""Sent by assets/live.js for a slider's movement (its values pass: they are not kept for the next start)."""
VIEW_HEADER = "x-headdiv-view"
"""On an answer with nothing to draw (204): the view the state shows (a room's follower marks the charts of
another view until they go)."""
WAIT_S = 2.0
"""How long a live request waits for its computation (a cached or small one arrives within it)."""
LARGE_FONTS = {"font.size": 17, "title.font.size": 20, "legend.font.size": 15}
"""The projector's font sizes, as assets/large_fonts.js sets them on a chart Dash drew: a live figure comes
with them, so that script finds nothing to change (no second layout pass per movement)."""


@dataclass(frozen=True)
class LivePart:
    """One computation of a view and the charts it draws (a view's `live` is one per computation: Foundations
    has one per lesson). `request(state)` is the computation for a page state (None: nothing to draw): a job
    (`POST path` with the body), or, with `report`, a cheap report (`GET path` with the body as its query,
    read as that model). `draw(result, state)` gives its figures by chart name (the `graph(name)` of the
    layout). `variant` names the view's own URL parameters that change the drawing but not the request."""

    request: Callable[[PageState], Request | None]
    draw: Callable[[Any, PageState], Mapping[str, go.Figure]]
    variant: tuple[str, ...] = ()
    report: type[ResultModel] | None = None


class LiveView(Protocol):
    """What the live path reads of a view (`views.view_protocol.View` is one): named on this side, so that
    drawing needs nothing of the views, which build on it."""

    @property
    def id(self) -> str: ...
    @property
    def live(self) -> tuple[LivePart, ...]: ...
    @property
    def shows_simulation(self) -> bool: ...


class FigureCache:
    """Each part's answer (JSON) by key in `memory` (the app's, shared with the pure callbacks; else one of its
    own of `limit` bytes), the least recently used dropped past its bound, plus the count of what was drawn.
    With a `kept` kind, an answer put with `keep_on_disk` is also kept for the next start (`headdiv.plumbing.kept`,
    named by the sources' digest and its key, a content hash): a state a page opened on (a link, a tour's
    slide, a preset) is not drawn again by a server started as the class walks in, when drawing it cold takes
    a second or more."""

    def __init__(self, limit: int = FIGURE_CACHE_BYTES, kept: str | None = None, memory: Memory | None = None) -> None:
        self.memory = memory if memory is not None else new_memory(limit)
        self.kept = kept
        self._lock = threading.Lock()
        self.drawn = 0
        """How many answers this cache has drawn (the bench checks each state is drawn once)."""

    def get(self, key: str) -> bytes | None:
        found = self.memory.get(("live", key))
        if isinstance(found, bytes):
            return found
        if self.kept is None:
            return None
        kept = read_kept(self.kept, _kept_name(key))
        if kept is not None:
            self.memory.put(("live", key), kept)
        return kept

    def put(self, key: str, body: bytes, keep_on_disk: bool = False) -> None:
        with self._lock:
            self.drawn += 1
        self.memory.put(("live", key), body)
        if keep_on_disk and self.kept is not None:
            keep(self.kept, _kept_name(key), body)


def _kept_name(key: str) -> str:
    return f"{code_digest()}-{key}.json"


def live_controls(layout: Component, registry: UrlRegistry) -> dict[str, tuple[str, float]]:
    """The page's sliders that hold a URL parameter: control id -> (parameter, one step in the slider's own
    units: the exponent on a log-scale slider), for assets/live.js to name a value and its neighbours. Only
    those on a live tab are drawn while they move; the rest are left to the usual path."""
    sliders = [c for c in layout._traverse() if isinstance(c, dcc.Slider)]
    steps = {str(getattr(c, "id", "")): float(getattr(c, "step", None) or 1) for c in sliders}
    return {str(p.component): (p.name, steps[str(p.component)]) for p in registry if str(p.component) in steps}


def figure_key(view_id: str, req: Request, variant: Mapping[str, Any]) -> str:
    """The content address of a view's figures: view, normalised request, figure variant."""
    text = json.dumps([view_id, request_key(req), dict(variant)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def variant_of(state: PageState, part: LivePart) -> dict[str, Any]:
    """What, beside the request, changes a part's figures: large fonts, the language their words are in, and
    its `variant` parameters."""
    variant = {"large": bool(state.get("large")), **{name: state.get(name) for name in part.variant}}
    language = spoken()
    return variant if language == SOURCE else {**variant, "lang": language}


def with_large_fonts(fig: go.Figure) -> go.Figure:
    fig.update_layout({k.replace(".", "_"): v for k, v in LARGE_FONTS.items()})
    return fig


def draw_part(part: LivePart, state: PageState, result: Any, key: str) -> bytes:
    """A part's answer as JSON: its key, its charts, and the header's numbers when it is the simulation."""
    large = bool(state.get("large"))
    charts = {
        name: (with_large_fonts(fig) if large else fig).to_plotly_json()
        for name, fig in part.draw(result, state).items()
    }
    answer: dict[str, Any] = {"key": key, "charts": charts}
    if isinstance(result, SimulationResult):
        answer.update(headline(result))
    return to_json_plotly(answer).encode()


class Pending(Exception):
    """A part's computation is still running (202)."""


def _computed(client: ApiClient, part: LivePart, req: Request, ahead: bool = False, to_end: bool = False) -> Any:
    """A part's result, from the API: a job (submitted at the lowest priority when `ahead`, without waiting
    then; waited for to its end when `to_end`) or a report. Raises `Pending` while a job runs, `ApiError`
    when refused or failed."""
    if part.report is not None:
        return part.report.model_validate(client.get(req[0], params=req[1], slow=120.0 if to_end else 0.0))
    if to_end:
        return computed(client, req)
    job = client.submit(req[0], req[1], wait=0.0 if ahead else WAIT_S, ahead=ahead)
    if not job.done:
        raise Pending
    if job.status != "finished" or job.result is None:
        raise ApiError(job.message or "the computation failed", 422)
    return kind_at(req[0]).result.model_validate(job.result)


def drawn_to_the_end(parts: Sequence[LivePart], state: PageState, client: ApiClient) -> dict[str, go.Figure]:
    """Every part's charts for `state`, each computation waited for to its end (an export has no page to
    poll from), by chart name."""
    charts: dict[str, go.Figure] = {}
    for part in parts:
        req = part.request(state)
        if req is None:
            continue
        charts.update(part.draw(_computed(client, part, req, to_end=True), state))
    return charts


def _json(status: int, body: Mapping[str, Any]) -> flask.Response:
    return flask.Response(json.dumps(body), status, mimetype="application/json", headers={"cache-control": "no-store"})


def register_live(
    app: Dash, client: ApiClient, registry: UrlRegistry, views: Sequence[LiveView], layout: Component
) -> None:
    """Serve `<prefix>_live` and tell the page where, for which tabs and sliders (the `headdiv-live` meta
    tag, read by assets/live.js); `layout` is the page's (its sliders, in any language). What it draws is kept in the app's
    `figure_memory` (and on disk, for a state a page opened on)."""
    figures = FigureCache(kept="figures", memory=figure_memory(app))
    prefix = app.config.requests_pathname_prefix
    config = {
        "url": f"{prefix.rstrip('/')}/{LIVE_PATH}",
        "tabs": [v.id for v in views if v.live],
        # views whose own drawing ends on the live answer for the URL's state: the page asks for it with its
        # scripts and draws a chart's first frame with it (a sweep's view draws its progress first instead)
        "opening": [v.id for v in views if v.live and v.shows_simulation],
        "first": views[0].id,
        "controls": live_controls(layout, registry),
        "params": {str(p.component): p.name for p in registry if p.component},
        # what the URL-sync leaves out of a URL, so the page knows two ways of writing one state as one
        "defaults": {p.name: p.dump(p.default) for p in registry if p.default is not None},
    }
    app.config.meta_tags.append({"name": "headdiv-live", "content": json.dumps(config)})
    by_id = {v.id: v for v in views if v.live}

    def live() -> flask.Response:
        state = registry.parse(expand(flask.request.query_string.decode("latin-1")))
        if state.notices:
            return _json(422, {"message": "; ".join(state.notices)})
        # which view the state shows, for a page that cannot tell from the query (a tour's step names it)
        shows = {VIEW_HEADER: str(state.get("tab"))}
        view = by_id.get(str(state.get("tab")))
        if view is None:
            return flask.Response(status=204, headers=shows)
        ahead = flask.request.headers.get(AHEAD_HEADER) == "1"
        # a state a page opened on (not a slider's passing value): kept for the next start too
        opened = not ahead and flask.request.headers.get(MOVE_HEADER) != "1"
        parts: list[bytes] = []
        keys: list[str] = []
        fresh = False
        for part in view.live:
            req = part.request(state)
            if req is None:
                continue
            key = figure_key(view.id, req, variant_of(state, part))
            body = figures.get(key)
            if body is None:
                try:
                    result = _computed(client, part, req, ahead)
                except Pending:
                    return _json(202, {"message": "computing…"})
                except ApiError as exc:
                    return _json(exc.status if exc.status in (422, 429) else 503, {"message": exc.message})
                body = draw_part(part, state, result, key)
                figures.put(key, body, keep_on_disk=opened)
                fresh = True
            parts.append(body)
            keys.append(key)
        if not parts:
            return flask.Response(status=204, headers=shows)
        etag = '"' + hashlib.sha256(" ".join(keys).encode()).hexdigest()[:32] + '"'
        if flask.request.headers.get("if-none-match") == etag:
            return flask.Response(status=304, headers={"etag": etag})
        answer = b'{"parts":[' + b",".join(parts) + b"]}"
        headers = {"etag": etag, "cache-control": "no-cache", "x-headdiv-live": "drawn" if fresh else "cached"}
        if "gzip" in flask.request.headers.get("accept-encoding", ""):
            headers.update({"content-encoding": "gzip", "vary": "accept-encoding"})
            answer = gzip.compress(answer, compresslevel=1)  # fast: a part's JSON is kept, its gzip is not
        return flask.Response(answer, 200, mimetype="application/json", headers=headers)

    app.server.add_url_rule(f"{prefix.rstrip('/')}/{LIVE_PATH}", "live_charts", live, methods=["GET"])
