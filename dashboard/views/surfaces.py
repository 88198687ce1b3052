"""Surfaces view: any metric over two swept scenario keys, computed as a job with progress and cancel."""

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
from workers.schemas import SWEEP_PARAMS

DEFAULT_VALUES: dict[str, list[float]] = {
    "H": [1, 2, 4, 8, 16],
    "d_k": [1, 2, 4, 8, 16],
    "n": [32, 64, 128, 256, 512, 1024],
    "theta": [0, 15, 30, 45, 60, 75, 90],
    "noise": [0, 0.25, 0.5, 1, 2],
    "replicates": [20, 50, 100, 200],
    "shared_dims": [0, 1, 2, 3, 4],
    "temperature": [0.25, 0.5, 1, 2, 4],
    "bandwidth": [0.25, 0.5, 1, 2, 4],
    "rho": [0.1, 0.3, 0.5, 0.7, 0.9, 1],
    "beta": [0, 0.5, 1, 2, 5],
}
METRICS: tuple[str, ...] = tuple(figs.METRIC_LABELS)


def axis_values(param: str, given: list[float] | None) -> list[float]:
    """The values of an axis: what the user typed, else the parameter's sensible default grid."""
    return list(given) if given else list(DEFAULT_VALUES[param])


def surface_request(state: State) -> tuple[str, dict[str, Any]]:
    sx, sy = state.get("sx", "theta"), state.get("sy", "H")
    return "/surfaces", {
        "base": state.scenario(),
        "x": {"param": sx, "values": axis_values(sx, state.get("sxv"))},
        "y": {"param": sy, "values": axis_values(sy, state.get("syv"))},
    }


def _axis_controls(axis: str, state: State, default: str) -> Component:
    param = state.get(f"s{axis}", default)
    return html.Div(
        [
            control(
                f"{axis} axis",
                dcc.Dropdown(
                    options=list(SWEEP_PARAMS), value=param, id=f"surf-{axis}", clearable=False, searchable=False
                ),
                f"s{axis}",
            ),
            control(
                f"{axis} values",
                dcc.Input(
                    id=f"surf-{axis}v",
                    type="text",
                    debounce=True,
                    value="",
                    className="text-input",
                    placeholder=", ".join(str(v) for v in DEFAULT_VALUES[param]),
                ),
                f"s{axis}v",
                "Comma-separated; empty: the default grid of the parameter",
            ),
        ],
        className="axis-controls",
    )


def layout(state: State) -> Component:
    return html.Div(
        [
            html.Div(
                [
                    html.Div(
                        [
                            _axis_controls("x", state, "theta"),
                            _axis_controls("y", state, "H"),
                            control(
                                "metric",
                                dcc.RadioItems(
                                    id="surf-metric",
                                    options=[{"label": f" {figs.METRIC_LABELS[m]}", "value": m} for m in METRICS],
                                    value="mse",
                                    inline=True,
                                    className="radio-inline",
                                ),
                                "sm",
                            ),
                            control(
                                "",
                                dcc.Checklist(
                                    id="surf-3d",
                                    options=[{"label": " 3-D surface", "value": "on"}],
                                    value=[],
                                    inline=True,
                                ),
                                "s3d",
                            ),
                        ],
                        className="view-controls",
                    ),
                    job_status("surf"),
                    html.Div([graph("surf-heat", "open this tab to compute the surface")], className="chart-row one"),
                    html.Div(
                        [graph("surf-3d-chart", "tick '3-D surface' to see it")],
                        id="surf-3d-box",
                        className="chart-row one",
                        style={"display": "none"},
                    ),
                    export_bar("surf"),
                ],
                className="charts",
            ),
            explanation("surfaces"),
        ],
        className="view-grid",
    )


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_job(
        app, client, "surf", surface_request, bodies=["surfaces-body"], view_id="surfaces", wait=0.5, cancellable=True
    )
    register_exports(app, client, "surf", surface_request, "surface")

    @app.callback(
        Output(chart_id("surf-heat"), "figure"),
        Output(chart_id("surf-3d-chart"), "figure"),
        Output("surf-3d-box", "style"),
        Input("surf-result", "data"),
        Input("surf-metric", "value"),
        Input("surf-3d", "value"),
    )
    def _figures(data: Any, metric: str, three_d: list[str] | None) -> Any:
        result = (data or {}).get("result")
        box = {} if three_d else {"display": "none"}
        if not result:
            return no_update, no_update, box
        metric = metric if metric in METRICS else "mse"
        return (figs.surface_heatmap(result, metric), figs.surface_3d(result, metric) if three_d else no_update, box)

    @app.callback(
        Output("surf-xv", "placeholder"),
        Output("surf-yv", "placeholder"),
        Input("surf-x", "value"),
        Input("surf-y", "value"),
    )
    def _placeholders(x: str, y: str) -> Any:
        return tuple(", ".join(f"{v:g}" for v in DEFAULT_VALUES.get(p, [])) for p in (x, y))


VIEW = View(
    id="surfaces",
    label="Surfaces",
    layout=layout,
    register_callbacks=register_callbacks,
    url_params=[
        Param(
            "sx",
            "choice",
            "theta",
            component="surf-x",
            choices=SWEEP_PARAMS,
            resets=("sxv",),
            help="Swept key on the x axis.",
        ),
        Param("sxv", "floats", None, component="surf-xv", max_items=25, help="x values (empty: default grid)."),
        Param(
            "sy",
            "choice",
            "H",
            component="surf-y",
            choices=SWEEP_PARAMS,
            resets=("syv",),
            help="Swept key on the y axis.",
        ),
        Param("syv", "floats", None, component="surf-yv", max_items=25, help="y values (empty: default grid)."),
        Param("sm", "choice", "mse", component="surf-metric", choices=METRICS, help="Metric shown."),
        Param(
            "s3d",
            "bool",
            False,
            component="surf-3d",
            to_component=lambda v: ["on"] if v else [],
            from_component=lambda c: bool(c),
            help="Also draw the 3-D surface.",
        ),
    ],
    description="Sweep two keys of the scenario at once and see the whole landscape.",
)
