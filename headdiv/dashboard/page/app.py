"""The Dash app: the page frame (`page`), the page-level callbacks, and the views' callbacks (the URL sync: `url_sync`).

`create_dash_app(api_url)` builds a self-contained Dash app that talks to the headdiv API at
`api_url` over HTTP. The FastAPI server mounts `app.server` at `/`; `headdiv dashboard` serves it
alone against a remote API. The URL is the source of truth: one callback keeps the query string and
every control in step (both directions, so links, presets and the back button all go through the
registry of `headdiv/dashboard/page/url_state.py`), and views compute from the validated state it stores.

A key press must cost few round trips (at most three: the sync, the simulation, its drawing), so
what needs no Python runs in the browser (clientside callbacks: the share link, the header's numbers,
the gates below), the page frame (lecture classes, value badges) is answered by the sync callback
itself, and each tab listens to a gated copy of the state (`ids.view_state`) that the browser updates
only while that tab is shown: hidden tabs cost nothing. Only the shown tab is mounted in the browser
(`dcc.Tabs` renders the selected child alone), so a key press re-renders one view, not nine.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import cast

from dash import Dash, Input, Output
from dash import State as DashState
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.live import register_live
from headdiv.dashboard.drawing.upload_relay import register_upload_relay, upload_url
from headdiv.dashboard.drawing.view_jobs import register_job, register_view_job
from headdiv.dashboard.drawing.vouched_client import dashboard_client
from headdiv.dashboard.page import play, vendored
from headdiv.dashboard.page.client_config import clientside, config_state
from headdiv.dashboard.page.component_ids import SIM_STATE, view_sim, view_state
from headdiv.dashboard.page.frame import control_labels, page_layout
from headdiv.dashboard.page.language import speaking, spoken, spoken_language
from headdiv.dashboard.page.script_words import words_tag
from headdiv.dashboard.page.sidebar_simulation import headline, simulation_request
from headdiv.dashboard.page.url_state import HIDEABLE, UrlRegistry, global_params, scenario_params
from headdiv.dashboard.page.url_sync import register_sync
from headdiv.dashboard.standalone.download_routes import register_exports
from headdiv.dashboard.teaching import tour_panel
from headdiv.dashboard.teaching.tours import tour_params
from headdiv.dashboard.teaching.vote_page import register_vote_page
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views.view_protocol import SIM_RESULT_STORE, STATE_STORE, View
from headdiv.i18n import SOURCE
from headdiv.schemas.engine_settings import DoorSettings
from headdiv.schemas.results.simulation_results import SimulationResult

ASSETS = Path(__file__).resolve().parents[1] / "assets"
DASH_FIRST_REQUESTS = ("_dash-layout", "_dash-dependencies")
DCC_FIRST = {
    "async-graph.js": "Graph",
    "async-slider.js": "Slider",
    "async-dropdown.js": "Dropdown",
    "async-markdown.js": "Markdown",
}
"""The parts of dcc every view renders at once (charts, sliders, menus, its explanation), by chunk and
component: dcc's loader fetches a chunk only once React renders its component (the page preloads the
chunks, and assets/lazy_early.js starts their loading before the layout is rendered)."""


def build_registry(views: list[View]) -> UrlRegistry:
    """Every URL parameter of the page: global flags, the scenario's keys, then each view's own."""
    return UrlRegistry(
        [
            *global_params(v.id for v in views),
            *tour_params(),
            *scenario_params(),
            *(p for v in views for p in v.url_params),
        ]
    )


def _hiding_css() -> str:
    """`hide=X` puts class `hide-X` on the page root; these rules hide control X or page part X."""
    # as specific as the components' own rules (Dash's tab bar sets its display with !important too)
    rules = [
        f"body .root.hide-{k} .ctl-{k}, body .root.hide-{k} .part-{k} {{ display: none !important; }}" for k in HIDEABLE
    ]
    return "\n".join(rules)


INDEX = (
    """<!DOCTYPE html>
<html lang="en">
<head>
{%metas%}
<title>{%title%}</title>
{%favicon%}
{%css%}
<style>
"""
    + _hiding_css()
    + """
</style>
</head>
<body>
{%app_entry%}
<footer>{%config%}{%scripts%}{%renderer%}</footer>
</body>
</html>"""
)


class _Dash(Dash):
    """Dash, loading the regenerator runtime in place of its polyfill (`vendored.without_polyfill`)."""

    def interpolate_index(
        self,
        metas: str = "",
        title: str = "",
        css: str = "",
        config: str = "",
        scripts: str = "",
        app_entry: str = "",
        favicon: str = "",
        renderer: str = "",
    ) -> str:
        scripts = vendored.without_polyfill(self, scripts)
        page = str(super().interpolate_index(metas, title, css, config, scripts, app_entry, favicon, renderer))
        spoken = spoken_language()  # the request's: `?lang=`, else the browser's (SharedResponses keys by it)
        page = page.replace("</head>", words_tag() + "\n</head>", 1)  # the scripts' words, in that language
        return page.replace('<html lang="en">', f'<html lang="{spoken.code}" dir="{spoken.direction}">', 1)


class PageLayouts:
    """The page's layout, built once per language (the request's, `language.spoken`), then the same object for
    every visitor who reads that language: Dash calls it for each `_dash-layout` request."""

    def __init__(self, registry: UrlRegistry, views: list[View]) -> None:
        self.registry, self.views = registry, views
        self._built: dict[str, Component] = {}
        self._lock = threading.Lock()

    def built(self, code: str) -> Component:
        found = self._built.get(code)
        if found is None:
            with self._lock:
                found = self._built.get(code)
                if found is None:
                    with speaking(code):
                        found = page_layout(self.registry, self.views)
                    self._built[code] = found
        return found

    def __call__(self) -> Component:
        return self.built(spoken())


def _early_fetches(app: Dash) -> str:
    """Tags for the page's head: what the first chart needs is fetched alongside Dash's scripts, not after
    them. plotly.js (`vendored`); the layout and the callback list, which Dash's renderer asks for
    only once every script has run (the browser hands it these responses: same URL, same request mode)."""
    prefix = app.config.requests_pathname_prefix
    dash = "".join(f'<link rel="preload" as="fetch" crossorigin href="{prefix}{r}">' for r in DASH_FIRST_REQUESTS)
    dcc = "".join(
        f'<link rel="preload" as="script" href="{prefix}_dash-component-suites/dash/dcc/{c}">' for c in DCC_FIRST
    )
    return vendored.register(app) + "\n" + dash + dcc


def _register_frame(app: Dash, views: list[View]) -> None:
    """Page-level callbacks, in the browser (`assets/clientside.js`): header numbers, share link, the gates
    of the state."""
    app.clientside_callback(
        clientside("headline"),
        Output("hl-mse", "children"),
        Output("hl-hdi", "children"),
        Output("hl-heff", "children"),
        Output("hl-corr", "children"),
        Input(SIM_RESULT_STORE, "data"),
    )
    app.clientside_callback(clientside("shareLink"), Output("share-url", "value"), Input("url", "href"))

    # The gates, in two functions (a callback to run per change, not one per tab): each tab's state, only
    # while it is shown and only when it changed; the simulation's result, to the shown tab if it draws
    # it, only when it is a new one. (The simulation's own state comes from the sync callback.)
    states = [Output(view_state(v.id), "data") for v in views]
    app.clientside_callback(
        clientside("gateViews"),
        *states,
        Input(STATE_STORE, "data"),
        *[DashState(o.component_id, "data") for o in states],
        config_state(),
    )
    drawing = [v.id for v in views if v.shows_simulation]
    app.clientside_callback(
        clientside("gateSimulation"),
        *[Output(view_sim(t), "data") for t in drawing],
        Input(SIM_RESULT_STORE, "data"),
        *[Input(view_state(t), "data") for t in drawing],
        DashState(STATE_STORE, "data"),
        *[DashState(view_sim(t), "data") for t in drawing],
        config_state(),
    )

    # The PNG/SVG switch acts in the browser (assets/export_format.js): a chart's config changed after
    # its first draw does not reach Plotly's download button, so the format is set where Plotly reads it.


def create_dash_app(
    api_url: str,
    *,
    client: ApiClient | None = None,
    public_url: str | None = None,
    upload_limit: int | None = None,
) -> Dash:
    """The dashboard as a Dash app calling the API at `api_url` (the server root, e.g. http://127.0.0.1:8050).
    `public_url` (default: HEADDIV_PUBLIC_URL) is where students' phones reach it, for class poll links;
    `upload_limit` (default: HEADDIV_MAX_UPLOAD_BYTES) the largest model file the page sends, so a larger one
    is refused before a byte leaves the browser. Both defaults are read as the API reads them (`DoorSettings`)."""
    views = list(VIEWS)
    registry = build_registry(views)
    client = client or dashboard_client(api_url)
    app = _Dash(__name__, title="headdiv", assets_folder=str(ASSETS), update_title="", serve_locally=True)
    # the page names each asset with its modification time (`?m=`), so a browser may keep it: a later visit
    # runs the scripts at once instead of asking whether each changed first
    app.server.config["SEND_FILE_MAX_AGE_DEFAULT"] = 365 * 24 * 3600
    app.index_string = INDEX.replace("{%css%}", "{%css%}\n" + _early_fetches(app), 1)
    prefix = app.config.requests_pathname_prefix
    door = DoorSettings()
    limit = upload_limit or door.max_upload_bytes
    app.config.meta_tags.append(
        {"name": "headdiv-upload", "content": json.dumps({"url": upload_url(prefix), "limit": limit})}
    )
    app.config.meta_tags.append({"name": "headdiv-lazy", "content": json.dumps(list(DCC_FIRST.values()))})
    register_upload_relay(app.server, client, prefix)
    layouts = PageLayouts(registry, views)
    app.layout = layouts
    app.headdiv_registry = registry  # type: ignore[attr-defined]  # read by the callback boundary (harden)
    english = layouts.built(SOURCE)
    register_live(app, client, registry, views, english)
    register_exports(app, client, registry, views)
    registry.label(control_labels(english))
    register_sync(app, registry, views)
    _register_frame(app, views)
    tour_panel.register(app, client, registry, public_url or door.public_url)
    play.register(app)
    register_vote_page(app.server, client)
    register_job(
        app,
        client,
        "sim",
        simulation_request,
        bodies=["headline-body", *[f"{v.id}-body" for v in views if v.shows_simulation]],
        state_store=SIM_STATE,
        wait=2.0,
        reproduce=True,
        annotate=lambda result: headline(cast(SimulationResult, result)),
    )
    for view in views:
        for job in view.jobs:
            register_view_job(app, client, view.id, job)
        view.register_callbacks(app, client)
    return app
