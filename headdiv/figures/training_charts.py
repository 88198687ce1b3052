"""Charts of the training lab: loss and HDI over the steps, the held-out MSE split, and one recorded step's
overlaps and principal angles (the frame the step slider picks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from headdiv.figures.heatmaps import overlap_heatmap
from headdiv.figures.theme import (
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    ENSEMBLE_COLOR,
    THEORY_COLOR,
    fmt,
    styled,
)
from headdiv.i18n import _
from headdiv.schemas.results.lab_results import TrainingResult

T = TypeVar("T")


def _marker(fig: go.Figure, result: TrainingResult, frame: int | None) -> None:
    steps = result.steps
    if frame is not None and 0 <= frame < len(steps):
        fig.add_vline(x=steps[frame], line={"color": "#999", "dash": "dot", "width": 1})


def loss_and_hdi(result: TrainingResult, frame: int | None = None) -> go.Figure:
    """Training loss (left axis, log when it spans a decade) and the heads' HDI (right axis, 0 to 1) against the step."""
    steps = result.steps
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(x=steps, y=result.loss, name=_("training loss"), line={"color": ENSEMBLE_COLOR}),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(x=steps, y=result.hdi, name="HDI", line={"color": THEORY_COLOR, "width": 3}),
        secondary_y=True,
    )
    # log where the loss spans a decade or more (then 2s and 5s: no crowded minor labels); within one decade a
    # log axis would show a single label, or none
    losses = [v for v in result.loss if v > 0]
    spans_decade = bool(losses) and max(losses) >= 10 * min(losses)
    if spans_decade:
        fig.update_yaxes(title_text=_("loss"), type="log", dtick="D2", secondary_y=False)
    else:
        fig.update_yaxes(title_text=_("loss"), secondary_y=False)
    fig.update_yaxes(title_text="HDI", range=[0, 1.02], tickmode="auto", showgrid=False, secondary_y=True)
    # The last step's tick label sits under the right axis's "0", which hangs half below the plot: set the
    # step labels lower, clear of it at any width and font size.
    fig.update_xaxes(title_text=_("step"), ticklabelstandoff=12)
    _marker(fig, result, frame)
    return styled(fig, _("Training loss and head diversity"))


def mse_split(result: TrainingResult, frame: int | None = None) -> go.Figure:
    """Held-out MSE and its bias² / variance / covariance against the step."""
    fig = go.Figure()
    for key in ("mse", "bias2", "variance", "covariance"):
        fig.add_trace(
            go.Scatter(
                x=result.steps,
                y=getattr(result, key),
                name=_(COMPONENT_LABELS[key]),
                line={"color": COMPONENT_COLORS[key], "width": 3 if key == "mse" else 2},
            )
        )
    fig.update_xaxes(title_text=_("step"))
    fig.update_yaxes(title_text=_("error"))  # held-out, as the title says: short enough for a phone
    _marker(fig, result, frame)
    return styled(fig, _("Held-out MSE = bias² + variance + covariance"))


def _at(values: Sequence[T], frame: int) -> T | None:
    """The value recorded at `frame` (None past the ends)."""
    return values[frame] if 0 <= frame < len(values) else None


def overlap_at(result: TrainingResult, frame: int) -> go.Figure:
    """The overlap heatmap of one recorded step."""
    step = _at(result.steps, frame)
    title = _("Overlaps at step {step} (HDI {hdi})").format(
        step="?" if step is None else step, hdi=fmt(_at(result.hdi, frame))
    )
    overlap, angles = _at(result.overlap, frame), _at(result.angles, frame)
    return overlap_heatmap(overlap or [], angles or [], title)


def angles_at(result: TrainingResult, frame: int) -> go.Figure:
    """Each listed pair's principal angles (degrees) at one recorded step."""
    pairs = _at(result.angles, frame) or []
    fig = go.Figure()
    most = max((len(p.angles) for p in pairs), default=0)
    labels = [f"h{p.pair[0] + 1}·h{p.pair[1] + 1}" for p in pairs]
    for k in range(most):
        fig.add_trace(
            go.Bar(
                x=labels,
                y=[p.angles[k] if k < len(p.angles) else None for p in pairs],
                name=_("angle {number}").format(number=k + 1),
            )
        )
    fig.update_yaxes(title_text=_("degrees"), range=[0, 92])
    fig.update_layout(barmode="group")
    return styled(fig, _("Principal angles between heads"), legend=most <= 8)
