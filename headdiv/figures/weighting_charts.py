"""Charts of the weighting schemes (docs/model.md section 5), all from one simulation result.

The schemes and their labels come from the registry (`headdiv.schemas.weightings`): a scheme added
there appears here without a change.
"""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures.theme import (
    BEST_COLOR,
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    ENSEMBLE_COLOR,
    finite,
    fmt,
    head_color,
    reference_line,
    styled,
)
from headdiv.i18n import N_, _
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.weightings import WEIGHTINGS

SCHEMES: tuple[str, ...] = WEIGHTINGS.names
SCHEME_LABELS: dict[str, str] = {w.name: w.label for w in WEIGHTINGS}
"""Each scheme's label in English (marked `N_` in the registry): a chart shows `_(SCHEME_LABELS[name])`."""


def scheme_bars(result: SimulationResult) -> go.Figure:
    """Bias² + variance + covariance of every scheme side by side, MSE on top; the lowest one in its own colour."""
    w = result.weightings
    present = [s for s in SCHEMES if s in w]
    labels = [_(SCHEME_LABELS[s]) for s in present]
    fig = go.Figure()
    for part in ("bias2", "variance", "covariance"):
        fig.add_bar(
            x=labels,
            y=[getattr(w[s], part) for s in present],
            name=_(COMPONENT_LABELS[part]),
            marker_color=COMPONENT_COLORS[part],
        )
    mses = [w[s].mse for s in present]
    texts = [fmt(w[s].mse, w[s].mse_se) for s in present]
    # The schemes at the lowest MSE make a trace of their own colour, named in the legend: an arrow or a word
    # above a bar would cross its MSE label. Those whose label reads the same as the lowest's tie with it
    # (all of them for identical heads): singling one out would claim a difference the numbers do not show.
    low = texts[min(range(len(mses)), key=mses.__getitem__)] if mses else None
    best = {i for i in range(len(mses)) if texts[i] == low}
    marker = {"symbol": "line-ew-open", "size": 28, "line": {"width": 3}}
    groups = [
        ("MSE", [i for i in range(len(present)) if i not in best], COMPONENT_COLORS["mse"]),
        (N_("lowest MSE"), sorted(best), BEST_COLOR),
    ]
    for name, idx, color in groups:
        if not idx:
            continue
        fig.add_scatter(
            x=[labels[i] for i in idx],
            y=[mses[i] for i in idx],
            mode="markers+text",
            name=_(name),
            text=[texts[i] for i in idx],
            textposition="top center",
            textfont={"color": color},
            cliponaxis=False,
            marker={**marker, "color": color},
            hovertemplate="%{x}<br>MSE = %{text}<extra></extra>",
        )
    fig.update_layout(barmode="relative", yaxis_title=_("error"))
    top = max(mses, default=None)
    if top is not None and top > 0 and all(w[s].covariance >= 0 for s in present):
        fig.update_yaxes(range=[0, top * 1.25])
    return styled(fig, _("Weighting schemes: MSE decomposition"), height=360)


def rho_curve(result: SimulationResult, rho: float | None = None) -> go.Figure:
    """MSE of geometric weights against rho, with the chosen rho and the best one on the grid."""
    w = result.weightings
    geometric = w.get("geometric")
    scan = geometric.scan if geometric is not None else None
    fig = go.Figure()
    fig.add_scatter(
        x=scan.values if scan else [],
        y=scan.mse if scan else [],
        mode="lines+markers",
        name=_("geometric"),
        line={"color": ENSEMBLE_COLOR, "width": 2.5},
    )
    # The reference lines are named in the legend, not labelled on the plot: wherever the chosen rho,
    # the best one and the uniform MSE fall, a label beside one line would cross the other or the curve.
    uniform = w.get("uniform")
    if uniform is not None:
        name = _("uniform (ρ = 1): MSE {mse}").format(mse=fmt(uniform.mse, uniform.mse_se))
        reference_line(fig, "h", uniform.mse, name, "#adb5bd", "dot")
    if scan is not None:
        reference_line(fig, "v", scan.best, _("best ρ = {rho}").format(rho=fmt(scan.best)), BEST_COLOR, "dash")
    chosen = finite(rho)
    if chosen is not None:
        name = _("your ρ = {rho}").format(rho=fmt(chosen))
        reference_line(fig, "v", chosen, name, COMPONENT_COLORS["bias2"], "solid", width=2)
    fig.update_layout(xaxis_title=_("ρ (ratio of successive weights)"), yaxis_title="MSE")
    return styled(fig, _("Geometric weights: MSE against ρ"), height=320)


def alpha_bars(result: SimulationResult) -> go.Figure:
    """The weight each scheme gives each head (MAW: its mean gate), heads in their own colours."""
    fig = go.Figure()
    rows: list[tuple[str, list[float]]] = []
    for s in SCHEMES:
        entry = result.weightings.get(s)
        alpha = entry.alpha or entry.mean_gate if entry is not None else None
        if alpha:
            rows.append((_(SCHEME_LABELS[s]), alpha))
    n_heads = max((len(a) for _, a in rows), default=0)
    for h in range(n_heads):
        fig.add_bar(
            x=[lab for lab, _ in rows],
            y=[a[h] if h < len(a) else None for _, a in rows],
            name=_("head {number}").format(number=h + 1),
            marker_color=head_color(h),
            showlegend=h < 10,
        )
    fig.update_layout(barmode="group", yaxis_title=_("weight α_h"))
    return styled(fig, _("Weights per head (heads ordered as simulated)"), height=320)
