"""Architecture view: every split H x d_k of a budget D, Monte Carlo against the paper's theory."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, html, no_update
from dash.development.base_component import Component

from dashboard.api_client import ApiClient, ApiError
from dashboard.components import chart_id, control, explanation, export_bar, graph, job_status, number_input
from dashboard.figures import sweeps as figs
from dashboard.figures.theme import empty_figure
from dashboard.jobs import register_exports, register_job
from dashboard.state import Param
from dashboard.state import State as PageState
from dashboard.views.base import STATE_STORE, View
from workers.schemas.requests import MAX_BUDGET


def architecture_request(state: PageState) -> tuple[str, dict[str, Any]]:
    base = {k: v for k, v in state.scenario().items() if k not in ("H", "d_k", "tilts")}
    if base.get("geometry") == "tilted":
        base["geometry"] = "equiangular"
    return "/architectures", {"base": base, "budget": state.get("budget", 32)}


def layout(state: PageState) -> Component:
    return html.Div(
        [
            html.Div(
                [
                    html.Div(
                        control(
                            "budget D = H × d_k",
                            number_input("arch-budget", state.get("budget", 32), low=1, high=MAX_BUDGET),
                            "budget",
                            "Total head dimension shared by every split.",
                        ),
                        className="view-controls",
                    ),
                    job_status("arch"),
                    html.Div([graph("arch-mse", "open this tab to compare the splits")], className="chart-row one"),
                    html.Div(
                        [graph("arch-theory", "the closed-form curves follow the Monte Carlo")],
                        className="chart-row one",
                    ),
                    html.Div(id="arch-theory-error", className="job-status error"),
                    export_bar("arch"),
                ],
                className="charts",
            ),
            explanation("architecture"),
        ],
        className="view-grid",
    )


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_job(
        app,
        client,
        "arch",
        architecture_request,
        bodies=["architecture-body"],
        view_id="architecture",
        wait=1.0,
        cancellable=True,
    )
    register_exports(app, client, "arch", architecture_request, "architecture")

    @app.callback(
        Output(chart_id("arch-mse"), "figure"),
        Output(chart_id("arch-theory"), "figure"),
        Output("arch-theory-error", "children"),
        Input("arch-result", "data"),
        State(STATE_STORE, "data"),
    )
    def _figures(data: Any, state: Any) -> Any:
        result = (data or {}).get("result")
        if not result:
            return no_update, no_update, no_update
        theory = result.get("theory") or {}
        params = {
            "budget": result.get("budget"),
            "c1": theory.get("c1", 1.0),
            "c2": theory.get("c2", 1.0),
            "n": (state or {}).get("n", 256),
        }
        try:
            curves = figs.theory_curves(client.get("/theory/architecture", params=params))
            error = ""
        except ApiError as exc:
            curves, error = empty_figure("theory curves unavailable"), f"theory curves: {exc.message}"
        return figs.architecture_mse(result), curves, error


VIEW = View(
    id="architecture",
    label="Architecture",
    layout=layout,
    register_callbacks=register_callbacks,
    url_params=[
        Param(
            "budget", "int", 32, component="arch-budget", lo=1, hi=MAX_BUDGET, help="Total head dimension D = H x d_k."
        )
    ],
    description="Many small heads or a few big ones? Every split of a fixed budget, measured and predicted.",
)
