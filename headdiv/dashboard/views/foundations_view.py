"""Foundations view: the background lessons, each a few controls, a figure and its formula.

1. why scores are divided by sqrt(d_k); 2. softmax as a Boltzmann distribution; 3. attention entropy
against the number of heads; 4. the head budget. Every control is a URL parameter (declared below
through the registry), so a lesson with its settings is a link. The numbers come from
`GET /api/v1/foundations/...`; bounds are read from the same query models the API validates with
(`headdiv.schemas.lesson_queries`), so a control can never ask for what the API refuses. Charts live in
`headdiv/figures/foundations_charts.py`, the budget's table in `lesson_tables`, the explanations in
`headdiv/dashboard/explanations/lesson-*.md`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dash import Dash, Input, Output, State, dcc, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.live import LivePart, drawn_to_the_end
from headdiv.dashboard.drawing.view_jobs import register_exports
from headdiv.dashboard.page.component_ids import view_state
from headdiv.dashboard.page.components import (
    chart_id,
    control,
    download_bar,
    explanation,
    graph,
    log_scale,
    number_input,
)
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState
from headdiv.dashboard.standalone.buttons import view_exports
from headdiv.dashboard.views.lesson_params import (
    URL_PARAMS,
    budget_params,
    entropy_params,
    scaling_params,
    softmax_params,
)
from headdiv.dashboard.views.lesson_tables import budget_table
from headdiv.dashboard.views.view_protocol import View
from headdiv.figures import foundations_charts as figs
from headdiv.figures.theme import empty_figure
from headdiv.i18n import N_
from headdiv.schemas.fields import field_bounds
from headdiv.schemas.lesson_queries import LESSONS, ScalingQuery

VIEW_ID = "foundations"


HEAD_CHOICES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


# ---------------------------------------------------------------------------------------------------
# Layout and callbacks
# ---------------------------------------------------------------------------------------------------


def _lesson(title: str, controls: list[Component], charts: list[Component], lesson: str) -> Component:
    """One lesson's panel: its controls, charts, a line for the API's refusals, and its explanation."""
    return html.Section(
        [
            html.H3(title),
            html.Div(controls, className="view-controls"),
            html.Div(charts, className="chart-row" if len(charts) > 1 else "chart-row one"),
            html.Div(id=f"fd-{lesson}-error", className="job-status error", role="status"),
            dcc.Store(id=f"fd-{lesson}-key"),
            dcc.Store(id=f"fd-{lesson}-result"),
            download_bar(f"fd-{lesson}"),
            explanation(f"lesson-{lesson}"),
        ],
        className="lesson",
    )


def _slider(
    cid: str,
    lo: float,
    hi: float,
    value: Any,
    step: float = 1,
    marks: dict[Any, str] | None = None,
    direct: bool = True,
) -> Any:
    return dcc.Slider(lo, hi, step, value=value, id=cid, marks=marks, allow_direct_input=direct)


_PARAMS = {p.name: p for p in URL_PARAMS}


def _number(state: PageState, name: str, label: str, help_text: str, step: float = 1) -> Component:
    """A number box for the URL parameter `name`, within its query model's own bounds."""
    p = _PARAMS[name]
    box = number_input(p.component or name, state.get(name, p.default), low=p.lo, high=p.hi, step=step)
    return control(label, box, name, help_text)


def layout(state: PageState) -> Component:
    sc = field_bounds(ScalingQuery.model_fields["d_k"])
    return html.Div(
        [
            _lesson(
                _("1 · Why scale by √d_k"),
                [
                    control(
                        "d_k",
                        _slider(
                            "fd-sc-dk",
                            sc.lo or 1,
                            sc.hi or 1024,
                            state.get("sc_dk", 64),
                            marks={1: "1", 256: "256", 512: "512", 1024: "1024"},
                        ),
                        "sc_dk",
                        _("Head dimension."),
                    ),
                    _number(state, "sc_n", _("samples"), _("Random pairs drawn."), step=100),
                    _number(state, "fseed", _("seed"), _("Seed of the draws.")),
                ],
                [graph("fd-scaling", "open this tab to draw"), graph("fd-cosine")],
                "scaling",
            ),
            _lesson(
                _("2 · Softmax as a Boltzmann distribution"),
                [
                    control(
                        _("scores s_i"),
                        dcc.Input(
                            id="fd-sm-scores",
                            type="text",
                            debounce=True,
                            value=", ".join(str(s) for s in state.get("sm_scores", [])),
                            className="text-input",
                        ),
                        "sm_scores",
                        _("Two to 64 numbers in [-1000, 1000], comma separated."),
                    ),
                    control(
                        _("temperature T (log scale)"),
                        log_scale(
                            _slider(
                                "fd-sm-t",
                                -3,
                                3,
                                math.log10(state.get("sm_T", 1.0)),
                                0.05,
                                marks={-3: "0.001", -2: "0.01", -1: "0.1", 0: "1", 1: "10", 2: "100", 3: "1000"},
                                direct=False,  # the box would show log10(T), not T
                            ),
                            10,
                        ),
                        "sm_T",
                        _("Softmax temperature."),
                    ),
                ],
                [graph("fd-softmax"), graph("fd-softmax-entropy")],
                "softmax",
            ),
            _lesson(
                _("3 · Attention entropy against the number of heads"),
                [
                    _number(state, "en_d", "d_model", _("Model dimension split into H heads.")),
                    _number(state, "en_len", _("sequence length"), _("Tokens per sequence.")),
                    control(
                        _("head counts H"),
                        dcc.Checklist(
                            id="fd-en-heads",
                            options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                            value=[int(h) for h in state.get("en_heads", [])],
                            inline=True,
                        ),
                        "en_heads",
                        _("Those that do not divide d_model are skipped."),
                    ),
                    control(
                        _("scores"),
                        dcc.Checklist(
                            id="fd-en-scaled",
                            options=[{"label": _("scaled by √d_k"), "value": "on"}],
                            value=["on"] if state.get("en_scaled", True) else [],
                        ),
                        "en_scaled",
                        _("Divide scores by sqrt(d_k)."),
                    ),
                ],
                [graph("fd-entropy")],
                "entropy",
            ),
            _lesson(
                _("4 · The head budget"),
                [
                    _number(state, "bu_d", "d_model", _("Model dimension.")),
                    _number(state, "bu_H", "H", _("Heads; must divide d_model.")),
                    _number(state, "bu_len", _("sequence length n"), _("Tokens.")),
                ],
                [graph("fd-budget"), html.Div(id="fd-budget-table", className="budget-table-wrap")],
                "budget",
            ),
            view_exports(),
        ],
        className="foundations",
    )


def _state(data: Any) -> PageState | None:
    """The page state when this tab is shown; None otherwise (nothing is fetched for a hidden tab)."""
    if not data or data.get("tab") != VIEW_ID:
        return None
    return PageState.from_data(data)


@dataclass(frozen=True)
class Panel:
    """What one lesson's panel shows: the request a state makes, and how its answer is drawn."""

    lesson: str
    params: Callable[[PageState], dict[str, Any]]
    draw: Callable[[Any], tuple[Any, ...]]
    """Draws the lesson's answer, as its model (`LESSONS[lesson].answer`)."""
    outputs: tuple[tuple[str, str], ...]
    """(component id, property) of each drawn thing; the first is always a chart."""


PANELS: tuple[Panel, ...] = (
    Panel(
        "scaling",
        scaling_params,
        lambda r: (figs.scaling_histograms(r), figs.cosine_curve(r)),
        (("fd-scaling", "figure"), ("fd-cosine", "figure")),
    ),
    Panel(
        "softmax",
        softmax_params,
        lambda r: (figs.softmax_figure(r), figs.entropy_temperature_figure(r)),
        (("fd-softmax", "figure"), ("fd-softmax-entropy", "figure")),
    ),
    Panel("entropy", entropy_params, lambda r: (figs.entropy_heads_figure(r),), (("fd-entropy", "figure"),)),
    Panel(
        "budget",
        budget_params,
        lambda r: (figs.budget_figure(r), budget_table(r)),
        (("fd-budget", "figure"), ("fd-budget-table", "children")),
    ),
)


CHARTS = tuple(cid for panel in PANELS for cid, prop in panel.outputs if prop == "figure")
"""Every lesson's charts, panel by panel."""


def _register_panel(app: Dash, client: ApiClient, panel: Panel) -> None:
    """Fetch one lesson when its own parameters change (the last request is kept in a store, so
    moving another lesson's slider sends nothing) and draw it; an API refusal is shown, never raised.
    Meanwhile the other outputs show an empty chart (or nothing, for a table)."""
    lesson, n = panel.lesson, len(panel.outputs)
    outputs = [Output(chart_id(cid) if prop == "figure" else cid, prop) for cid, prop in panel.outputs]
    blanks = tuple(empty_figure("") if prop == "figure" else "" for _, prop in panel.outputs[1:])

    @app.callback(
        *outputs,
        Output(f"fd-{lesson}-error", "children"),
        Output(f"fd-{lesson}-key", "data"),
        Output(f"fd-{lesson}-result", "data"),
        Input(view_state(VIEW_ID), "data"),
        State(f"fd-{lesson}-key", "data"),
        prevent_initial_call=True,  # the tab's gated state arrives when the tab is shown
    )
    def _update(data: Any, last: Any) -> Any:
        st = _state(data)
        if st is None:
            return (no_update,) * (n + 3)
        request = panel.params(st)
        if request == last:
            return (no_update,) * (n + 3)
        try:
            result = client.get(f"/foundations/{lesson}", params=request)
        except ApiError as exc:
            retry = None if exc.status is None or exc.status >= 500 else request  # an outage is retried
            return (empty_figure(exc.message), *blanks, exc.message, retry, None)
        return (
            *panel.draw(LESSONS[lesson].answer.model_validate(result)),
            "",
            request,
            {"key": request, "result": result},
        )


def live_part(panel: Panel) -> LivePart:
    """A lesson's charts for the live path (`headdiv.dashboard.drawing.live`): the same request and figure builders
    as its panel's callback."""
    charts = [cid for cid, prop in panel.outputs if prop == "figure"]

    def draw(result: Any, _state: PageState) -> dict[str, Any]:
        return dict(zip(charts, panel.draw(result)[: len(charts)], strict=True))

    return LivePart(
        lambda st: (f"/foundations/{panel.lesson}", panel.params(st)), draw, report=LESSONS[panel.lesson].answer
    )


SLIDING = ("scaling", "softmax")
"""The lessons with a slider (d_k, the temperature): their charts follow it while it moves."""


def register_callbacks(app: Dash, client: ApiClient) -> None:
    for panel in PANELS:
        _register_panel(app, client, panel)
        register_exports(app, f"fd-{panel.lesson}", f"lesson-{panel.lesson}", model=LESSONS[panel.lesson].answer)


VIEW = View(
    id=VIEW_ID,
    label=N_("Foundations"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=URL_PARAMS,
    description=N_(
        "The background lessons: why √d_k, softmax as Boltzmann, entropy against H, the head budget. Each lesson "
        "has its own controls; the sidebar's scenario is not used here."
    ),
    ignores={key: N_("each lesson has its own controls") for key in ("H", "d_k", "n", "theta")},
    live=tuple(live_part(p) for p in PANELS if p.lesson in SLIDING),
    # every lesson's charts in an exported page, not only those with a slider
    still=lambda state, client: drawn_to_the_end([live_part(p) for p in PANELS], state, client),
)
