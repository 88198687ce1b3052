"""Covariance lab: Lemma 4.1's bound against the inter-head covariance the Monte Carlo measures."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, dcc, html
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.live import LivePart
from headdiv.dashboard.drawing.view_jobs import draw_result
from headdiv.dashboard.page.components import chart_outputs, control, export_bar, graph, job_status, view_page
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState, Param
from headdiv.dashboard.views.diversity_view import thetas
from headdiv.dashboard.views.view_protocol import View, ViewJob
from headdiv.figures import covariance_charts as figs
from headdiv.figures.verdict_sentences import covariance_verdict
from headdiv.i18n import N_
from headdiv.schemas.results.lab_results import CovarianceResult

CHARTS = ("cv-split", "cv-bound", "cv-pairs")
"""The lab's charts, in the order its callback draws them."""

MAX_PAIR = 120
"""Pairs of 16 heads, the lab's most."""


def covariance_request(state: PageState) -> tuple[str, dict[str, Any]]:
    """The sidebar's scenario with equiangular heads at `cv_n` angles from 0° to 90°."""
    base = {k: v for k, v in state.scenario().items() if k not in ("theta", "tilts")}
    base["geometry"] = "equiangular"
    return "/labs/covariance", {"base": base, "thetas": thetas(state.get("cv_n", 7))}


def layout(state: PageState) -> Component:
    return view_page(
        [
            html.Div(
                [
                    control(
                        _("angles"),
                        dcc.Slider(2, 19, 1, value=state.get("cv_n", 7), id="cv-n", marks={2: "2", 7: "7", 19: "19"}),
                        "cv_n",
                        _("How many angles from 0° to 90°."),
                    ),
                    control(
                        _("pair (0 = mean over pairs)"),
                        dcc.Input(id="cv-pair", type="number", min=0, max=MAX_PAIR, step=1, value=0),
                        "cv_pair",
                        _("Which pair of heads the curves show: 1 is heads 1-2, 2 is 1-3, ...; 0 the mean."),
                    ),
                ],
                className="view-controls",
            ),
            job_status("cv"),
            html.Div([graph("cv-split", "open this tab to run the lab"), graph("cv-bound")], className="chart-row"),
            html.Div(id="cv-verdict", className="verdict", role="status"),
            graph("cv-pairs"),
            export_bar("cv"),
        ],
        "covariance",
    )


def charts(result: CovarianceResult, pair: Any) -> dict[str, Any]:
    """The lab's charts for a result, by name, the curves of `pair` (0: the mean over pairs)."""
    pair = int(pair or 0)
    figures = (figs.split_over_theta(result, pair), figs.bound_vs_truth(result, pair), figs.pair_heatmap(result))
    return dict(zip(CHARTS, figures, strict=True))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    draw_result(
        app,
        "cv-result",
        [*chart_outputs(CHARTS), Output("cv-verdict", "children")],
        lambda result, pair: (*charts(result, pair).values(), covariance_verdict(result)),
        Input("cv-pair", "value"),
    )


LAB_IGNORES: dict[str, str] = {
    "theta": N_("the lab turns θ itself from 0° to 90°"),
    "geometry": N_("the lab's heads are always equiangular"),
}
"""The scenario keys the lab ignores, each with its reason (marked here; `View.ignored` says them in the page's language)."""


VIEW = View(
    id="covariance",
    label=N_("Covariance"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=[
        Param("cv_n", "int", 7, component="cv-n", lo=2, hi=19, help="Angles in the covariance lab."),
        Param("cv_pair", "int", 0, component="cv-pair", lo=0, hi=MAX_PAIR, help="Pair shown (0: mean)."),
    ],
    description=N_("Lemma 4.1 says orthogonal heads do not covary: measure it, and split what they share."),
    jobs=(ViewJob("cv", covariance_request, "covariance-lab"),),
    live=(LivePart(covariance_request, lambda result, state: charts(result, state.get("cv_pair")), ("cv_pair",)),),
    ignores=LAB_IGNORES,
)
