"""Training lab: learn the heads' projections by gradient descent and watch their diversity (open problem 1 of
the paper's section 9.2): loss and HDI curves, the held-out MSE split, and the overlaps and principal angles
of any recorded step (a slider with ▶ plays them in order)."""

from __future__ import annotations

from typing import Any, cast

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.view_jobs import computed, draw_result, stored_result
from headdiv.dashboard.page.components import (
    chart_outputs,
    control,
    export_bar,
    graph,
    job_status,
    number_input,
    view_page,
)
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState, Param, checkbox
from headdiv.dashboard.views.view_protocol import Ignores, Reasons, View, ViewJob
from headdiv.figures import training_charts as figs
from headdiv.figures.verdict_sentences import training_verdict
from headdiv.i18n import N_
from headdiv.schemas.results.lab_results import TrainingResult
from headdiv.schemas.training_request import INITS, OPTIMIZERS, TrainingRequest

FIELDS = TrainingRequest.model_fields
PLAY_MS = 350
HELD_OUT = 50
"""At most this many held-out training sets (the sidebar's replicates, capped): one evaluation per record."""


def training_request(state: PageState) -> tuple[str, dict[str, Any]]:
    """The training of the sidebar's scenario with this tab's options."""
    base = {k: v for k, v in state.scenario().items() if k != "tilts"}
    base["replicates"] = min(int(base["replicates"]), HELD_OUT)  # evaluated at every record: keep it light
    if base.get("geometry") == "tilted":
        base["geometry"] = "equiangular"
    return "/trainings", {
        "base": base,
        "steps": int(state.get("trsteps", 200)),
        "lr": float(state.get("trlr", 0.02)),
        "optimizer": state.get("tropt", "adam"),
        "init": state.get("trinit", "random"),
        "penalty": float(state.get("trpen", 0.0)),
        "orthonormal": bool(state.get("trortho", True)),
        "learn_weights": bool(state.get("trlearn", False)),
        "separate_qk": bool(state.get("trsep", False)),
        "batch": int(state.get("trbatch", 4)),
        "record_every": int(state.get("trevery", 10)),
    }


THETA_UNUSED: dict[str, str] = {
    "random": N_("random initial heads have no angle θ"),
    "identical": N_("identical initial heads start at θ = 0°"),
    "orthogonal": N_("orthogonal initial heads start at θ = 90°"),
}
"""Why θ does nothing, for each init that sets the heads itself (only `equiangular` starts at the sidebar's θ)."""


def ignored(state: PageState) -> Reasons:
    """θ only places the initial heads, and only the `equiangular` init reads it."""
    reason = THETA_UNUSED.get(str(state.get("trinit", "random")))
    return {"theta": _(reason)} if reason else {}


def _checkbox(component_id: str, label: str, on: bool) -> dcc.Checklist:
    return dcc.Checklist(id=component_id, options=[{"label": f" {label}", "value": "on"}], value=["on"] if on else [])


def layout(state: PageState) -> Component:
    def number(name: str, cid: str, label: str, field: str, step: float | str = 1) -> Component:
        info = FIELDS[field]
        # the field's description comes from the request schema, translated where it is marked there
        return control(label, number_input(cid, state.get(name), step=step), name, _(info.description or ""))

    def choice(name: str, cid: str, label: str, options: dict[str, str]) -> Component:
        return control(
            label,
            dcc.Dropdown(
                id=cid,
                options=[{"label": k, "value": k, "title": _(v)} for k, v in options.items()],
                value=state.get(name),
                clearable=False,
            ),
            name,
            "; ".join(f"{k}: {_(v)}" for k, v in options.items()),
        )

    return view_page(
        [
            html.Div(
                [
                    choice("trinit", "tr-init", _("initial heads"), INITS),
                    choice("tropt", "tr-opt", _("optimizer"), OPTIMIZERS),
                    number("trlr", "tr-lr", _("learning rate"), "lr", "any"),
                    number("trsteps", "tr-steps", _("steps"), "steps"),
                    number("trbatch", "tr-batch", _("batch (training sets / step)"), "batch"),
                    number("trevery", "tr-every", _("record every"), "record_every"),
                    number("trpen", "tr-pen", _("diversity penalty λ"), "penalty", "any"),
                    control("", _checkbox("tr-ortho", _("orthonormal W_h (QR)"), state.get("trortho")), "trortho"),
                    control("", _checkbox("tr-learn", _("learn head weights α"), state.get("trlearn")), "trlearn"),
                    control("", _checkbox("tr-sep", _("separate W_Q, W_K"), state.get("trsep")), "trsep"),
                ],
                className="view-controls",
            ),
            job_status("tr"),
            html.Div(id="tr-verdict", className="verdict", role="status"),
            html.Div([graph("tr-curves", "open this tab to train the heads"), graph("tr-mse")], className="chart-row"),
            html.Div(
                [
                    html.Button("▶", id="tr-play-btn", className="play-button", title=_("Play the recorded steps")),
                    html.Div(
                        # the box would show the frame index, not the step the marks name; the frames are
                        # redrawn while the thumb moves (Dash keeps only the newest request's answer)
                        dcc.Slider(
                            0, 0, 1, value=0, id="tr-frame", marks=None, allow_direct_input=False, updatemode="drag"
                        ),
                        className="step-slider",
                        **cast(dict[str, Any], {"data-a11y-name": _("recorded training step")}),
                    ),
                    dcc.Interval(id="tr-play", interval=PLAY_MS, disabled=True),
                ],
                className="step-player",
            ),
            html.Div([graph("tr-overlap"), graph("tr-angles")], className="chart-row"),
            export_bar("tr"),
        ],
        "training",
    )


CHARTS = ("tr-curves", "tr-mse", "tr-overlap", "tr-angles")
"""The view's charts, in the order `charts` draws them."""


def charts(result: TrainingResult, frame: int) -> dict[str, Any]:
    """The four charts at recorded step `frame`."""
    draw = (figs.loss_and_hdi, figs.mse_split, figs.overlap_at, figs.angles_at)
    return dict(zip(CHARTS, (f(result, frame) for f in draw), strict=True))


def still(state: PageState, client: ApiClient) -> dict[str, Any]:
    """The four charts at the last recorded step, once the training is done."""
    result = computed(client, training_request(state))
    assert isinstance(result, TrainingResult)
    return charts(result, max(0, len(result.steps) - 1))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    draw_result(
        app,
        "tr-result",
        [*chart_outputs(CHARTS), Output("tr-verdict", "children")],
        lambda result, frame: (*charts(result, int(frame or 0)).values(), training_verdict(result)),
        Input("tr-frame", "value"),
    )

    @app.callback(
        Output("tr-frame", "value"),
        Output("tr-frame", "max"),
        Output("tr-frame", "marks"),
        Output("tr-play", "disabled"),
        Output("tr-play-btn", "children"),
        Input("tr-play-btn", "n_clicks"),
        Input("tr-play", "n_intervals"),
        Input("tr-result", "data"),
        State("tr-frame", "value"),
        State("tr-play", "disabled"),
        prevent_initial_call=True,  # no result yet: the layout's empty player is the answer
    )
    def _player(_clicks: Any, _ticks: Any, data: Any, frame: Any, stopped: Any) -> tuple[Any, ...]:
        """▶ plays the recorded steps from the start (or from where the slider is); a new result shows its last."""
        result = stored_result(data)
        steps = result.steps if isinstance(result, TrainingResult) else []
        last = max(0, len(steps) - 1)
        every = max(1, last // 6)
        first = _("step {step}")
        marks = (
            {i: first.format(step=steps[i]) if i == 0 else str(steps[i]) for i in range(0, last + 1, every)}
            if steps
            else {}
        )
        frame = min(int(frame or 0), last)
        trigger = ctx.triggered_id
        if trigger == "tr-result":
            return last, last, marks, True, "▶"
        if trigger == "tr-play-btn":
            if stopped is False:
                return no_update, last, marks, True, "▶"
            return (0 if frame >= last else frame), last, marks, False, "⏸"
        if trigger == "tr-play":
            if frame >= last:
                return last, last, marks, True, "▶"
            return frame + 1, last, marks, False, "⏸"
        return no_update, last, marks, no_update, no_update


VIEW = View(
    id="training",
    label=N_("Training lab"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=[
        Param("trinit", "choice", "random", component="tr-init", choices=tuple(INITS), help="Initial heads."),
        Param("tropt", "choice", "adam", component="tr-opt", choices=tuple(OPTIMIZERS), help="Optimizer."),
        Param("trlr", "float", 0.02, component="tr-lr", lo=1e-5, hi=10, help="Learning rate."),
        Param("trsteps", "int", 200, component="tr-steps", lo=1, hi=5000, help="Gradient steps."),
        Param("trbatch", "int", 4, component="tr-batch", lo=1, hi=64, help="Training sets per step."),
        Param("trevery", "int", 10, component="tr-every", lo=1, hi=1000, help="Steps between records."),
        Param("trpen", "float", 0.0, component="tr-pen", lo=0, hi=100, help="Diversity penalty λ."),
        checkbox("trortho", True, "tr-ortho", "Keep W_h orthonormal (QR retraction)."),
        checkbox("trlearn", False, "tr-learn", "Learn the head weights α."),
        checkbox("trsep", False, "tr-sep", "Separate W_Q and W_K."),
    ],
    description=N_("Train the heads by gradient descent: does the HDI rise on its own, and does the MSE follow?"),
    jobs=(ViewJob("tr", training_request, "training", wait=2.0, show_partial=True),),
    still=still,
    ignores=Ignores(("theta",), ignored),
)
