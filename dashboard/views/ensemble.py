"""Ensemble view: one scenario's bias-variance-covariance decomposition, heads, geometry and fits."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, dcc, html, no_update
from dash.development.base_component import Component

from dashboard.api_client import ApiClient
from dashboard.components import chart_id, explanation, export_bar, graph
from dashboard.figures import ensemble as figs
from dashboard.jobs import register_exports
from dashboard.state import Param, State
from dashboard.views.base import SIM_RESULT_STORE, View


def simulation_request(state: State) -> tuple[str, dict[str, Any]]:
    """The request behind this view (and the page header): the scenario itself."""
    return "/simulations", state.scenario()


def layout(state: State) -> Component:
    return html.Div(
        [
            html.Div(
                [
                    html.Div([graph("ens-bars"), graph("ens-slice")], className="chart-row"),
                    html.Div([graph("ens-heads")], className="chart-row one"),
                    html.Div(
                        [
                            html.Div(
                                [
                                    dcc.RadioItems(
                                        id="ens-matrix",
                                        options=[
                                            {"label": " correlation", "value": "correlation"},
                                            {"label": " covariance", "value": "covariance"},
                                        ],
                                        value=state.get("matrix", "correlation"),
                                        inline=True,
                                        className="radio-inline",
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
                className="charts",
            ),
            explanation("ensemble"),
        ],
        className="view-grid",
    )


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_exports(app, client, "sim", simulation_request, "simulation")

    @app.callback(
        Output(chart_id("ens-bars"), "figure"),
        Output(chart_id("ens-slice"), "figure"),
        Output(chart_id("ens-heads"), "figure"),
        Output(chart_id("ens-overlap"), "figure"),
        Output("ens-notes", "children"),
        Input(SIM_RESULT_STORE, "data"),
    )
    def _figures(data: Any) -> Any:
        result = (data or {}).get("result")
        if not result:
            return (no_update,) * 5
        notes = [html.Li(n) for n in result.get("notes") or []]
        return (
            figs.decomposition_bars(result),
            figs.slice_figure(result),
            figs.per_head_mse(result),
            figs.overlap_heatmap(result),
            notes,
        )

    @app.callback(Output(chart_id("ens-corr"), "figure"), Input(SIM_RESULT_STORE, "data"), Input("ens-matrix", "value"))
    def _matrix(data: Any, which: str) -> Any:
        result = (data or {}).get("result")
        if not result:
            return no_update
        return figs.correlation_heatmap(result, which or "correlation")


VIEW = View(
    id="ensemble",
    label="Ensemble",
    layout=layout,
    register_callbacks=register_callbacks,
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
    description="One scenario: how bias², variance and covariance add up, head by head.",
)
