"""Charts that follow the hand: a view's figures for one page state, drawn once and served to every browser.

While a slider moves, `assets/live.js` asks `GET <prefix>_live?<query>` (the page's URL query with the
slider's new value) and applies the answer with `Plotly.react`, before the URL changes: the release still
goes through the URL-sync callback once, so the history gets one entry. The answer is
`{"charts": {chart name: figure}, "headline": [...]}` for the tab the query names, drawn by the view's own
figure builders (`View.live`), the ones its Dash callbacks, exports and downloads use.

Figures are a resource addressed by content: the key hashes the view, the normalised request
(`jobs.request_key`) and the figure variant (large fonts), so a state drawn once by anyone is never drawn
again while it stays in this process's cache (gzip-compressed once, bounded by bytes, least recently used
out first). The key is also the ETag. A state the registry refuses answers 422 with its one-line reason
(the page keeps its charts and shows the line); a computation slower than `WAIT_S` answers 202 (the page
keeps its charts; the release draws the final ones through the usual path).

Anticipation: with the header `x-headdiv-ahead: 1` (the page asking for the values a person reaches next,
±1 step of the slider last moved) the computation is submitted at the lowest priority
(`priority=background`: small jobs only, run while no person's job waits, taken over by a person asking for
it) without waiting: 202 until it is done, then the drawn figures, cached here for whoever comes next.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import flask
import plotly.graph_objects as go
from dash import Dash
from plotly.io.json import to_json_plotly

from headdiv.dashboard.api_client import ApiClient, ApiError
from headdiv.dashboard.controls import PRIMARY, VIEW_OWNED
from headdiv.dashboard.jobs import Request, request_key, stored_result
from headdiv.dashboard.simulation import headline
from headdiv.dashboard.state import State, UrlRegistry, scenario_control_id
from headdiv.dashboard.tours import expand
from headdiv.workers.jobs.kinds import kind_at
from headdiv.workers.schemas import Scenario
from headdiv.workers.schemas.fields import Slider, hint
from headdiv.workers.schemas.results.simulation import SimulationResult

if TYPE_CHECKING:
    from headdiv.dashboard.views.base import View

LIVE_PATH = "_live"
AHEAD_HEADER = "x-headdiv-ahead"
WAIT_S = 2.0
"""How long a live request waits for its computation (a cached or small one arrives within it)."""
CACHE_BYTES = int(os.environ.get("HEADDIV_LIVE_CACHE_BYTES") or 32 << 20)
LARGE_FONTS = {"font.size": 17, "title.font.size": 20, "legend.font.size": 15}
"""The projector's font sizes, as assets/large_fonts.js sets them on a chart Dash drew: a live figure comes
with them, so that script finds nothing to change (no second layout pass per movement)."""


@dataclass(frozen=True)
class LiveCharts:
    """What a view draws for one page state, all in one answer: the request its charts come from (None:
    nothing to draw) and its figures by chart name (the `graph(name)` of its layout)."""

    request: Callable[[State], Request | None]
    draw: Callable[[Any, State], Mapping[str, go.Figure]]


class FigureCache:
    """Answers by key, gzip-compressed, the least recently used dropped past `limit` bytes."""

    def __init__(self, limit: int = CACHE_BYTES) -> None:
        self.limit = limit
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.drawn = 0
        """How many answers this process has drawn (the bench checks each state is drawn once)."""

    def get(self, key: str) -> bytes | None:
        with self._lock:
            body = self._items.get(key)
            if body is not None:
                self._items.move_to_end(key)
            return body

    def put(self, key: str, body: bytes) -> None:
        with self._lock:
            self.drawn += 1
            if key in self._items or len(body) > self.limit:
                return
            self._items[key] = body
            self._bytes += len(body)
            while self._bytes > self.limit:
                _, old = self._items.popitem(last=False)
                self._bytes -= len(old)


def live_controls() -> dict[str, tuple[str, float]]:
    """The sliders whose movements the page draws live: control id -> (URL parameter, one step in the
    slider's own units: the exponent for d_k and n), for assets/live.js to name a value and its neighbours."""
    steps: dict[str, tuple[str, float]] = {scenario_control_id(k): (k, 1) for k in PRIMARY}
    for name in VIEW_OWNED:
        slider = hint(Scenario.model_fields[name], Slider)
        if slider is not None:
            steps[scenario_control_id(name)] = (name, slider.step)
    return steps


def figure_key(view_id: str, req: Request, variant: Mapping[str, Any]) -> str:
    """The content address of a view's figures: view, normalised request, figure variant."""
    text = json.dumps([view_id, request_key(req), dict(variant)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def variant_of(state: State, view: View) -> dict[str, Any]:
    """What, beside the request, changes the view's figures: large fonts, and the view's own choices that
    change only the drawing (its URL parameters that are not scenario keys, such as Ensemble's matrix)."""
    own = {p.name: state.get(p.name) for p in view.url_params}
    return {"large": bool(state.get("large")), **own}


def _large(fig: go.Figure) -> go.Figure:
    fig.update_layout({k.replace(".", "_"): v for k, v in LARGE_FONTS.items()})
    return fig


def draw_answer(view: View, state: State, result: Any) -> bytes:
    """The answer's JSON for a finished result: every chart of the view, and the header's numbers."""
    assert view.live is not None
    figures = view.live.draw(result, state)
    large = bool(state.get("large"))
    charts = {name: (_large(fig) if large else fig).to_plotly_json() for name, fig in figures.items()}
    answer: dict[str, Any] = {"charts": charts}
    if isinstance(result, SimulationResult):
        answer.update(headline(result))
    return to_json_plotly(answer).encode()


FIGURES = FigureCache()
"""This process's figures, shared by the live endpoint and the views' own drawing callbacks."""


def answer_for(view: View, state: State, req: Request, result: Any) -> tuple[str, bytes, bool]:
    """The view's answer for `state` (key, gzip JSON, whether it was drawn now): from `FIGURES`, else drawn
    from `result` and kept."""
    key = figure_key(view.id, req, variant_of(state, view))
    body = FIGURES.get(key)
    if body is not None:
        return key, body, False
    body = gzip.compress(draw_answer(view, state, result), compresslevel=5)
    FIGURES.put(key, body)
    return key, body, True


def drawn_figures(view: View, data: Any, state: State) -> tuple[dict[str, Any], Any] | None:
    """For a view's Dash callback: its figures (plain dicts, by chart name) and the result they draw, for the
    result in a store (`{"key", "result"}`, as `headdiv.dashboard.jobs` fills it) and the view's own choices
    in `state`; drawn once per state for the live path and this one together. None while there is none."""
    result = stored_result(data)
    if result is None:
        return None
    path, body = json.loads(data["key"])
    _, answer, _ = answer_for(view, state, (path, body), result)
    return json.loads(gzip.decompress(answer))["charts"], result


def _json(status: int, body: Mapping[str, Any]) -> flask.Response:
    return flask.Response(json.dumps(body), status, mimetype="application/json", headers={"cache-control": "no-store"})


def register_live(app: Dash, client: ApiClient, registry: UrlRegistry, views: list[View]) -> FigureCache:
    """Serve `<prefix>_live` and tell the page where, for which tabs and sliders (the `headdiv-live` meta
    tag, read by assets/live.js); the cache it fills (`FIGURES`) is returned (its `drawn` counter is the
    bench's proof)."""
    prefix = app.config.requests_pathname_prefix
    config = {
        "url": f"{prefix.rstrip('/')}/{LIVE_PATH}",
        "tabs": [v.id for v in views if v.live],
        "first": views[0].id,
        "controls": live_controls(),
    }
    app.config.meta_tags.append({"name": "headdiv-live", "content": json.dumps(config)})
    server = app.server
    cache = FIGURES
    by_id = {v.id: v for v in views if v.live is not None}

    def live() -> flask.Response:
        state = registry.parse(expand(flask.request.query_string.decode("latin-1")))
        if state.notices:
            return _json(422, {"message": "; ".join(state.notices)})
        view = by_id.get(str(state.get("tab")))
        if view is None or view.live is None:
            return flask.Response(status=204)
        req = view.live.request(state)
        if req is None:
            return flask.Response(status=204)
        key = figure_key(view.id, req, variant_of(state, view))
        etag = f'"{key}"'
        if flask.request.headers.get("if-none-match") == etag and cache.get(key) is not None:
            return flask.Response(status=304, headers={"etag": etag})
        body = cache.get(key)
        fresh = body is None
        if body is None:
            try:
                ahead = flask.request.headers.get(AHEAD_HEADER) == "1"
                job = client.submit(req[0], req[1], wait=0.0 if ahead else WAIT_S, ahead=ahead)
            except ApiError as exc:
                return _json(exc.status if exc.status in (422, 429) else 503, {"message": exc.message})
            if not job.done:
                return _json(202, {"message": "computing…"})
            if job.status != "finished" or job.result is None:
                return _json(422, {"message": job.message or "the computation failed"})
            result = kind_at(req[0]).result.model_validate(job.result)
            key, body, fresh = answer_for(view, state, req, result)
        headers = {"etag": etag, "cache-control": "no-cache", "x-headdiv-live": "drawn" if fresh else "cached"}
        if "gzip" in flask.request.headers.get("accept-encoding", ""):
            headers["content-encoding"] = "gzip"
            headers["vary"] = "accept-encoding"
            return flask.Response(body, 200, mimetype="application/json", headers=headers)
        return flask.Response(gzip.decompress(body), 200, mimetype="application/json", headers=headers)

    server.add_url_rule(f"{prefix.rstrip('/')}/{LIVE_PATH}", "live_charts", live, methods=["GET"])
    return cache
