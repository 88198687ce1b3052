"""Diversity view: MSE against HDI over a sweep of theta, with the paper's bound (4.4) fitted over it."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, dcc, html, no_update
from dash.development.base_component import Component

from dashboard.api_client import ApiClient
from dashboard.components import chart_id, control, explanation, export_bar, graph, job_status
from dashboard.figures import sweeps as figs
from dashboard.jobs import register_exports, register_job
from dashboard.state import Param, State
from dashboard.views.base import View


def thetas(count: int) -> list[float]:
    """`count` angles evenly from 0 to 90 degrees (rounded to 0.01 so the request, and its cache key, is stable)."""
    count = max(2, int(count))
    return [round(90.0 * i / (count - 1), 2) for i in range(count)]


def sweep_request(state: State) -> tuple[str, dict[str, Any]]:
    base = {k: v for k, v in state.scenario().items() if k not in ("theta", "tilts")}
    if base.get("geometry") == "tilted":
        base["geometry"] = "equiangular"
    return "/sweeps/diversity", {"base": base, "thetas": thetas(state.get("dn", 10))}


def layout(state: State) -> Component:
    return html.Div(
        [
            html.Div(
                [
                    html.Div(
                        control(
                            "angles in the sweep",
                            dcc.Slider(
                                3,
                                31,
                                1,
                                value=state.get("dn", 10),
                                id="div-n",
                                marks={3: "3", 10: "10", 19: "19", 31: "31"},
                            ),
                            "dn",
                            "How many angles from 0° to 90°.",
                        ),
                        className="view-controls",
                    ),
                    job_status("div"),
                    html.Div(
                        [graph("div-mse", "open this tab to run the sweep"), graph("div-corr")], className="chart-row"
                    ),
                    html.Div(id="div-verdict", className="verdict", role="status"),
                    export_bar("div"),
                ],
                className="charts",
            ),
            explanation("diversity"),
        ],
        className="view-grid",
    )


def verdict(result: dict[str, Any]) -> str:
    """One sentence on whether the fitted bound holds over the sweep, and with which constants."""
    bound = result.get("bound") or {}
    c0, k = bound.get("c0"), bound.get("K")
    consts = (
        f" (fitted c₀ = {c0:.3g}, K = {k:.3g})" if isinstance(c0, (int, float)) and isinstance(k, (int, float)) else ""
    )
    if result.get("holds"):
        return f"The fitted bound holds at every angle{consts}: more diversity, lower MSE, as Theorem 4.2 says."
    return (
        f"The bound is violated somewhere in the sweep{consts}: here diversity costs bias that the theorem "
        "assumes away (MODEL.md §8.2)."
    )


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_job(
        app, client, "div", sweep_request, bodies=["diversity-body"], view_id="diversity", wait=1.0, cancellable=True
    )
    register_exports(app, client, "div", sweep_request, "diversity-sweep")

    @app.callback(
        Output(chart_id("div-mse"), "figure"),
        Output(chart_id("div-corr"), "figure"),
        Output("div-verdict", "children"),
        Input("div-result", "data"),
    )
    def _figures(data: Any) -> Any:
        result = (data or {}).get("result")
        if not result:
            return no_update, no_update, no_update
        return figs.mse_vs_hdi(result), figs.correlation_vs_overlap(result), verdict(result)


VIEW = View(
    id="diversity",
    label="Diversity",
    layout=layout,
    register_callbacks=register_callbacks,
    url_params=[Param("dn", "int", 10, component="div-n", lo=3, hi=31, help="Angles in the theta sweep.")],
    description="Turn the heads apart from θ = 0 to 90°: does the MSE follow the paper's bound?",
)
