"""Ensemble view: one scenario's bias-variance-covariance decomposition, heads, geometry and fits."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, html
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.live import LivePart
from headdiv.dashboard.drawing.view_jobs import register_exports
from headdiv.dashboard.page.client_config import clientside
from headdiv.dashboard.page.component_ids import view_sim
from headdiv.dashboard.page.components import chart_id, export_bar, graph, radio, view_page
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.sidebar_simulation import simulation_request
from headdiv.dashboard.page.url_state import PageState, Param
from headdiv.dashboard.views.view_protocol import View
from headdiv.figures import ensemble_charts as figs
from headdiv.i18n import N_
from headdiv.schemas.results.simulation_results import SimulationResult

VIEW_ID = "ensemble"


def layout(state: PageState) -> Component:
    return view_page(
        [
            html.Div([graph("ens-bars"), graph("ens-slice")], className="chart-row"),
            html.Div([graph("ens-heads")], className="chart-row one"),
            html.Div(
                [
                    html.Div(
                        [
                            radio(
                                "ens-matrix",
                                {"correlation": _("correlation"), "covariance": _("covariance")},
                                state.get("matrix", "correlation"),
                            ),
                            graph("ens-corr"),
                        ]
                    ),
                    graph("ens-overlap"),
                ],
                className="chart-row",
            ),
            html.Ul(id="ens-notes", className="notes"),
            export_bar("sim"),
        ],
        "ensemble",
    )


CHARTS = ("ens-bars", "ens-slice", "ens-heads", "ens-overlap", "ens-corr")
"""The view's charts (`graph(name)` in the layout)."""


def _live(result: SimulationResult, state: PageState) -> dict[str, Any]:
    """Every chart of the view for a result; the matrix shown is the page's `matrix` choice."""
    which = state.get("matrix") or "correlation"
    figures = (
        figs.decomposition_bars(result),
        figs.slice_figure(result),
        figs.per_head_mse(result),
        figs.overlap_heatmap(result),
        figs.correlation_heatmap(result, which),
    )
    return dict(zip(CHARTS, figures, strict=True))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_exports(app, "sim", "simulation")

    # one drawing callback for every chart of the view, in the browser: the live path's figures for the
    # state, drawn once by the server for everyone (`headdiv.dashboard.drawing.live`, clientside.js `liveDraw`)
    app.clientside_callback(
        clientside("liveDraw"),
        [*(Output(chart_id(name), "figure") for name in CHARTS), Output("ens-notes", "children")],
        Input(view_sim(VIEW_ID), "data"),
        Input("ens-matrix", "value"),
        prevent_initial_call=True,
    )


VIEW = View(
    id=VIEW_ID,
    label=N_("Ensemble"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=[
        Param(
            "matrix",
            "choice",
            "correlation",
            component="ens-matrix",
            choices=("correlation", "covariance"),
            help="Heatmap of the heads' error correlation or covariance.",
        )
    ],
    description=N_("One scenario: how bias², variance and covariance add up, head by head."),
    shows_simulation=True,
    live=(LivePart(simulation_request, _live, variant=("matrix",)),),
)
