"""Charts of the long computations: surfaces, diversity sweeps, architectures and theory curves."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures.theme import (
    BEST_COLOR,
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    THEORY_COLOR,
    finite,
    styled,
)

Result = dict[str, Any]
METRIC_LABELS: dict[str, str] = {
    "mse": "MSE",
    "bias2": "Bias²",
    "variance": "Variance",
    "covariance": "Covariance",
    "mse_se": "MSE standard error",
    "hdi": "HDI",
    "effective_heads": "Effective heads",
}


def _axis(result: Result, key: str) -> tuple[str, list[Any]]:
    axis = result.get(key) or {}
    return str(axis.get("param", key)), list(axis.get("values") or [])


def _label(v: Any) -> str:
    """Axis label of a swept value: 45 not 45.0, 0.25 as is."""
    x = finite(v)
    return str(v) if x is None else f"{x:g}"


def _grid(result: Result, metric: str) -> list[list[float | None]]:
    return [[finite(v) for v in row] for row in ((result.get("metrics") or {}).get(metric) or [])]


def surface_heatmap(result: Result, metric: str = "mse") -> go.Figure:
    """One metric over the two swept keys as a heatmap (z[i][j] at y[i], x[j]); categorical axes keep
    uneven grids (e.g. n = 32, 64, ..., 4096) evenly spaced and readable."""
    xp, xv = _axis(result, "x")
    yp, yv = _axis(result, "y")
    z = _grid(result, metric)
    label = METRIC_LABELS.get(metric, metric)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[_label(v) for v in xv],
            y=[_label(v) for v in yv],
            colorscale="Viridis",
            colorbar={"title": {"text": label}, "thickness": 12},
            hovertemplate=f"{xp}=%{{x}}<br>{yp}=%{{y}}<br>{label}=%{{z:.4g}}<extra></extra>",
        )
    )
    fig.update_xaxes(title=xp, type="category")
    fig.update_yaxes(title=yp, type="category")
    return styled(fig, f"{label} over {xp} × {yp}", height=420, legend=False)


def surface_3d(result: Result, metric: str = "mse") -> go.Figure:
    """The same grid as a 3-D surface, to see the shape of the valley."""
    xp, xv = _axis(result, "x")
    yp, yv = _axis(result, "y")
    label = METRIC_LABELS.get(metric, metric)
    fig = go.Figure(
        go.Surface(
            z=_grid(result, metric),
            x=xv,
            y=yv,
            colorscale="Viridis",
            colorbar={"title": {"text": label}, "thickness": 12},
        )
    )
    fig.update_layout(
        scene={"xaxis_title": xp, "yaxis_title": yp, "zaxis_title": label}, margin={"l": 0, "r": 0, "t": 48, "b": 0}
    )
    return styled(fig, f"{label} surface", height=460, legend=False)


def mse_vs_hdi(result: Result) -> go.Figure:
    """MSE and its parts against HDI over the theta sweep, with the paper's bound (4.4) fitted over it."""
    points = result.get("points") or []
    hdi = [finite(p.get("hdi")) for p in points]
    thetas = [finite(p.get("theta")) for p in points]
    fig = go.Figure()
    for part in ("bias2", "variance", "covariance"):
        fig.add_scatter(
            x=hdi,
            y=[finite(p.get(part)) for p in points],
            mode="lines",
            name=COMPONENT_LABELS[part],
            line={"color": COMPONENT_COLORS[part], "width": 1.5},
            opacity=0.8,
        )
    fig.add_scatter(
        x=hdi,
        y=[finite(p.get("mse")) for p in points],
        mode="lines+markers",
        name="MSE (Monte Carlo)",
        line={"color": COMPONENT_COLORS["mse"], "width": 3},
        error_y={"type": "data", "array": [finite(p.get("mse_se")) or 0.0 for p in points], "visible": True},
        customdata=thetas,
        hovertemplate="θ = %{customdata}°<br>HDI = %{x:.3f}<br>MSE = %{y:.4g}<extra></extra>",
    )
    bound = result.get("bound") or {}
    if bound.get("values"):
        holds = result.get("holds")
        name = "paper's bound (4.4), fitted" + ("" if holds is None else (" — holds" if holds else " — violated"))
        fig.add_scatter(
            x=hdi,
            y=[finite(v) for v in bound["values"]],
            mode="lines",
            name=name,
            line={"color": THEORY_COLOR, "width": 2.5, "dash": "dash"},
        )
    fig.update_layout(xaxis_title="HDI (head diversity index)", yaxis_title="error")
    return styled(fig, "MSE against head diversity", height=380)


def correlation_vs_overlap(result: Result) -> go.Figure:
    """Mean error correlation against 1 − HDI: the paper's link between subspace overlap and correlation."""
    points = result.get("points") or []
    x = [None if finite(p.get("hdi")) is None else 1.0 - float(p["hdi"]) for p in points]
    fig = go.Figure()
    fig.add_scatter(
        x=x,
        y=[finite(p.get("mean_correlation")) for p in points],
        mode="lines+markers",
        name="mean correlation",
        line={"color": COMPONENT_COLORS["covariance"], "width": 3},
        customdata=[finite(p.get("theta")) for p in points],
        hovertemplate="θ = %{customdata}°<br>1 − HDI = %{x:.3f}<br>ρ̄ = %{y:.3f}<extra></extra>",
    )
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="ρ̄ = 1 − HDI", line={"color": "#adb5bd", "dash": "dot"})
    fig.update_layout(xaxis_title="1 − HDI (mean subspace overlap)", yaxis_title="mean error correlation")
    return styled(fig, "Error correlation against overlap", height=380)


def architecture_mse(result: Result) -> go.Figure:
    """Monte Carlo MSE of every split H × d_k = D, the best marked, the fitted theory curve over it."""
    cands = result.get("candidates") or []
    labels = [f"{c.get('H')}×{c.get('d_k')}" for c in cands]
    fig = go.Figure()
    for part in ("bias2", "variance", "covariance"):
        fig.add_bar(
            x=labels,
            y=[finite(c.get(part)) for c in cands],
            name=COMPONENT_LABELS[part],
            marker_color=COMPONENT_COLORS[part],
            opacity=0.85,
        )
    fig.add_scatter(
        x=labels,
        y=[finite(c.get("mse")) for c in cands],
        mode="markers",
        name="MSE (Monte Carlo)",
        marker={"color": COMPONENT_COLORS["mse"], "size": 9},
        error_y={"type": "data", "array": [finite(c.get("mse_se")) or 0.0 for c in cands]},
    )
    theory = result.get("theory") or {}
    tc = {(c.get("H"), c.get("d_k")): c.get("mse") for c in theory.get("candidates") or []}
    if tc:
        fig.add_scatter(
            x=labels,
            y=[finite(tc.get((c.get("H"), c.get("d_k")))) for c in cands],
            mode="lines+markers",
            name=f"theory c₁d_k⁻² + c₂d_k^(d_k/2+1)/(nD)  (c₁={theory.get('c1', 0):.3g}, c₂={theory.get('c2', 0):.3g})",
            line={"color": THEORY_COLOR, "dash": "dash", "width": 2.5},
        )
    best = result.get("best") or {}
    for c, label in zip(cands, labels, strict=True):
        if c.get("H") == best.get("H") and c.get("d_k") == best.get("d_k"):
            fig.add_annotation(
                x=label,
                y=finite(c.get("mse")),
                text="best (Monte Carlo)",
                showarrow=True,
                arrowhead=2,
                arrowcolor=BEST_COLOR,
                font={"color": BEST_COLOR},
                ay=-40,
            )
    tb = theory.get("best") or {}
    if tb:
        tlabel = f"{tb.get('H')}×{tb.get('d_k')}"
        if tlabel in labels:
            fig.add_annotation(
                x=tlabel,
                y=finite(tc.get((tb.get("H"), tb.get("d_k")))),
                text="best (theory)",
                showarrow=True,
                arrowhead=2,
                arrowcolor=THEORY_COLOR,
                font={"color": THEORY_COLOR},
                ay=40,
            )
    fig.update_layout(barmode="relative", xaxis_title="split H × d_k", yaxis_title="error")
    return styled(fig, f"Every split of the budget D = {result.get('budget', '?')}", height=400)


def theory_curves(theory: Result) -> go.Figure:
    """The closed-form optimum: d_k*(n) beside the paper's stated rate, and H*(D)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("d_k* against n", "H* against the budget D"))
    dk = theory.get("dk_star_vs_n") or {}
    fig.add_scatter(
        x=dk.get("n") or [],
        y=[finite(v) for v in dk.get("d_k") or []],
        mode="lines+markers",
        name="d_k* (minimiser of the stated objective)",
        line={"color": THEORY_COLOR, "shape": "hv"},
        row=1,
        col=1,
    )
    if dk.get("stated_rate"):
        fig.add_scatter(
            x=dk.get("n") or [],
            y=[finite(v) for v in dk["stated_rate"]],
            mode="lines",
            name="stated rate (log n)^(2/(4+d)), reference",
            line={"color": "#adb5bd", "dash": "dot"},
            row=1,
            col=1,
        )
    hs = theory.get("h_star_vs_budget") or {}
    fig.add_scatter(
        x=hs.get("budget") or [],
        y=[finite(v) for v in hs.get("H") or []],
        mode="lines+markers",
        name="H*",
        line={"color": BEST_COLOR, "shape": "hv"},
        row=1,
        col=2,
    )
    fig.update_xaxes(type="log", title_text="n", row=1, col=1)
    fig.update_xaxes(type="log", title_text="D", row=1, col=2)
    fig.update_yaxes(title_text="d_k*", row=1, col=1)
    fig.update_yaxes(title_text="H*", row=1, col=2)
    styled(fig, "Closed-form optimum of the paper's objective", height=400)
    fig.update_layout(
        legend={"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0.0, "xanchor": "left"},
        margin={"t": 60, "b": 90},
    )
    return fig
