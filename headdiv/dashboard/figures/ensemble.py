"""Charts of one simulation result (the Ensemble view): pure functions from the result dict to figures."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from headdiv.dashboard.figures import heatmaps
from headdiv.dashboard.figures.theme import (
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    ENSEMBLE_COLOR,
    TRUTH_COLOR,
    finite,
    fmt,
    fmt_se,
    head_color,
    reference_line,
    styled,
)

Result = dict[str, Any]
PARTS = ("bias2", "variance", "covariance")


def decomposition_bars(result: Result) -> go.Figure:
    """Bias² + variance + covariance of the ensemble beside the single-head and big-head baselines."""
    baselines = result.get("baselines") or {}
    big = baselines.get("big_head") or {}
    rows = [
        ("ensemble", result),
        ("single head", baselines.get("single_head") or {}),
        (f"big head (d={big.get('dim', '?')})" if big.get("dim") else "big head", big),
    ]
    names = [r[0] for r in rows]
    fig = go.Figure()
    for part in PARTS:
        fig.add_bar(
            x=names,
            y=[finite(r.get(part, 0.0 if part == "covariance" else None)) for _, r in rows],
            name=COMPONENT_LABELS[part],
            marker_color=COMPONENT_COLORS[part],
            hovertemplate="%{x}<br>" + COMPONENT_LABELS[part] + " = %{y:.3g}<extra></extra>",
        )
    fig.add_scatter(
        x=names,
        y=[finite(r.get("mse")) for _, r in rows],
        mode="markers+text",
        marker={"symbol": "line-ew-open", "size": 28, "color": COMPONENT_COLORS["mse"], "line": {"width": 3}},
        # each row to the precision of its own standard error (the baselines carry theirs), so one
        # estimator's MSE reads the same on every bar and in the hover
        text=[fmt(r.get("mse"), r.get("mse_se")) for _, r in rows],
        textposition="top center",
        cliponaxis=False,
        name="MSE",
        hovertemplate="%{x}<br>MSE = %{text}<extra></extra>",
    )
    fig.update_layout(barmode="relative", yaxis_title="error")
    _headroom(fig, [finite(r.get("mse")) for _, r in rows], [finite(r.get("covariance")) for _, r in rows])
    return styled(fig, "MSE decomposition: ensemble vs baselines", height=340)


def _headroom(fig: go.Figure, tops: list[float | None], lows: list[float | None]) -> None:
    """Leave room above the tallest bar for its MSE label (and below zero for a negative covariance)."""
    top = max((t for t in tops if t is not None), default=None)
    low = min([0.0, *(v for v in lows if v is not None)])
    if top is not None and top > 0:
        fig.update_yaxes(range=[low * 1.2, top * 1.18])


def per_head_mse(result: Result) -> go.Figure:
    """Each head's own MSE split into bias² and variance, with the ensemble's MSE as a line."""
    heads = result.get("heads") or []
    labels = [f"head {h + 1}" for h in range(len(heads))]
    fig = go.Figure()
    for part in ("bias2", "variance"):
        fig.add_bar(
            x=labels,
            y=[finite(h.get(part)) for h in heads],
            name=COMPONENT_LABELS[part],
            marker_color=COMPONENT_COLORS[part],
        )
    mse = finite(result.get("mse"))
    if mse is not None:
        name = f"ensemble MSE {fmt(mse, result.get('mse_se'))}"
        reference_line(fig, "h", mse, name, ENSEMBLE_COLOR, "dash", width=2)
    fig.update_layout(barmode="stack", yaxis_title="MSE")
    return styled(fig, "Per-head MSE", height=300)


def _matrix(values: Any) -> list[list[float | None]]:
    return [[finite(v) for v in row] for row in (values or [])]


def correlation_heatmap(result: Result, which: str = "correlation") -> go.Figure:
    """The heads' error correlation (or covariance) matrix: how much their mistakes move together."""
    key = "correlation_matrix" if which == "correlation" else "covariance_matrix"
    z = _matrix(result.get(key))
    labels = [f"h{h + 1}" for h in range(len(z))]
    kw: dict[str, Any] = (
        {"zmin": -1, "zmax": 1, "colorscale": "RdBu", "reversescale": True}
        if which == "correlation"
        else {"colorscale": "Blues"}
    )
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            colorbar={"thickness": 12},
            **kw,
            hovertemplate="%{y} × %{x}: %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", scaleanchor="x")
    title = "Error correlation between heads" if which == "correlation" else "Error covariance between heads"
    return styled(fig, title, height=320, legend=False)


def overlap_heatmap(result: Result) -> go.Figure:
    """Subspace overlap s_hh' between the simulated heads, principal angles on hover."""
    return heatmaps.overlap_heatmap(
        result.get("overlap_matrix"),
        result.get("principal_angles_deg"),
        "Subspace overlap (principal angles on hover)",
    )


def slice_figure(result: Result) -> go.Figure:
    """Replicate 1 along the signal direction x = t·a: each head's fit, the ensemble and the truth."""
    sl = result.get("slice") or {}
    t = [finite(v) for v in sl.get("t") or []]
    fig = go.Figure()
    for h, curve in enumerate(sl.get("heads") or []):
        fig.add_scatter(
            x=t,
            y=[finite(v) for v in curve],
            mode="lines",
            name="heads" if h == 0 else f"head {h + 1}",
            line={"color": head_color(h), "width": 1.5},
            opacity=0.75,
            legendgroup="heads",
            showlegend=h == 0,
            hovertemplate=f"head {h + 1}: %{{y:.3f}}<extra></extra>",
        )
    fig.add_scatter(
        x=t,
        y=[finite(v) for v in sl.get("ensemble") or []],
        mode="lines",
        name="ensemble",
        line={"color": ENSEMBLE_COLOR, "width": 3.5},
    )
    fig.add_scatter(
        x=t,
        y=[finite(v) for v in sl.get("truth") or []],
        mode="lines",
        name="truth m(t·a)",
        line={"color": TRUTH_COLOR, "width": 2, "dash": "dash"},
    )
    fig.update_layout(xaxis_title="t (position along the signal direction a)", yaxis_title="estimate")
    return styled(fig, "1-D slice: each head's fit against the truth", height=340)


def headline(result: Result) -> dict[str, str]:
    """The numbers of the page header, formatted (em dash where undefined, e.g. HDI for one head)."""
    mse, se = result.get("mse"), result.get("mse_se")
    return {
        "mse": fmt_se(mse, se),
        "hdi": fmt(result.get("hdi")),
        "effective_heads": fmt(result.get("effective_heads")),
        "mean_correlation": fmt(result.get("mean_correlation")),
        "bias2": fmt(result.get("bias2"), se),
        "variance": fmt(result.get("variance"), se),
        "covariance": fmt(result.get("covariance"), se),
    }
