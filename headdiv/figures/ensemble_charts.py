"""Charts of one simulation result (the Ensemble view): pure functions from a `SimulationResult` to figures."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from headdiv.figures import heatmaps
from headdiv.figures.theme import (
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    ENSEMBLE_COLOR,
    TRUTH_COLOR,
    fmt,
    head_color,
    head_dash,
    reference_line,
    signed_cell_labels,
    styled,
)
from headdiv.i18n import _
from headdiv.schemas.results.simulation_results import SimulationResult, SingleHead

MSE_PARTS = ("bias2", "variance", "covariance")


def decomposition_bars(result: SimulationResult) -> go.Figure:
    """Bias² + variance + covariance of the ensemble beside the single-head and big-head baselines."""
    big = result.baselines.big_head
    rows: list[tuple[str, SimulationResult | SingleHead]] = [
        (_("ensemble"), result),
        (_("single head"), result.baselines.single_head),
        (_("big head (d={dim})").format(dim=big.dim), big),
    ]
    names = [r[0] for r in rows]
    fig = go.Figure()
    for part in MSE_PARTS:
        label = _(COMPONENT_LABELS[part])
        fig.add_bar(
            x=names,
            y=[getattr(r, part, 0.0) for __, r in rows],  # a lone head has no covariance
            name=label,
            marker_color=COMPONENT_COLORS[part],
            hovertemplate="%{x}<br>" + label + " = %{y:.3g}<extra></extra>",
        )
    fig.add_scatter(
        x=names,
        y=[r.mse for __, r in rows],
        mode="markers+text",
        marker={"symbol": "line-ew-open", "size": 28, "color": COMPONENT_COLORS["mse"], "line": {"width": 3}},
        # each row to the precision of its own standard error (the baselines carry theirs), so one
        # estimator's MSE reads the same on every bar and in the hover
        text=[fmt(r.mse, r.mse_se) for __, r in rows],
        textposition="top center",
        cliponaxis=False,
        name="MSE",
        hovertemplate="%{x}<br>MSE = %{text}<extra></extra>",
    )
    fig.update_layout(barmode="relative", yaxis_title=_("error"))
    _headroom(fig, [r.mse for __, r in rows], [result.covariance])
    return styled(fig, _("MSE decomposition: ensemble vs baselines"), height=340)


def _headroom(fig: go.Figure, tops: list[float | None], lows: list[float | None]) -> None:
    """Leave room above the tallest bar for its MSE label (and below zero for a negative covariance)."""
    top = max((t for t in tops if t is not None), default=None)
    low = min([0.0, *(v for v in lows if v is not None)])
    if top is not None and top > 0:
        fig.update_yaxes(range=[low * 1.2, top * 1.18])


def per_head_mse(result: SimulationResult) -> go.Figure:
    """Each head's own MSE split into bias² and variance, with the ensemble's MSE as a line."""
    labels = [_("head {number}").format(number=h + 1) for h in range(len(result.heads))]
    fig = go.Figure()
    for part in ("bias2", "variance"):
        fig.add_bar(
            x=labels,
            y=[getattr(h, part) for h in result.heads],
            name=_(COMPONENT_LABELS[part]),
            marker_color=COMPONENT_COLORS[part],
        )
    name = _("ensemble MSE {mse}").format(mse=fmt(result.mse, result.mse_se))
    reference_line(fig, "h", result.mse, name, ENSEMBLE_COLOR, "dash", width=2)
    fig.update_layout(barmode="stack", yaxis_title="MSE")
    return styled(fig, _("Per-head MSE"), height=300)


def correlation_heatmap(result: SimulationResult, which: str = "correlation") -> go.Figure:
    """The heads' error correlation (or covariance) matrix: how much their mistakes move together."""
    z: list[list[float | None]] = [
        list(row) for row in (result.correlation_matrix if which == "correlation" else result.covariance_matrix)
    ]
    labels = [f"h{h + 1}" for h in range(len(z))]
    kw: dict[str, Any] = (
        {"zmin": -1, "zmax": 1, "colorscale": "RdBu", "reversescale": True, **signed_cell_labels(len(z))}
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
    title = _("Error correlation between heads") if which == "correlation" else _("Error covariance between heads")
    return styled(fig, title, height=320, legend=False)


def overlap_heatmap(result: SimulationResult) -> go.Figure:
    """Subspace overlap s_hh' between the simulated heads, principal angles on hover."""
    return heatmaps.overlap_heatmap(
        result.overlap_matrix, result.principal_angles_deg, _("Subspace overlap (principal angles on hover)")
    )


def slice_figure(result: SimulationResult) -> go.Figure:
    """Replicate 1 along the signal direction x = t·a: each head's fit, the ensemble and the truth."""
    sl = result.slice
    fig = go.Figure()
    for h, curve in enumerate(sl.heads):
        head = _("head {number}").format(number=h + 1)
        fig.add_scatter(
            x=sl.t,
            y=curve,
            mode="lines",
            name=_("heads") if h == 0 else head,
            line={"color": head_color(h), "width": 1.5, "dash": head_dash(h)},
            opacity=0.75,
            legendgroup="heads",
            showlegend=h == 0,
            hovertemplate=head + ": %{y:.3f}<extra></extra>",
        )
    fig.add_scatter(
        x=sl.t,
        y=sl.ensemble,
        mode="lines",
        name=_("ensemble"),
        line={"color": ENSEMBLE_COLOR, "width": 3.5},
    )
    fig.add_scatter(
        x=sl.t,
        y=sl.truth,
        mode="lines",
        name=_("truth m(t·a)"),
        line={"color": TRUTH_COLOR, "width": 2, "dash": "dash"},
    )
    fig.update_layout(xaxis_title=_("t (position along the signal direction a)"), yaxis_title=_("estimate"))
    return styled(fig, _("1-D slice: each head's fit against the truth"), height=340)
