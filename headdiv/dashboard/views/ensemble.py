"""Ensemble view: one scenario's bias-variance-covariance decomposition, heads, geometry and fits."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, html, no_update
from dash.development.base_component import Component

from headdiv.dashboard.api_client import ApiClient
from headdiv.dashboard.components import chart_id, export_bar, graph, radio, view_page
from headdiv.dashboard.figures import ensemble as figs
from headdiv.dashboard.ids import view_sim
from headdiv.dashboard.jobs import register_exports
from headdiv.dashboard.live import LivePart, drawn_figures
from headdiv.dashboard.simulation import simulation_request
from headdiv.dashboard.state import Param, State
from headdiv.dashboard.views.base import View
from headdiv.workers.schemas.results.simulation import SimulationResult

VIEW_ID = "ensemble"


def layout(state: State) -> Component:
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
                                {"correlation": "correlation", "covariance": "covariance"},
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


def _figures(result: SimulationResult, which: str) -> tuple[Any, ...]:
    notes = [html.Li(n) for n in result.notes]
    return (
        figs.decomposition_bars(result),
        figs.slice_figure(result),
        figs.per_head_mse(result),
        figs.overlap_heatmap(result),
        figs.correlation_heatmap(result, which),
        notes,
    )


CHARTS = ("ens-bars", "ens-slice", "ens-heads", "ens-overlap", "ens-corr")
"""The view's charts in the order `_figures` draws them."""


def _live(result: SimulationResult, state: State) -> dict[str, Any]:
    return dict(zip(CHARTS, _figures(result, state.get("matrix") or "correlation")[: len(CHARTS)], strict=True))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_exports(app, "sim", "simulation")

    # one drawing callback for every chart of the view: one round trip per new result; the figures are the
    # live path's (drawn once per state for everyone, `headdiv.dashboard.live`)
    @app.callback(
        [*(Output(chart_id(name), "figure") for name in CHARTS), Output("ens-notes", "children")],
        Input(view_sim(VIEW_ID), "data"),
        Input("ens-matrix", "value"),
        prevent_initial_call=True,
    )
    def _draw(data: Any, which: str | None) -> tuple[Any, ...]:
        drawn = drawn_figures(VIEW, data, State({"matrix": which or "correlation"}))
        if drawn is None:
            return (no_update,) * (len(CHARTS) + 1)
        charts, result = drawn
        return (*(charts[name] for name in CHARTS), [html.Li(n) for n in result.notes])


VIEW = View(
    id=VIEW_ID,
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
    shows_simulation=True,
    live=(LivePart(simulation_request, _live, variant=("matrix",)),),
)
