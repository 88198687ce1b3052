"""Architecture view: every split H x d_k of a budget D, Monte Carlo against the paper's theory."""

from __future__ import annotations

from typing import Any

from dash import Dash, Output, dcc, html
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.view_jobs import computed, draw_result
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
from headdiv.dashboard.page.url_state import PageState, Param
from headdiv.dashboard.views.view_protocol import View, ViewJob
from headdiv.figures import sweep_charts as figs
from headdiv.figures.theme import empty_figure
from headdiv.figures.verdict_sentences import architecture_verdict
from headdiv.i18n import N_
from headdiv.schemas.geometries import GEOMETRIES
from headdiv.schemas.requests import MAX_BUDGET
from headdiv.schemas.results.report_results import TheoryReport
from headdiv.schemas.results.sweep_results import ArchitectureResult


def architecture_request(state: PageState) -> tuple[str, dict[str, Any]]:
    """Every split of the budget, on the sidebar's scenario (equiangular heads if its geometry cannot follow H)."""
    base = {k: v for k, v in state.scenario().items() if k not in ("H", "d_k", "tilts")}
    if not GEOMETRIES[base["geometry"]].follows_heads:
        base["geometry"] = "equiangular"
    return "/architectures", {"base": base, "budget": state.get("budget", 32)}


def layout(state: PageState) -> Component:
    return view_page(
        [
            html.Div(
                control(
                    _("budget D = H × dₖ"),
                    number_input("arch-budget", state.get("budget", 32), low=1, high=MAX_BUDGET),
                    "budget",
                    _("Total head dimension shared by every split."),
                ),
                className="view-controls",
            ),
            job_status("arch"),
            # the view is mounted only while its tab is shown, so a blank chart means its job is running
            html.Div([graph("arch-mse", "computing every split…")], className="chart-row one"),
            # whether the fitted theory names a best split, and why not when it does not (docs/model.md section 7)
            html.Div(id="arch-verdict", className="verdict", role="status"),
            dcc.Markdown(id="arch-formula", mathjax=True, className="formula"),
            html.Div(
                [graph("arch-theory", "computing… the closed-form curves follow the Monte Carlo")],
                className="chart-row one",
            ),
            html.Div(id="arch-theory-error", className="job-status error"),
            export_bar("arch"),
        ],
        "architecture",
    )


def figures(result: ArchitectureResult, client: ApiClient) -> tuple[Any, Any, str, str]:
    """The four outputs of the view for a (possibly partial) result: the splits, the closed-form optimum,
    the theory curves' error line and the fitted formula."""
    candidates = result.candidates
    if not any(c.mse is not None for c in candidates):  # a partial result with no split yet
        return figs.architecture_mse(result), empty_figure("the curves follow the first splits"), "", ""
    theory = result.theory
    # a degenerate fit's minimum is only an end of the range (docs/model.md section 7): the closed form is
    # then drawn with the paper's unit constants, labelled as such, never with the degenerate ones
    fitted = not theory.degenerate
    n, budget = result.base.n, result.budget
    params = {"n": n, "budget": budget, "c1": theory.c1 if fitted else 1.0, "c2": theory.c2 if fitted else 1.0}
    try:  # the API checks the query: a refusal is the error line under the chart
        curves = figs.theory_curves(
            TheoryReport.model_validate(client.get("/theory/architecture", params=params)),
            fitted=fitted,
            # the best of the splits done so far is not the best split: starred once all are measured
            best=result.best if all(c.mse is not None for c in candidates) else None,
            n=n,
            budget=budget,
        )
        error = ""
    except ApiError as exc:
        curves = empty_figure("theory curves unavailable")
        error = _("theory curves: {error}").format(error=exc.message)
    return figs.architecture_mse(result), curves, error, figs.architecture_formula(result)


CHARTS = ("arch-mse", "arch-theory")
"""The Monte Carlo MSE of every split and the closed-form curves, in the order `figures` draws them."""


def still(state: PageState, client: ApiClient) -> dict[str, Any]:
    """Both charts for a state, every split measured (a page without a server shows them)."""
    result = computed(client, architecture_request(state))
    assert isinstance(result, ArchitectureResult)
    mse, curves, _error, _formula = figures(result, client)
    return dict(zip(CHARTS, (mse, curves), strict=True))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    outputs = [*chart_outputs(CHARTS), Output("arch-theory-error", "children"), Output("arch-formula", "children")]
    # not shared: the theory curves come from the API, whose passing failure must not be kept for everyone
    draw_result(app, "arch-result", outputs, lambda result: figures(result, client), pure=False)
    draw_result(
        app, "arch-result", [Output("arch-verdict", "children")], lambda result: (architecture_verdict(result),)
    )


VIEW = View(
    id="architecture",
    label=N_("Architecture"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=[
        Param(
            "budget", "int", 32, component="arch-budget", lo=1, hi=MAX_BUDGET, help="Total head dimension D = H x d_k."
        )
    ],
    description=N_("Many small heads or a few big ones? Every split of a fixed budget, measured and predicted."),
    jobs=(ViewJob("arch", architecture_request, "architecture", until="progress"),),
    still=still,
    ignores={
        "H": N_("every split H × dₖ of the budget is computed"),
        "d_k": N_("every split H × dₖ of the budget is computed"),
    },
)
