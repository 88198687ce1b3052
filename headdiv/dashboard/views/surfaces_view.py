"""Surfaces view: any metric over two swept scenario keys, computed as a job with progress and cancel.

The keys a surface may sweep, and the grid each gets by default, come from the scenario's `Sweep`
hints; the metrics from `headdiv.schemas.metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from dash import Dash, Input, Output, dcc, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.view_jobs import computed, draw_result
from headdiv.dashboard.page.client_config import clientside
from headdiv.dashboard.page.components import chart_outputs, control, export_bar, graph, job_status, radio, view_page
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState, Param, checkbox
from headdiv.dashboard.views.view_protocol import Ignores, Reasons, View, ViewJob
from headdiv.figures import sweep_charts as figs
from headdiv.i18n import N_
from headdiv.schemas import SWEEP_PARAMS, Scenario
from headdiv.schemas.fields import field_bounds
from headdiv.schemas.metrics import SURFACE_METRICS
from headdiv.schemas.requests import MAX_AXIS_VALUES, default_grid
from headdiv.schemas.results.sweep_results import SurfaceResult

METRICS: tuple[str, ...] = tuple(SURFACE_METRICS)
AXES: dict[str, str] = {"x": "theta", "y": "H"}
"""The two axes and the key each sweeps by default."""


def axis_values(param: str, given: list[float] | None) -> list[float]:
    """The values of an axis: what the user typed, else the parameter's default grid."""
    return list(given) if given else default_grid(param)


def surface_request(state: PageState) -> tuple[str, dict[str, Any]]:
    sx, sy = state.get("sx", AXES["x"]), state.get("sy", AXES["y"])
    return "/surfaces", {
        "base": state.scenario(),
        "x": {"param": sx, "values": axis_values(sx, state.get("sxv"))},
        "y": {"param": sy, "values": axis_values(sy, state.get("syv"))},
    }


def swept(state: PageState) -> Reasons:
    """The sidebar's value of a swept key is replaced by the axis' values."""
    return {
        str(state.get(f"s{axis}", default)): _("the surface sweeps it on its {axis} axis").format(axis=axis)
        for axis, default in AXES.items()
    }


def _grid_text(param: str) -> str:
    return ", ".join(f"{v:g}" for v in default_grid(param))


def _axis_controls(axis: str, state: PageState, default: str) -> Component:
    param = state.get(f"s{axis}", default)
    return html.Div(
        [
            control(
                _("{axis} axis").format(axis=axis),
                dcc.Dropdown(
                    options=[{"label": _(figs.param_title(p)), "value": p} for p in SWEEP_PARAMS],
                    value=param,
                    id=f"surf-{axis}",
                    clearable=False,
                    searchable=False,
                ),
                f"s{axis}",
            ),
            control(
                _("{axis} values").format(axis=axis),
                dcc.Input(
                    id=f"surf-{axis}v",
                    type="text",
                    debounce=True,
                    value="",
                    className="text-input",
                    placeholder=_grid_text(param),
                ),
                f"s{axis}v",
                _("Comma-separated; empty: the default grid of the parameter"),
            ),
        ],
        className="axis-controls",
    )


def layout(state: PageState) -> Component:
    return view_page(
        [
            html.Div(
                [
                    *[_axis_controls(axis, state, default) for axis, default in AXES.items()],
                    control(
                        _("metric"),
                        radio("surf-metric", {k: _(v) for k, v in SURFACE_METRICS.items()}, "mse"),
                        "sm",
                    ),
                    control(
                        "",
                        dcc.Checklist(
                            id="surf-3d",
                            options=[{"label": " " + _("3-D surface"), "value": "on"}],
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
        "surfaces",
    )


CHARTS = ("surf-heat", "surf-3d-chart")
"""The heatmap and the 3-D surface (drawn when ticked), in the order the view's callback draws them."""


def still(state: PageState, client: ApiClient) -> dict[str, Any]:
    """The heatmap (and the 3-D surface when the state asks for it) with every cell computed."""
    result = computed(client, surface_request(state))
    assert isinstance(result, SurfaceResult)
    metric = str(state.get("sm", "mse"))
    heat, three_d = CHARTS
    charts = {heat: figs.surface_heatmap(result, metric)}
    if state.get("s3d"):
        charts[three_d] = figs.surface_3d(result, metric)
    return charts


def register_callbacks(app: Dash, client: ApiClient) -> None:
    def figures(result: SurfaceResult, metric: str, three_d: list[str] | None) -> tuple[Any, ...]:
        metric = metric if metric in METRICS else "mse"
        return figs.surface_heatmap(result, metric), figs.surface_3d(result, metric) if three_d else no_update

    draw_result(
        app, "surf-result", chart_outputs(CHARTS), figures, Input("surf-metric", "value"), Input("surf-3d", "value")
    )

    app.clientside_callback(
        clientside("showWhenChecked"),
        Output("surf-3d-box", "style"),
        Input("surf-3d", "value"),
    )

    @app.callback(
        Output("surf-xv", "placeholder"),
        Output("surf-yv", "placeholder"),
        Input("surf-x", "value"),
        Input("surf-y", "value"),
        prevent_initial_call=True,  # the layout starts with the default axes' grids
    )
    def _placeholders(x: str, y: str) -> Any:
        return tuple(_grid_text(p) if p in SWEEP_PARAMS else "" for p in (x, y))


def within_swept_range(axis: str, values: Any, page: Mapping[str, Any]) -> str | None:
    """An axis' values must lie within the bounds of the key it sweeps (the API's own field bounds)."""
    key = page.get(f"s{axis}")
    info = Scenario.model_fields.get(str(key))
    if not values or info is None:
        return None
    b = field_bounds(info)
    bad = [
        v
        for v in values
        if (b.lo is not None and (v < b.lo or (b.lo_open and v <= b.lo))) or (b.hi is not None and v > b.hi)
    ]
    if not bad:
        return None
    lo, hi = "" if b.lo is None else f"{b.lo:g}", "" if b.hi is None else f"{b.hi:g}"
    return _("{name}: {value} is outside the range of {key} ({lo} to {hi})").format(
        name=f"s{axis}v", value=f"{bad[0]:g}", key=key, lo=lo, hi=hi
    )


def _axis_params(axis: str, default: str) -> list[Param]:
    name = f"s{axis}"
    return [
        Param(
            name,
            "choice",
            default,
            component=f"surf-{axis}",
            choices=SWEEP_PARAMS,
            resets=(f"{name}v",),
            help=f"Swept key on the {axis} axis.",
        ),
        Param(
            f"{name}v",
            "floats",
            None,
            component=f"surf-{axis}v",
            max_items=MAX_AXIS_VALUES,
            help=f"{axis} values (empty: default grid).",
            absent="grid of the swept key",
            check=partial(within_swept_range, axis),
        ),
    ]


VIEW = View(
    id="surfaces",
    label=N_("Surfaces"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=[
        *[p for axis, default in AXES.items() for p in _axis_params(axis, default)],
        Param("sm", "choice", "mse", component="surf-metric", choices=METRICS, help="Metric shown."),
        checkbox("s3d", False, "surf-3d", "Also draw the 3-D surface."),
    ],
    description=N_("Sweep two keys of the scenario at once and see the whole landscape."),
    jobs=(ViewJob("surf", surface_request, "surface", until="progress"),),
    still=still,
    ignores=Ignores(SWEEP_PARAMS, swept),
)
