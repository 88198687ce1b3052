"""Charts of the weighting schemes (docs/model.md section 5), all from one simulation result.

The schemes and their labels come from the registry (`workers.schemas.weightings`): a scheme added
there appears here without a change.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from dashboard.figures.theme import COMPONENT_COLORS, COMPONENT_LABELS, ENSEMBLE_COLOR, finite, fmt, head_color, styled
from workers.schemas.weightings import WEIGHTINGS

Result = dict[str, Any]
SCHEMES: tuple[str, ...] = WEIGHTINGS.names
SCHEME_LABELS: dict[str, str] = {w.name: w.label for w in WEIGHTINGS}


def scheme_bars(result: Result) -> go.Figure:
    """Bias² + variance + covariance of every scheme side by side, MSE on top; the best one marked."""
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
    fig.add_scatter(
        x=labels,
        y=mses,
        mode="markers+text",
        name="MSE",
        text=[fmt(m, w[s].get("mse_se")) for m, s in zip(mses, present, strict=True)],
        textposition="top center",
        cliponaxis=False,
        marker={"symbol": "line-ew-open", "size": 28, "color": COMPONENT_COLORS["mse"], "line": {"width": 3}},
    )
    finite_mses = [(m, lab) for m, lab in zip(mses, labels, strict=True) if m is not None]
    if finite_mses:
        m, lab = min(finite_mses)
        fig.add_annotation(x=lab, y=m, text="lowest", showarrow=True, arrowhead=2, ay=-48)
    fig.update_layout(barmode="relative", yaxis_title="error")
    top = max((m for m in mses if m is not None), default=None)
    if top is not None and top > 0 and all((finite(w[s].get("covariance")) or 0) >= 0 for s in present):
        fig.update_yaxes(range=[0, top * 1.25])
    return styled(fig, "Weighting schemes: MSE decomposition", height=360)


def rho_curve(result: Result, rho: float | None = None) -> go.Figure:
    """MSE of geometric weights against rho, with the chosen rho and the best one on the grid."""
    w = result.get("weightings") or {}
    curve = w.get("rho_curve") or {}
    fig = go.Figure()
    fig.add_scatter(
        x=curve.get("rho") or [],
        y=[finite(v) for v in curve.get("mse") or []],
        mode="lines+markers",
        name="geometric",
        line={"color": ENSEMBLE_COLOR, "width": 2.5},
    )
    uni = finite((w.get("uniform") or {}).get("mse"))
    if uni is not None:
        fig.add_hline(
            y=uni,
            line={"color": "#adb5bd", "dash": "dot"},
            annotation_text="uniform (ρ = 1)",
            annotation_position="bottom left",
        )
    best = finite(w.get("best_rho"))
    if best is not None:
        fig.add_vline(
            x=best,
            line={"color": "#2a9d8f", "dash": "dash"},
            annotation_text=f"best ρ = {fmt(best)}",
            annotation_position="bottom right",
        )
    chosen = finite(rho)
    if chosen is not None:
        fig.add_vline(
            x=chosen,
            line={"color": COMPONENT_COLORS["bias2"], "width": 2},
            annotation_text=f"your ρ = {fmt(chosen)}",
            annotation_position="top right",
        )
    fig.update_layout(xaxis_title="ρ (ratio of successive weights)", yaxis_title="MSE")
    return styled(fig, "Geometric weights: MSE against ρ", height=320, legend=False)


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
