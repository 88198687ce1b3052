"""The Dash app: page frame, the one URL-sync callback, and the views' callbacks.

`create_dash_app(api_url)` builds a self-contained Dash app that talks to the headdiv API at
`api_url` over HTTP. The FastAPI server mounts `app.server` at `/`; `headdiv dashboard` serves it
alone against a remote API. The URL is the source of truth: one callback keeps the query string and
every control in step (both directions, so links, presets and the back button all go through the
registry of `dashboard/state.py`), and views compute from the validated state it stores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dash import ALL, Dash, Input, Output, ctx, dcc, html, no_update
from dash.development.base_component import Component

from dashboard.api_client import ApiClient
from dashboard.components import graph_config, job_status
from dashboard.controls import PRIMARY, VIEW_OWNED, scenario_sidebar
from dashboard.figures.ensemble import headline
from dashboard.jobs import register_job
from dashboard.presets import PRESETS
from dashboard.state import HIDEABLE, Registry, State, global_params, scenario_params
from dashboard.views import VIEWS
from dashboard.views.base import SIM_RESULT_STORE, STATE_STORE, View
from dashboard.views.ensemble import simulation_request

ASSETS = Path(__file__).parent / "assets"
KEEP_ON_PRESET = ("tab", "hide", "lecture", "large", "img")
"""Page-level parameters a preset leaves as they are (a lecturer's hidden controls stay hidden)."""


def build_registry(views: list[View]) -> Registry:
    """Every URL parameter of the page: global flags, the scenario's keys, then each view's own."""
    return Registry(
        [*global_params(v.id for v in views), *scenario_params(), *(p for v in views for p in v.url_params)]
    )


def _hiding_css() -> str:
    """`hide=X` puts class `hide-X` on the page root; these rules hide control X or page part X."""
    rules = [f".hide-{k} .ctl-{k}, .hide-{k} .part-{k} {{ display: none !important; }}" for k in HIDEABLE]
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


def _stat(label: str, sid: str, hint: str) -> Component:
    return html.Div(
        [html.Div(label, className="stat-label"), html.Div("—", id=sid, className="stat-value")],
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
                            _stat("MSE ± s.e.", "hl-mse", "Monte Carlo MSE of the ensemble, with its standard error"),
                            _stat("HDI", "hl-hdi", "Head Diversity Index: 0 identical heads, 1 orthogonal heads"),
                            _stat("effective heads", "hl-heff", "H_eff = mean head variance / ensemble variance"),
                            _stat("mean correlation", "hl-corr", "Mean off-diagonal error correlation"),
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


def _sidebar(registry: Registry, state: State) -> Component:
    presets = html.Div(
        [html.H2("Presets")]
        + [
            html.Button(p.name, id={"type": "preset", "name": p.id}, title=p.story, className="preset", n_clicks=0)
            for p in PRESETS
        ],
        className="presets part-presets",
    )
    return html.Aside(
        [html.H2("Scenario"), scenario_sidebar(registry, state), presets],
        className="sidebar",
    )


def _layout(registry: Registry, views: list[View]) -> Component:
    state = State(registry.defaults())
    first = views[0].id
    return html.Div(
        [
            dcc.Location(id="url", refresh="callback-nav"),
            dcc.Store(id=STATE_STORE),
            _header(),
            html.Ul(id="notices", className="notices", role="alert"),
            html.Div(
                [
                    _sidebar(registry, state),
                    html.Main(
                        [
                            dcc.Tabs(
                                id="tabs",
                                value=first,
                                className="tabs part-tabs",
                                children=[
                                    dcc.Tab(
                                        label=v.label, value=v.id, className="tab", selected_className="tab-selected"
                                    )
                                    for v in views
                                ],
                            ),
                            html.P(id="view-description", className="view-description"),
                            *[
                                html.Div(
                                    html.Div(v.layout(state), id=f"{v.id}-body", className="view-body"),
                                    id=f"view-{v.id}",
                                    className="view",
                                    style={} if v.id == first else {"display": "none"},
                                )
                                for v in views
                            ],
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


def _register_sync(app: Dash, registry: Registry) -> None:
    """The URL <-> controls callback: one place where the page's state is read and written."""
    controlled = registry.controlled
    outputs = [Output("url", "search"), Output(STATE_STORE, "data"), Output("notices", "children")]
    outputs += [Output(p.component, p.prop) for p in controlled]  # type: ignore[arg-type]
    inputs = [Input("url", "search"), Input({"type": "preset", "name": ALL}, "n_clicks")]
    inputs += [Input(p.component, p.prop) for p in controlled]  # type: ignore[arg-type]
    by_component = {p.component: p for p in controlled}
    presets = {p.id: p for p in PRESETS}

    def notices(items: list[str]) -> list[Component]:
        return [html.Li(text) for text in items]

    def everything(search: Any, st: State) -> tuple[Any, ...]:
        return (search, st.to_data(), notices(st.notices), *[p.component_value(st[p.name]) for p in controlled])

    @app.callback(*outputs, *inputs)
    def _sync(search: str | None, _presets: list[Any], *raw: Any) -> tuple[Any, ...]:
        trigger = ctx.triggered_id
        unchanged = [no_update] * len(controlled)
        if trigger is None or trigger == "url":
            return everything(no_update, registry.parse(search))
        current = registry.parse(search)
        if isinstance(trigger, dict) and trigger.get("type") == "preset":
            preset = presets.get(str(trigger.get("name")))
            if preset is None or not ctx.triggered[0].get("value"):
                return (no_update, no_update, no_update, *unchanged)
            target = registry.parse(preset.query)
            if "tab=" not in preset.query:
                target.values["tab"] = current["tab"]
            for key in KEEP_ON_PRESET:
                if key != "tab":
                    target.values[key] = current[key]
            return everything(registry.serialize(target.values), target)
        changed = by_component.get(trigger)
        if changed is None:
            return (no_update, no_update, no_update, *unchanged)
        st = registry.from_controls({p.name: r for p, r in zip(controlled, raw, strict=True)}, current.values)
        reset_values = list(unchanged)
        for name in changed.resets:
            param = registry[name]
            st.values[name] = param.default
            reset_values[controlled.index(param)] = param.component_value(param.default)
        if st.notices:
            return (no_update, no_update, notices(st.notices), *reset_values)
        new = registry.serialize(st.values)
        return (new if new != (search or "") else no_update, st.to_data(), [], *reset_values)


def _register_frame(app: Dash, registry: Registry, views: list[View]) -> None:
    """Page-level callbacks: visible view, lecture classes, header numbers, share link, export format."""

    @app.callback(
        Output("root", "className"),
        Output("view-description", "children"),
        *[Output(f"view-{v.id}", "style") for v in views],
        Input(STATE_STORE, "data"),
    )
    def _frame(data: Any) -> tuple[Any, ...]:
        st = State.from_data(data or registry.defaults())
        tab = st.get("tab", views[0].id)
        classes = ["root"] + [f"hide-{k}" for k in sorted(st.hidden())] + (["large"] if st.get("large") else [])
        desc = next((v.description for v in views if v.id == tab), "")
        return (" ".join(classes), desc, *[{} if v.id == tab else {"display": "none"} for v in views])

    @app.callback(
        Output("hl-mse", "children"),
        Output("hl-hdi", "children"),
        Output("hl-heff", "children"),
        Output("hl-corr", "children"),
        Input(SIM_RESULT_STORE, "data"),
    )
    def _headline(data: Any) -> tuple[Any, ...]:
        result = (data or {}).get("result")
        if not result:
            return (no_update,) * 4
        h = headline(result)
        return h["mse"], h["hdi"], h["effective_heads"], h["mean_correlation"]

    badges = [p for p in registry if p.name in PRIMARY + VIEW_OWNED]

    @app.callback(*[Output(f"lbl-{p.name}", "children") for p in badges], Input(STATE_STORE, "data"))
    def _badges(data: Any) -> tuple[Any, ...]:
        st = State.from_data(data or registry.defaults())
        return tuple(p.dump(st.get(p.name, p.default)) for p in badges)

    @app.callback(Output("share-url", "value"), Input("url", "href"))
    def _share(href: str | None) -> str:
        return href or ""

    @app.callback(Output({"type": "chart", "name": ALL}, "config"), Input("img-format", "value"))
    def _formats(fmt: str | None) -> list[dict[str, Any]]:
        return [graph_config(o["id"]["name"], fmt or "png") for o in ctx.outputs_list]


def create_dash_app(api_url: str, *, client: ApiClient | None = None) -> Dash:
    """The dashboard as a Dash app calling the API at `api_url` (the server root, e.g. http://127.0.0.1:8050)."""
    views = list(VIEWS)
    registry = build_registry(views)
    client = client or ApiClient(api_url)
    app = Dash(
        __name__,
        title="headdiv",
        assets_folder=str(ASSETS),
        update_title="",
        serve_locally=True,
    )
    app.index_string = INDEX
    app.layout = _layout(registry, views)
    _register_sync(app, registry)
    _register_frame(app, registry, views)
    register_job(
        app,
        client,
        "sim",
        simulation_request,
        bodies=["headline-body", *[f"{v.id}-body" for v in views if v.id in ("ensemble", "weighting")]],
        wait=2.0,
    )
    for view in views:
        view.register_callbacks(app, client)
    app.server.config["HEADDIV_REGISTRY"] = registry
    return app
