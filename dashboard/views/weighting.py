"""Weighting view: uniform, geometric, Fibonacci, optimal and MAW-gated heads side by side."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, html, no_update
from dash.development.base_component import Component

from dashboard.api_client import ApiClient
from dashboard.components import chart_id, explanation, graph
from dashboard.controls import view_owned_control
from dashboard.figures import weighting as figs
from dashboard.state import Registry, State, scenario_params
from dashboard.views.base import SIM_RESULT_STORE, STATE_STORE, View

_SCENARIO = Registry(scenario_params())


def layout(state: State) -> Component:
    return html.Div(
        [
            html.Div(
                [
                    html.Div(
                        [
                            view_owned_control(_SCENARIO, state, "rho", slider=(0.05, 1.0, 0.05)),
                            view_owned_control(_SCENARIO, state, "beta", slider=(0.0, 5.0, 0.1)),
                        ],
                        className="view-controls",
                    ),
                    html.Div([graph("wt-schemes"), graph("wt-rho")], className="chart-row"),
                    html.Div([graph("wt-alpha")], className="chart-row one"),
                    html.P(
                        "The result of this view is the simulation's: download it from the Ensemble view.",
                        className="hint part-export",
                    ),
                ],
                className="charts",
            ),
            explanation("weighting"),
        ],
        className="view-grid",
    )


def register_callbacks(app: Dash, client: ApiClient) -> None:
    @app.callback(
        Output(chart_id("wt-schemes"), "figure"),
        Output(chart_id("wt-rho"), "figure"),
        Output(chart_id("wt-alpha"), "figure"),
        Input(SIM_RESULT_STORE, "data"),
        Input(STATE_STORE, "data"),
    )
    def _figures(data: Any, state: Any) -> Any:
        result = (data or {}).get("result")
        if not result:
            return (no_update,) * 3
        rho = (result.get("scenario") or {}).get("rho", (state or {}).get("rho"))
        return figs.scheme_bars(result), figs.rho_curve(result, rho), figs.alpha_bars(result)


VIEW = View(
    id="weighting",
    label="Weighting",
    layout=layout,
    register_callbacks=register_callbacks,
    description="How to combine heads: fixed weights from the error moments, or MAW's per-query gating.",
)
