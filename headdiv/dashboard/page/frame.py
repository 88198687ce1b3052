"""The page frame: the header with its live numbers, the scenario sidebar, and the tabs holding the views
(each view's own layout comes from its module). Built once per page state; `app` wires its callbacks."""

from __future__ import annotations

from typing import Any, cast

from dash import dcc, html
from dash.development.base_component import Component

from headdiv.dashboard.page.client_config import CLIENT_CONFIG, client_config
from headdiv.dashboard.page.component_ids import SIM_STATE, view_sim, view_state
from headdiv.dashboard.page.components import job_status
from headdiv.dashboard.page.controls import scenario_sidebar
from headdiv.dashboard.page.language import _, spoken
from headdiv.dashboard.page.url_state import PageState, UrlRegistry
from headdiv.dashboard.teaching import tour_layout
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.views.view_protocol import STATE_STORE, View
from headdiv.i18n import LANGUAGES


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


def _language_picker(where: str) -> Component:
    """The page's language, chosen among every language in its own name and script (the pseudo-languages only
    on a page in one of them); a choice reloads the page in it (`?lang=`, assets/language_picker.js). One in
    the header, and one at the page's foot for a phone, where the header has no room left (style.css)."""
    now = spoken()
    shown = [code for code, lang in LANGUAGES.items() if not lang.pseudo or code == now]
    pid = "lang-picker" if where == "header" else f"lang-picker-{where}"
    return html.Div(
        [
            html.Label(_("Language"), htmlFor=pid, className="tool-label"),
            html.Select(
                [
                    html.Option(
                        LANGUAGES[code].name,
                        value=code,
                        lang=code,
                        dir=LANGUAGES[code].direction,
                        selected="selected" if code == now else None,
                    )
                    for code in shown
                ],
                id=pid,
                name="lang",
                className="lang-picker",
                title=_("Language"),
                **cast(Any, {"aria-label": _("Language")}),
            ),
        ],
        className=f"tool language language-{where}",
    )


def _header() -> Component:
    return html.Header(
        [
            html.Div(
                [
                    html.H1("headdiv"),
                    html.Div(
                        _("multi-head attention as an ensemble of Nadaraya–Watson estimators"), className="tagline"
                    ),
                ],
                className="brand",
            ),
            html.Div(
                [
                    html.Div(
                        [
                            _stat(
                                _("MSE ± s.e."),
                                "MSE",
                                "hl-mse",
                                _("Monte Carlo MSE of the ensemble, with its standard error"),
                            ),
                            _stat(
                                "HDI", "HDI", "hl-hdi", _("Head Diversity Index: 0 identical heads, 1 orthogonal heads")
                            ),
                            _stat(
                                _("effective heads"),
                                "H_eff",
                                "hl-heff",
                                _("H_eff = mean head variance / ensemble variance"),
                            ),
                            _stat(_("mean correlation"), "ρ̄", "hl-corr", _("Mean off-diagonal error correlation")),
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
                            dcc.Clipboard(
                                target_id="share-url", id="copy-link", className="clip", title=_("copy link")
                            ),
                        ],
                        className="share",
                    ),
                    dcc.Checklist(
                        id="large-fonts",
                        options=[{"label": " " + _("large fonts"), "value": "on"}],
                        value=[],
                        inline=True,
                        className="tool",
                    ),
                    html.Div(
                        [
                            html.Span(_("charts export as") + " ", className="tool-label"),
                            dcc.RadioItems(
                                id="img-format",
                                options=[{"label": " PNG", "value": "png"}, {"label": " SVG", "value": "svg"}],
                                value="png",
                                inline=True,
                            ),
                        ],
                        className="tool part-export",
                    ),
                    _language_picker("header"),
                ],
                className="header-tools",
            ),
        ],
        className="header",
    )


def _sidebar(registry: UrlRegistry, state: PageState) -> Component:
    presets = html.Div(
        [html.H2(_("Presets"))]
        + [
            html.Button(
                _(p.name), id={"type": "preset", "name": p.id}, title=_(p.story), className="preset", n_clicks=0
            )
            for p in PRESETS
        ],
        className="presets part-presets",
    )
    # the scenario is a part of its own: a phone shows it right under the tabs, before the charts it drives
    scenario = html.Div([html.H2(_("Scenario")), scenario_sidebar(registry, state)], className="scenario-part")
    # the three tours before the ten presets: a lecturer finds them without scrolling the sidebar
    return html.Aside([scenario, tour_layout.tour_links(), presets], className="sidebar part-sidebar")


def _view(v: View, state: PageState) -> Component:
    """A view's page. It is a child of its tab, and `dcc.Tabs` mounts only the shown tab's child: the
    browser holds one view's components, not all of them (each key press notifies every mounted
    component), while every view stays in the layout, so callbacks may write into a hidden one."""
    return html.Div(
        [
            html.P(_(v.description), className="view-description"),
            html.Div(v.layout(state), id=f"{v.id}-body", className="view-body"),
        ],
        id=f"view-{v.id}",
        className="view",
    )


def page_layout(registry: UrlRegistry, views: list[View]) -> Component:
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
            # the first stop of the Tab key: past the header's tools and the sidebar's sliders to the charts
            html.A(_("Skip to the charts"), href="#main", className="skip-link"),
            _header(),
            html.Ul(id="notices", className="notices", role="alert"),
            html.Div(
                [
                    _sidebar(registry, state),
                    html.Main(
                        [
                            tour_layout.layout(),
                            dcc.Tabs(
                                id="tabs",
                                value=first,
                                className="tabs part-tabs",
                                parent_className="tabs-parent",
                                content_className="tab-body",
                                children=[
                                    dcc.Tab(
                                        _view(v, state),
                                        label=_(v.label),
                                        value=v.id,
                                        className="tab",
                                        selected_className="tab-selected",
                                    )
                                    for v in views
                                ],
                            ),
                        ],
                        className="main",
                        id="main",
                        tabIndex="-1",
                    ),
                ],
                className="page",
            ),
            html.Footer(_language_picker("foot"), className="page-foot"),
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
