"""Charts of the weighting schemes (docs/model.md section 5), all from one simulation result.

The schemes and their labels come from the registry (`headdiv.workers.schemas.weightings`): a scheme added
there appears here without a change.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from headdiv.dashboard.figures.theme import (
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
from headdiv.workers.schemas.weightings import WEIGHTINGS

Result = dict[str, Any]
SCHEMES: tuple[str, ...] = WEIGHTINGS.names
SCHEME_LABELS: dict[str, str] = {w.name: w.label for w in WEIGHTINGS}


def scheme_bars(result: Result) -> go.Figure:
    """Bias² + variance + covariance of every scheme side by side, MSE on top; the lowest one in its own colour."""
    w = result.get("weightings") or {}
    present = [s for s in SCHEMES if isinstance(w.get(s), dict)]
    labels = [SCHEME_LABELS[s] for s in present]
    fig = go.Figure()
    for part in ("bias2", "variance", "covariance"):
        fig.add_bar(
            x=labels,
            y=[finite(w[s].get(part)) for s in present],
            name=COMPONENT_LABELS[part],
            marker_color=COMPONENT_COLORS[part],
        )
    mses = [finite(w[s].get("mse")) for s in present]
    texts = [fmt(m, w[s].get("mse_se")) for m, s in zip(mses, present, strict=True)]
    # The schemes at the lowest MSE make a trace of their own colour, named in the legend: an arrow or a word
    # above a bar would cross its MSE label. Those whose label reads the same as the lowest's tie with it
    # (all of them for identical heads): singling one out would claim a difference the numbers do not show.
    finite_mses = [(m, i) for i, m in enumerate(mses) if m is not None]
    low = texts[min(finite_mses)[1]] if finite_mses else None
    best = {i for _, i in finite_mses if texts[i] == low}
    marker = {"symbol": "line-ew-open", "size": 28, "line": {"width": 3}}
    groups = [
        ("MSE", [i for i in range(len(present)) if i not in best], COMPONENT_COLORS["mse"]),
        ("lowest MSE", sorted(best), BEST_COLOR),
    ]
    for name, idx, color in groups:
        if not idx:
            continue
        fig.add_scatter(
            x=[labels[i] for i in idx],
            y=[mses[i] for i in idx],
            mode="markers+text",
            name=name,
            text=[texts[i] for i in idx],
            textposition="top center",
            textfont={"color": color},
            cliponaxis=False,
            marker={**marker, "color": color},
            hovertemplate="%{x}<br>MSE = %{text}<extra></extra>",
        )
    fig.update_layout(barmode="relative", yaxis_title="error")
    top = max((m for m in mses if m is not None), default=None)
    if top is not None and top > 0 and all((finite(w[s].get("covariance")) or 0) >= 0 for s in present):
        fig.update_yaxes(range=[0, top * 1.25])
    return styled(fig, "Weighting schemes: MSE decomposition", height=360)


def rho_curve(result: Result, rho: float | None = None) -> go.Figure:
    """MSE of geometric weights against rho, with the chosen rho and the best one on the grid."""
    w = result.get("weightings") or {}
    curve = (w.get("geometric") or {}).get("scan") or {}
    fig = go.Figure()
    fig.add_scatter(
        x=curve.get("values") or [],
        y=[finite(v) for v in curve.get("mse") or []],
        mode="lines+markers",
        name="geometric",
        line={"color": ENSEMBLE_COLOR, "width": 2.5},
    )
    # The reference lines are named in the legend, not labelled on the plot: wherever the chosen rho,
    # the best one and the uniform MSE fall, a label beside one line would cross the other or the curve.
    uni = finite((w.get("uniform") or {}).get("mse"))
    if uni is not None:
        reference_line(fig, "h", uni, f"uniform (ρ = 1): MSE {fmt(uni, w['uniform'].get('mse_se'))}", "#adb5bd", "dot")
    best = finite(curve.get("best"))
    if best is not None:
        reference_line(fig, "v", best, f"best ρ = {fmt(best)}", BEST_COLOR, "dash")
    chosen = finite(rho)
    if chosen is not None:
        reference_line(fig, "v", chosen, f"your ρ = {fmt(chosen)}", COMPONENT_COLORS["bias2"], "solid", width=2)
    fig.update_layout(xaxis_title="ρ (ratio of successive weights)", yaxis_title="MSE")
    return styled(fig, "Geometric weights: MSE against ρ", height=320)


def alpha_bars(result: Result) -> go.Figure:
    """The weight each scheme gives each head (MAW: its mean gate), heads in their own colours."""
    w = result.get("weightings") or {}
    fig = go.Figure()
    rows: list[tuple[str, list[Any]]] = []
    for s in SCHEMES:
        entry = w.get(s) or {}
        alpha = entry.get("alpha") or entry.get("mean_gate")
        if alpha:
            rows.append((SCHEME_LABELS[s], list(alpha)))
    n_heads = max((len(a) for _, a in rows), default=0)
    for h in range(n_heads):
        fig.add_bar(
            x=[lab for lab, _ in rows],
            y=[finite(a[h]) if h < len(a) else None for _, a in rows],
            name=f"head {h + 1}",
            marker_color=head_color(h),
            showlegend=h < 10,
        )
    fig.update_layout(barmode="group", yaxis_title="weight α_h")
    return styled(fig, "Weights per head (heads ordered as simulated)", height=320)
