"""Charts of the covariance lab: the measured inter-head covariance, its split, and Lemma 4.1's bound."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures.theme import (
    COMPONENT_COLORS,
    THEORY_COLOR,
    empty_figure,
    fmt,
    reference_line,
    signed_cell_labels,
    styled,
)
from headdiv.i18n import N_, _
from headdiv.schemas.results.lab_results import CovarianceResult, CovarianceSeries

SHARED_COLOR = COMPONENT_COLORS["variance"]
SIGNAL_COLOR = COMPONENT_COLORS["bias2"]
PAIR_TITLES: dict[str, str] = {
    "measured": N_("measured for every pair"),
    "shared_noise": N_("shared noise for every pair"),
    "signal": N_("signal for every pair"),
}
"""The pair heatmap's title for each part of the split, marked for the catalogue."""


def _series(result: CovarianceResult, pair: int) -> tuple[str, CovarianceSeries]:
    """The chosen pair's curves over θ (0: the mean over all pairs), and its name."""
    if 1 <= pair <= len(result.pairs):
        chosen = result.pairs[pair - 1]
        h, g = chosen.pair
        return _("heads {first} and {second}").format(first=h + 1, second=g + 1), chosen
    return _("mean over pairs"), result.mean_pair


def split_over_theta(result: CovarianceResult, pair: int = 0) -> go.Figure:
    """Measured covariance (±2 standard errors), its shared-noise part and the signal part, against θ."""
    thetas = result.thetas
    name, s = _series(result, pair)
    if not thetas:
        return empty_figure(_("no covariance yet"))
    fig = go.Figure()
    fig.add_scatter(
        x=thetas,
        y=s.measured,
        name=_("measured C̄ (±2 s.e.)"),
        mode="lines+markers",
        line={"color": COMPONENT_COLORS["covariance"], "width": 3},
        error_y={"type": "data", "array": [2 * v for v in s.measured_se]},
    )
    for key, label, color, dash in (
        ("shared_noise", N_("shared noise σ²E[Σ w w′]"), SHARED_COLOR, "dash"),
        ("signal", N_("signal part (the rest)"), SIGNAL_COLOR, "dot"),
    ):
        fig.add_scatter(
            x=thetas,
            y=getattr(s, key),
            name=_(label),
            mode="lines+markers",
            line={"color": color, "dash": dash},
        )
    level = result.sigma2_over_n
    reference_line(fig, "h", level, f"σ²/n = {fmt(level)}", "#888", "dot", width=1)
    fig.add_scatter(
        x=thetas,
        y=s.bound,
        name=_("Lemma 4.1 bound"),
        mode="lines",
        line={"color": THEORY_COLOR, "width": 2},
        visible="legendonly",  # often orders of magnitude above: shown on the log chart
    )
    fig.update_xaxes(title=_("θ (degrees)"))
    fig.update_yaxes(title=_("covariance"))
    return styled(fig, _("Inter-head covariance, {pair}").format(pair=name), height=380)


def bound_vs_truth(result: CovarianceResult, pair: int = 0) -> go.Figure:
    """|measured| and the shared-noise part beside the lemma's bound, on a log scale (0 cannot be drawn: a gap)."""
    thetas = result.thetas
    name, s = _series(result, pair)
    if not thetas:
        return empty_figure(_("no covariance yet"))

    def positive(values: list[float], absolute: bool = False) -> list[float | None]:
        return [x if x > 0 else None for x in ((abs(v) if absolute else v) for v in values)]

    fig = go.Figure()
    fig.add_scatter(
        x=thetas,
        y=positive(s.bound),
        name=_("Lemma 4.1 bound"),
        mode="lines+markers",
        line={"color": THEORY_COLOR, "width": 3},
    )
    fig.add_scatter(
        x=thetas,
        y=positive(s.measured, absolute=True),
        name=_("|measured C̄|"),
        mode="lines+markers",
        line={"color": COMPONENT_COLORS["covariance"]},
    )
    fig.add_scatter(
        x=thetas,
        y=positive(s.shared_noise),
        name=_("shared noise"),
        mode="lines",
        line={"color": SHARED_COLOR, "dash": "dash"},
    )
    fig.update_xaxes(title=_("θ (degrees)"))
    fig.update_yaxes(title=_("covariance (log)"), type="log")
    # the gap where the bound is 0 is explained beside the chart: a longer title wraps into the legend on a phone
    return styled(fig, _("Bound against the truth, {pair}").format(pair=name), height=380)


def pair_heatmap(result: CovarianceResult, part: str = "measured") -> go.Figure:
    """One part of the split for every pair of heads at the largest angle computed."""
    if not result.matrices:
        return empty_figure(_("no covariance yet"))
    full: list[list[float]] = getattr(result.matrices[-1], part)
    labels = [_("head {number}").format(number=h + 1) for h in range(len(full))]
    # The pairs are the lesson; each head's own variance (the diagonal) is an order of magnitude larger and
    # would set the colour scale, so the off-diagonal covariances set it and the diagonal is left blank
    # (its value stays in the hover text).
    z: list[list[float | None]] = [[None if i == j else v for j, v in enumerate(row)] for i, row in enumerate(full)]
    off = [abs(v) for row in z for v in row if v is not None]
    reach = max(off) if off and max(off) > 0 else 1.0
    text = [
        [
            _("variance {value}").format(value=fmt(v)) if i == j else _("covariance {value}").format(value=fmt(v))
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(full)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            text=text,
            hovertemplate="%{y} · %{x}: %{text}<extra></extra>",
            colorscale="RdBu",
            **signed_cell_labels(len(z), digits=3),
            zmin=-reach,
            zmax=reach,
            colorbar={"thickness": 12},
        )
    )
    fig.update_yaxes(autorange="reversed")
    title = _(PAIR_TITLES[part]) if part in PAIR_TITLES else f"{part.replace('_', ' ')} for every pair"
    if result.thetas:
        title = _("{title} at θ = {theta}°").format(title=title, theta=f"{result.thetas[-1]:g}")
    return styled(fig, title, height=320, legend=False)
