"""Diversity view: MSE against HDI over a sweep of theta, with the paper's bound (4.4) fitted over it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from dash import Dash, Output, dcc, html
from dash.development.base_component import Component

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.live import LivePart
from headdiv.dashboard.drawing.view_jobs import draw_result
from headdiv.dashboard.page.components import chart_outputs, control, export_bar, graph, job_status, view_page
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState, Param
from headdiv.dashboard.views.view_protocol import View, ViewJob
from headdiv.figures import sweep_charts as figs
from headdiv.figures.verdict_sentences import diversity_verdict
from headdiv.i18n import N_
from headdiv.schemas.results.sweep_results import DiversitySweepResult


def thetas(count: int) -> list[float]:
    """`count` angles evenly from 0 to 90 degrees (rounded to 0.01 so the request, and its cache key, is stable)."""
    count = max(2, int(count))
    return [round(90.0 * i / (count - 1), 2) for i in range(count)]


@dataclass(frozen=True)
class Regime:
    """One of the two regimes the view shows side by side: the sidebar's scenario with its target fixed."""

    prefix: str
    title: str
    target: dict[str, Any]
    """The scenario keys this regime fixes (the view ignores the sidebar's values of these)."""


REGIMES: tuple[Regime, ...] = (
    Regime(
        "div",
        N_("Pure noise: the bound's regime"),
        {"target": "constant", "signal": "shared"},
    ),
    Regime(
        "divs",
        N_("A shared signal: where the bound fails"),
        {"target": "sine", "signal": "shared"},
    ),
)
"""Pure noise (a constant target: every head unbiased, Theorem 4.2's assumption) and a signal in the
shared block (turning heads apart costs bias), docs/model.md section 8.2."""


def sweep_request(state: PageState, regime: Regime = REGIMES[0]) -> tuple[str, dict[str, Any]]:
    """The sweep of the sidebar's scenario in one regime: heads equiangular at every angle, whatever the geometry."""
    base = {k: v for k, v in state.scenario().items() if k not in ("theta", "tilts")}
    base.update(regime.target)
    base["geometry"] = "equiangular"
    return "/sweeps/diversity", {"base": base, "thetas": thetas(state.get("dn", 10))}


def regime_charts(regime: Regime) -> tuple[str, str]:
    """A regime's two charts: MSE against HDI, correlation against overlap."""
    return f"{regime.prefix}-mse", f"{regime.prefix}-corr"


CHARTS = tuple(name for regime in REGIMES for name in regime_charts(regime))
"""Every regime's charts, column by column."""


def _column(regime: Regime, first: bool) -> Component:
    p = regime.prefix
    mse, corr = regime_charts(regime)
    return html.Div(
        [
            html.H3(_(regime.title)),
            job_status(p),
            graph(mse, "open this tab to run the sweep" if first else "computing…"),
            html.Div(id=f"{p}-verdict", className="verdict", role="status"),
            graph(corr),
            export_bar(p),
        ],
        className="regime",
    )


def layout(state: PageState) -> Component:
    return view_page(
        [
            html.Div(
                control(
                    _("angles in the sweep"),
                    dcc.Slider(
                        3, 31, 1, value=state.get("dn", 10), id="div-n", marks={3: "3", 10: "10", 19: "19", 31: "31"}
                    ),
                    "dn",
                    _("How many angles from 0° to 90°."),
                ),
                className="view-controls",
            ),
            html.Div([_column(r, i == 0) for i, r in enumerate(REGIMES)], className="chart-row regimes"),
        ],
        "diversity",
    )


def charts(regime: Regime, result: DiversitySweepResult, _state: PageState | None = None) -> dict[str, Any]:
    """A regime's charts for its sweep, by name."""
    figures = (figs.mse_vs_hdi(result), figs.correlation_vs_overlap(result))
    return dict(zip(regime_charts(regime), figures, strict=True))


def register_callbacks(app: Dash, client: ApiClient) -> None:
    for regime in REGIMES:
        p = regime.prefix
        draw_result(
            app,
            f"{p}-result",
            [*chart_outputs(regime_charts(regime)), Output(f"{p}-verdict", "children")],
            partial(lambda r, result: (*charts(r, result).values(), diversity_verdict(result)), regime),
        )


SWEEP_IGNORES: dict[str, str] = {
    "theta": N_("the sweep turns θ itself from 0° to 90°"),
    "target": N_("each regime fixes its own target"),
    "signal": N_("each regime fixes where the signal lives"),
    "geometry": N_("the sweep's heads are always equiangular"),
}
"""The scenario keys the view ignores, each with its reason (marked here; `View.ignored` says them in the page's language)."""


VIEW = View(
    id="diversity",
    label=N_("Diversity"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS,
    url_params=[Param("dn", "int", 10, component="div-n", lo=3, hi=31, help="Angles in the theta sweep.")],
    description=N_(
        "Turn the heads apart from θ = 0 to 90°: the paper's bound holds for pure noise, not for a shared signal."
    ),
    jobs=tuple(
        ViewJob(r.prefix, partial(sweep_request, regime=r), f"diversity-sweep-{r.target['target']}", until="progress")
        for r in REGIMES
    ),
    live=tuple(LivePart(partial(sweep_request, regime=r), partial(charts, r)) for r in REGIMES),
    ignores=SWEEP_IGNORES,
)
