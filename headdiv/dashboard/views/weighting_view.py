"""Weighting view: uniform, geometric, Fibonacci, optimal and MAW-gated heads side by side."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, html
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.export import weighting_csv, weighting_result
from headdiv.dashboard.drawing.live import LivePart
from headdiv.dashboard.drawing.view_jobs import register_exports
from headdiv.dashboard.page.client_config import clientside
from headdiv.dashboard.page.component_ids import view_sim
from headdiv.dashboard.page.components import chart_id, download_bar, graph, view_page
from headdiv.dashboard.page.controls import VIEW_OWNED, view_owned_control
from headdiv.dashboard.page.sidebar_simulation import simulation_request
from headdiv.dashboard.page.url_state import PageState, UrlRegistry, scenario_params
from headdiv.dashboard.views.view_protocol import View
from headdiv.figures import weighting_charts as figs
from headdiv.i18n import N_
from headdiv.schemas.results.simulation_results import SimulationResult

VIEW_ID = "weighting"

_SCENARIO = UrlRegistry(scenario_params())


def layout(state: PageState) -> Component:
    return view_page(
        [
            html.Div([view_owned_control(_SCENARIO, state, name) for name in VIEW_OWNED], className="view-controls"),
            html.Div([graph("wt-schemes"), graph("wt-rho")], className="chart-row"),
            html.Div([graph("wt-alpha")], className="chart-row one"),
            download_bar("wt"),
        ],
        "weighting",
    )


CHARTS = ("wt-schemes", "wt-rho", "wt-alpha")
"""The view's charts (`graph(name)` in the layout)."""


def _live(result: SimulationResult, _state: PageState) -> dict[str, Any]:
    """Every chart of the view for a result."""
    rho = getattr(result.scenario, "rho", None)  # a weighting scheme's parameter: a field of the built scenario
    figures = (figs.scheme_bars(result), figs.rho_curve(result, rho), figs.alpha_bars(result))
    return dict(zip(CHARTS, figures, strict=True))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    # drawn in the browser: the live path's figures for the state, drawn once by the server for everyone
    # (`headdiv.dashboard.drawing.live`, clientside.js `liveDraw`)
    app.clientside_callback(
        clientside("liveDraw"),
        [Output(chart_id(name), "figure") for name in CHARTS],
        Input(view_sim(VIEW_ID), "data"),
        prevent_initial_call=True,
    )

    # The view draws the page's simulation (no job of its own): its downloads are what it shows of it.
    register_exports(app, "wt", "weighting", view_sim(VIEW_ID), weighting_result, weighting_csv)


VIEW = View(
    id=VIEW_ID,
    label=N_("Weighting"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    description=N_("How to combine heads: fixed weights from the error moments, or MAW's per-query gating."),
    shows_simulation=True,
    live=(LivePart(simulation_request, _live),),
)
