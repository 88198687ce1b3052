"""The Dash app: page frame, the one URL-sync callback, and the views' callbacks.

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

from dash import ALL, Dash, Input, Output, ctx, dcc, html, no_update
from dash import State as DashState
from dash.development.base_component import Component

from headdiv.dashboard import play, tour_panel, vendored
from headdiv.dashboard.api_client import ApiClient
from headdiv.dashboard.components import job_status
from headdiv.dashboard.controls import PRIMARY, VIEW_OWNED, scenario_sidebar
from headdiv.dashboard.figures.theme import SE_DIGITS, SIGNIFICANT
from headdiv.dashboard.ids import SIM_STATE, view_sim, view_state
from headdiv.dashboard.jobs import register_job, register_view_job
from headdiv.dashboard.presets import PRESETS
from headdiv.dashboard.simulation import simulation_request
from headdiv.dashboard.state import HIDEABLE, State, UrlRegistry, global_params, scenario_params
from headdiv.dashboard.tours import expand, pin, tour_params
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views.base import SIM_RESULT_STORE, STATE_STORE, View
from headdiv.dashboard.vote_page import register_vote_page

ASSETS = Path(__file__).parent / "assets"
KEEP_ON_PRESET = ("tab", "hide", "lecture", "large", "img")
"""Page-level parameters a preset leaves as they are (a lecturer's hidden controls stay hidden)."""


SIDEBAR_PARTS = frozenset({*PRIMARY, "advanced", "presets"})
"""What the sidebar shows; when a lecturer hides all of it, the page drops its column."""
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


def _sidebar(registry: UrlRegistry, state: State) -> Component:
    presets = html.Div(
        [html.H2("Presets")]
        + [
            html.Button(p.name, id={"type": "preset", "name": p.id}, title=p.story, className="preset", n_clicks=0)
            for p in PRESETS
        ],
        className="presets part-presets",
    )
    return html.Aside(
        [html.H2("Scenario"), scenario_sidebar(registry, state), presets, tour_panel.tour_links()],
        className="sidebar part-sidebar",
    )


def _view(v: View, state: State) -> Component:
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
    state = State(registry.defaults())
    first = views[0].id
    return html.Div(
        [
            dcc.Location(id="url", refresh="callback-nav"),
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


def _register_sync(app: Dash, registry: UrlRegistry, views: list[View]) -> None:
    """The URL <-> controls callback: one place where the page's state is read and written. It also
    answers the page frame (lecture classes, value badges, the scenario controls the view ignores) in
    the same round trip."""
    controlled = registry.controlled
    outputs = [Output("url", "search"), Output(STATE_STORE, "data"), Output("notices", "children")]
    outputs += [Output(p.component, p.prop) for p in controlled]  # type: ignore[arg-type]
    badges = [p for p in registry if p.name in PRIMARY + VIEW_OWNED]
    frame_outputs = [Output("root", "className")]
    frame_outputs += [Output(f"lbl-{p.name}", "children") for p in badges]
    ignorable = sorted({key for v in views for key in v.ignorable}, key=list(registry.params).index)
    by_id = {v.id: v for v in views}
    frame_outputs += [Output(registry[k].component or "", "disabled") for k in ignorable]
    frame_outputs += [Output(f"why-{k}", "children") for k in ignorable]
    outputs += frame_outputs
    outputs += [Output("url-fixed", "data"), Output(SIM_STATE, "data")]
    inputs = [Input("url", "search"), Input({"type": "preset", "name": ALL}, "n_clicks")]
    inputs += [Input(p.component, p.prop) for p in controlled]  # type: ignore[arg-type]
    by_component = {p.component: p for p in controlled}
    presets = {p.id: p for p in PRESETS}

    def notices(items: list[str]) -> list[Component]:
        return [html.Li(text) for text in items]

    def frame(st: State) -> list[Any]:
        tab = st.get("tab", views[0].id)
        hidden = st.hidden()
        if hidden >= SIDEBAR_PARTS:  # nothing left in the sidebar: its column goes to the charts
            hidden.add("sidebar")
        classes = ["root"] + [f"hide-{k}" for k in sorted(hidden)] + (["large"] if st.get("large") else [])
        shown = by_id.get(str(tab))
        reasons = shown.ignored(st) if shown is not None else {}
        return [
            " ".join(classes),
            *[p.dump(st.get(p.name, p.default)) for p in badges],
            *[k in reasons for k in ignorable],
            *[reasons.get(k, "") for k in ignorable],
        ]

    def frame_change(st: State, before: State | None) -> tuple[Any, ...]:
        """The frame of `st`, with no_update where it equals the frame of `before` (nothing re-rendered)."""
        now = frame(st)
        if before is None:
            return tuple(now)
        return tuple(no_update if a == b else a for a, b in zip(now, frame(before), strict=True))

    untouched = (no_update,) * len(frame_outputs)

    def everything(search: Any, st: State, shown: tuple[Any, ...], before: State | None = None) -> tuple[Any, ...]:
        """Every output for state `st`; a control already showing its value is left alone (`shown`), so
        the callbacks listening to it do not run for nothing."""
        values = [p.component_value(st[p.name]) for p in controlled]
        values = [no_update if v == r else v for v, r in zip(values, shown, strict=True)]
        return (search, st.to_data(), notices(st.notices), *values, *frame_change(st, before))

    scenario_keys = [p.name for p in scenario_params()]

    def scenario_of(data: Any) -> dict[str, Any] | None:
        return {k: data.get(k) for k in scenario_keys} if isinstance(data, dict) else None

    @app.callback(*outputs, *inputs, DashState("url-fixed", "data"), DashState(STATE_STORE, "data"))
    def _sync(search: str | None, presets_: list[Any], *rest: Any) -> tuple[Any, ...]:
        """Every output, and the simulation's state when a scenario key changed: answered here rather
        than by a gate in the browser, so the simulation's request leaves one step sooner."""
        *raw, fixed, before = rest
        answer = _answer(search, presets_, *raw, fixed)
        scenario = scenario_of(answer[1]) if answer[1] is not no_update else None
        changed = scenario is not None and scenario != scenario_of(before)
        return (*answer, scenario if changed else no_update)

    def _answer(search: str | None, presets_: list[Any], *rest: Any) -> tuple[Any, ...]:
        """A link with bad values is rewritten to the values used, its notices kept on screen: the
        rewritten query is remembered (`url-fixed`) so the navigation it causes does not clear them."""
        *raw, fixed = rest
        trigger = ctx.triggered_id
        if trigger is None or trigger == "url":
            st = registry.parse(expand(search))
            if st.notices:
                clean = pin(registry, registry.serialize(st.values), st.values)
                if clean != (search or ""):
                    return (clean, *everything(no_update, st, tuple(raw))[1:], clean)
            elif fixed is not None and fixed == (search or ""):
                kept = list(everything(no_update, st, tuple(raw)))
                kept[2] = no_update  # the notices of the link just rewritten stay
                return (*kept, None)
        return (*_apply(trigger, search, presets_, *raw), None if trigger is None or trigger == "url" else no_update)

    def _apply(trigger: Any, search: str | None, _presets: list[Any], *raw: Any) -> tuple[Any, ...]:
        unchanged = [no_update] * len(controlled)
        if trigger is None or trigger == "url":
            return everything(no_update, registry.parse(expand(search)), raw)
        current = registry.parse(expand(search))
        if isinstance(trigger, dict) and trigger.get("type") == "preset":
            preset = presets.get(str(trigger.get("name")))
            if preset is None or not ctx.triggered[0].get("value"):
                return (no_update, no_update, no_update, *unchanged, *untouched)
            target = registry.parse(preset.query)
            if preset.tab is None:
                target.values["tab"] = current["tab"]
            for key in KEEP_ON_PRESET:
                if key != "tab":
                    target.values[key] = current[key]
            return everything(registry.serialize(target.values), target, raw, current)
        changed = by_component.get(trigger)
        if changed is None:
            return (no_update, no_update, no_update, *unchanged, *untouched)
        st = registry.from_controls({p.name: r for p, r in zip(controlled, raw, strict=True)}, current.values)
        reset_values = list(unchanged)
        for name in changed.resets:
            param = registry[name]
            st.values[name] = param.default
            reset_values[controlled.index(param)] = param.component_value(param.default)
        if st.notices:
            return (no_update, no_update, notices(st.notices), *reset_values, *untouched)
        new = pin(registry, registry.serialize(st.values), st.values)
        return (
            new if new != (search or "") else no_update,
            st.to_data(),
            [],
            *reset_values,
            *frame_change(st, current),
        )


_NO_UPDATE = "window.dash_clientside.no_update"

# `figures.theme.fmt` and `fmt_se` in the browser (the one rule for numbers), for the header's numbers.
_FMT_JS = (
    f"var SIGNIFICANT = {SIGNIFICANT}, SE_DIGITS = {SE_DIGITS};"
    + """
function pyExp(s, alt) {
    var m = s.split("e"), mant = m[0], e = parseInt(m[1], 10);
    if (!alt && mant.indexOf(".") >= 0) { mant = mant.replace(/0+$/, "").replace(/\\.$/, ""); }
    return mant + "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
}
function pyG(x, p, alt) {
    var r = Number(x.toPrecision(p)), e = Math.floor(Math.log10(Math.abs(r)));
    if (e < -4 || e >= p) { return pyExp(r.toExponential(p - 1), alt); }
    var s = r.toFixed(Math.max(p - 1 - e, 0));
    return (!alt && s.indexOf(".") >= 0) ? s.replace(/0+$/, "").replace(/\\.$/, "") : s;
}
function ok(x) { return typeof x === "number" && isFinite(x); }
function decimals(se) { return SE_DIGITS - 1 - Math.floor(Math.log10(se)); }
function fmt(x, se) {
    if (!ok(x)) { return "\u2014"; }
    if (ok(se) && se > 0 && x !== 0) {
        var d = decimals(se);
        if (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5 && d >= 0 && d <= 8) { return x.toFixed(d); }
        var e = Math.floor(Math.log10(Math.abs(x)));
        return pyExp(x.toExponential(Math.max(e + d, 0)), true);
    }
    if (x === 0) { return "0"; }
    var short = pyG(x, SIGNIFICANT, false);
    if (Math.abs(parseFloat(short) - x) <= 1e-9 * Math.abs(x)) { return short; }
    var out = pyG(x, SIGNIFICANT, true);
    return out.endsWith(".") ? out.slice(0, -1) : out;
}
function fmtSe(x, se) {
    if (!ok(se) || se <= 0 || !ok(x)) { return fmt(x); }
    var d = decimals(se);
    var err = (d >= 0 && d <= 8) ? se.toFixed(d) : pyExp(se.toExponential(SE_DIGITS - 1), true);
    return fmt(x, se) + " \u00b1 " + err;
}
"""
)


def _register_frame(app: Dash, views: list[View]) -> None:
    """Page-level callbacks, in the browser: header numbers, share link, the gates of the state."""
    app.clientside_callback(
        "function (data) {"
        + _FMT_JS
        + "var r = data && data.result; if (!r) { return Array(4).fill("
        + _NO_UPDATE
        + "); }"
        " return [fmtSe(r.mse, r.mse_se), fmt(r.hdi), fmt(r.effective_heads), fmt(r.mean_correlation)]; }",
        Output("hl-mse", "children"),
        Output("hl-hdi", "children"),
        Output("hl-heff", "children"),
        Output("hl-corr", "children"),
        Input(SIM_RESULT_STORE, "data"),
    )
    app.clientside_callback(
        'function (href) { return href || ""; }', Output("share-url", "value"), Input("url", "href")
    )

    # The gates, in two functions (a callback to run per change, not one per tab): each tab's state, only
    # while it is shown and only when it changed; the simulation's result, to the shown tab if it draws
    # it, only when it is a new one. (The simulation's own state comes from the sync callback.)
    tabs = [v.id for v in views]
    states = [Output(view_state(t), "data") for t in tabs]
    app.clientside_callback(
        f"function (data, ...last) {{ var tabs = {json.dumps(tabs)},"
        f" out = last.map(function () {{ return {_NO_UPDATE}; }});"
        " if (!data) { return out; }"
        " var i = tabs.indexOf(data.tab);"
        " if (i >= 0 && JSON.stringify(data) !== JSON.stringify(last[i])) { out[i] = data; }"
        " return out; }",
        *states,
        Input(STATE_STORE, "data"),
        *[DashState(o.component_id, "data") for o in states],
    )
    drawing = [v.id for v in views if v.shows_simulation]
    app.clientside_callback(
        f"function (result, ...rest) {{ var drawing = {json.dumps(drawing)}, n = drawing.length;"
        f" var state = rest[n], last = rest.slice(n + 1), out = last.map(function () {{ return {_NO_UPDATE}; }});"
        " var j = state ? drawing.indexOf(state.tab) : -1;"
        " if (j >= 0 && result && !(last[j] && last[j].key === result.key)) { out[j] = result; }"
        " return out; }",
        *[Output(view_sim(t), "data") for t in drawing],
        Input(SIM_RESULT_STORE, "data"),
        *[Input(view_state(t), "data") for t in drawing],
        DashState(STATE_STORE, "data"),
        *[DashState(view_sim(t), "data") for t in drawing],
    )

    # The PNG/SVG switch acts in the browser (assets/export_format.js): a chart's config changed after
    # its first draw does not reach Plotly's download button, so the format is set where Plotly reads it.


def create_dash_app(api_url: str, *, client: ApiClient | None = None) -> Dash:
    """The dashboard as a Dash app calling the API at `api_url` (the server root, e.g. http://127.0.0.1:8050)."""
    views = list(VIEWS)
    registry = build_registry(views)
    client = client or ApiClient(api_url)
    app = _Dash(
        __name__,
        title="headdiv",
        assets_folder=str(ASSETS),
        update_title="",
        serve_locally=True,
    )
    # the page names each asset with its modification time (`?m=`), so a browser may keep it: a later visit
    # runs the scripts at once instead of asking whether each changed first
    app.server.config["SEND_FILE_MAX_AGE_DEFAULT"] = 365 * 24 * 3600
    app.index_string = INDEX.replace("{%css%}", "{%css%}\n" + _early_fetches(app), 1)
    app.layout = _layout(registry, views)
    registry.label(control_labels(app.layout))
    _register_sync(app, registry, views)
    _register_frame(app, views)
    tour_panel.register(app, client, registry)
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
    )
    for view in views:
        for job in view.jobs:
            register_view_job(app, client, view.id, job)
        view.register_callbacks(app, client)
    return app
