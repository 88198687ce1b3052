"""The Dash app: page frame, the page-level callbacks, and the views' callbacks (the URL sync: `url_sync`).

`create_dash_app(api_url)` builds a self-contained Dash app that talks to the headdiv API at
`api_url` over HTTP. The FastAPI server mounts `app.server` at `/`; `headdiv dashboard` serves it
alone against a remote API. The URL is the source of truth: one callback keeps the query string and
every control in step (both directions, so links, presets and the back button all go through the
registry of `headdiv/dashboard/state.py`), and views compute from the validated state it stores.

A key press must cost few round trips (at most three: the sync, the simulation, its drawing), so
what needs no Python runs in the browser (clientside callbacks: the share link, the header's numbers,
the gates below), the page frame (lecture classes, value badges) is answered by the sync callback
itself, and each tab listens to a gated copy of the state (`ids.view_state`) that the browser updates
only while that tab is shown: hidden tabs cost nothing. Only the shown tab is mounted in the browser
(`dcc.Tabs` renders the selected child alone), so a key press re-renders one view, not nine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dash import Dash, Input, Output, dcc, html
from dash import State as DashState
from dash.development.base_component import Component

from headdiv.dashboard import play, tour_panel, vendored
from headdiv.dashboard.api_client import ApiClient
from headdiv.dashboard.client_config import CLIENT_CONFIG, client_config, clientside, config_state
from headdiv.dashboard.components import job_status
from headdiv.dashboard.controls import scenario_sidebar
from headdiv.dashboard.ids import SIM_STATE, view_sim, view_state
from headdiv.dashboard.jobs import register_job, register_view_job
from headdiv.dashboard.live import register_live
from headdiv.dashboard.presets import PRESETS
from headdiv.dashboard.simulation import headline, simulation_request
from headdiv.dashboard.standalone.routes import register_exports
from headdiv.dashboard.state import HIDEABLE, PageState, UrlRegistry, global_params, scenario_params
from headdiv.dashboard.tours import tour_params
from headdiv.dashboard.upload_relay import register_upload_relay, upload_url
from headdiv.dashboard.url_sync import register_sync
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views.base import SIM_RESULT_STORE, STATE_STORE, View
from headdiv.dashboard.vote_page import register_vote_page
from headdiv.schemas.results.simulation import SimulationResult
from headdiv.schemas.settings import DoorSettings

ASSETS = Path(__file__).parent / "assets"
DASH_FIRST_REQUESTS = ("_dash-layout", "_dash-dependencies")


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
        return str(super().interpolate_index(metas, title, css, config, scripts, app_entry, favicon, renderer))


def _early_fetches(app: Dash) -> str:
    """Tags for the page's head: what the first chart needs is fetched alongside Dash's scripts, not after
    them. plotly.js (`vendored`); the layout and the callback list, which Dash's renderer asks for
    only once every script has run (the browser hands it these responses: same URL, same request mode)."""
    prefix = app.config.requests_pathname_prefix
    dash = "".join(f'<link rel="preload" as="fetch" crossorigin href="{prefix}{r}">' for r in DASH_FIRST_REQUESTS)
    return vendored.register(app) + "\n" + dash


def _stat(label: str, short: str, sid: str, hint: str) -> Component:
    """A header number; narrow screens show its `short` label (the long one stays in the tooltip)."""
    return html.Div(
        [
            html.Div([html.Span(label, className="long"), html.Span(short, className="short")], className="stat-label"),
            html.Div("—", id=sid, className="stat-value"),
        ],
        className="stat",
        title=hint,
    )


def _header() -> Component:
    return html.Header(
        [
            html.Div(
                [
                    html.H1("headdiv"),
                    html.Div("multi-head attention as an ensemble of Nadaraya–Watson estimators", className="tagline"),
                ],
                className="brand",
            ),
            html.Div(
                [
                    html.Div(
                        [
                            _stat(
                                "MSE ± s.e.",
                                "MSE",
                                "hl-mse",
                                "Monte Carlo MSE of the ensemble, with its standard error",
                            ),
                            _stat(
                                "HDI", "HDI", "hl-hdi", "Head Diversity Index: 0 identical heads, 1 orthogonal heads"
                            ),
                            _stat(
                                "effective heads", "H_eff", "hl-heff", "H_eff = mean head variance / ensemble variance"
                            ),
                            _stat("mean correlation", "ρ̄", "hl-corr", "Mean off-diagonal error correlation"),
                        ],
                        id="headline-body",
                        className="view-body",
                    ),
                    job_status("sim"),
                ],
                className="headline",
            ),
            html.Div(
                [
                    html.Div(
                        [
                            dcc.Input(id="share-url", readOnly=True, className="share-url", value="", name="share-url"),
                            dcc.Clipboard(target_id="share-url", id="copy-link", className="clip", title="copy link"),
                        ],
                        className="share",
                    ),
                    dcc.Checklist(
                        id="large-fonts",
                        options=[{"label": " large fonts", "value": "on"}],
                        value=[],
                        inline=True,
                        className="tool",
                    ),
                    html.Div(
                        [
                            html.Span("charts export as ", className="tool-label"),
                            dcc.RadioItems(
                                id="img-format",
                                options=[{"label": " PNG", "value": "png"}, {"label": " SVG", "value": "svg"}],
                                value="png",
                                inline=True,
                            ),
                        ],
                        className="tool part-export",
                    ),
                ],
                className="header-tools",
            ),
        ],
        className="header",
    )


def _sidebar(registry: UrlRegistry, state: PageState) -> Component:
    presets = html.Div(
        [html.H2("Presets")]
        + [
            html.Button(p.name, id={"type": "preset", "name": p.id}, title=p.story, className="preset", n_clicks=0)
            for p in PRESETS
        ],
        className="presets part-presets",
    )
    # the scenario is a part of its own: a phone shows it right under the tabs, before the charts it drives
    scenario = html.Div([html.H2("Scenario"), scenario_sidebar(registry, state)], className="scenario-part")
    # the three tours before the ten presets: a lecturer finds them without scrolling the sidebar
    return html.Aside([scenario, tour_panel.tour_links(), presets], className="sidebar part-sidebar")


def _view(v: View, state: PageState) -> Component:
    """A view's page. It is a child of its tab, and `dcc.Tabs` mounts only the shown tab's child: the
    browser holds one view's components, not all of them (each key press notifies every mounted
    component), while every view stays in the layout, so callbacks may write into a hidden one."""
    return html.Div(
        [
            html.P(v.description, className="view-description"),
            html.Div(v.layout(state), id=f"{v.id}-body", className="view-body"),
        ],
        id=f"view-{v.id}",
        className="view",
    )


def _layout(registry: UrlRegistry, views: list[View]) -> Component:
    state = PageState(registry.defaults())
    first = views[0].id
    return html.Div(
        [
            dcc.Location(id="url", refresh="callback-nav"),
            dcc.Store(id=CLIENT_CONFIG, data=client_config(registry, views)),
            dcc.Store(id=STATE_STORE),
            dcc.Store(id=SIM_STATE),
            *[dcc.Store(id=view_state(v.id)) for v in views],
            *[dcc.Store(id=view_sim(v.id)) for v in views if v.shows_simulation],
            dcc.Store(id="url-fixed"),
            _header(),
            html.Ul(id="notices", className="notices", role="alert"),
            html.Div(
                [
                    _sidebar(registry, state),
                    html.Main(
                        [
                            tour_panel.layout(),
                            dcc.Tabs(
                                id="tabs",
                                value=first,
                                className="tabs part-tabs",
                                parent_className="tabs-parent",
                                content_className="tab-body",
                                children=[
                                    dcc.Tab(
                                        _view(v, state),
                                        label=v.label,
                                        value=v.id,
                                        className="tab",
                                        selected_className="tab-selected",
                                    )
                                    for v in views
                                ],
                            ),
                        ],
                        className="main",
                    ),
                ],
                className="page",
            ),
        ],
        id="root",
        className="root",
    )


def control_labels(root: Component) -> dict[str, str]:
    """{parameter name: label text} of every `components.control` in a layout (class `control ctl-<name>`,
    first child a label holding plain text): the words a reader sees beside each control."""
    out: dict[str, str] = {}
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        if not isinstance(node, Component):
            continue
        classes = str(getattr(node, "className", "") or "").split()
        children = getattr(node, "children", None)
        if "control" in classes and isinstance(children, list) and children:
            label = getattr(children[0], "children", None)
            names = [c[4:] for c in classes if c.startswith("ctl-")]
            if isinstance(label, str) and names:
                out.setdefault(names[0], label)
        if children is not None:
            stack.append(children)
    return out


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
    client = client or ApiClient(api_url)
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
    register_upload_relay(app.server, client, prefix)
    app.layout = _layout(registry, views)
    register_live(app, client, registry, views)
    register_exports(app, client, registry, views)
    registry.label(control_labels(app.layout))
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
        annotate=lambda raw: headline(SimulationResult.model_validate(raw)),
    )
    for view in views:
        for job in view.jobs:
            register_view_job(app, client, view.id, job)
        view.register_callbacks(app, client)
    return app
