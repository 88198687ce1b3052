"""Charts of the covariance lab: the measured inter-head covariance, its split, and Lemma 4.1's bound."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from headdiv.dashboard.figures.theme import (
    COMPONENT_COLORS,
    THEORY_COLOR,
    empty_figure,
    finite,
    fmt,
    reference_line,
    styled,
)

Result = dict[str, Any]
SHARED_COLOR = COMPONENT_COLORS["variance"]
SIGNAL_COLOR = COMPONENT_COLORS["bias2"]


def _series(result: Result, pair: int) -> tuple[str, dict[str, list[Any]]]:
    """The chosen pair's curves over θ (0: the mean over all pairs), and its name."""
    pairs = result.get("pairs") or []
    if 1 <= pair <= len(pairs):
        chosen = pairs[pair - 1]
        h, g = chosen.get("pair", [0, 1])
        return f"heads {h + 1} and {g + 1}", chosen
    return "mean over pairs", result.get("mean_pair") or {}


def split_over_theta(result: Result, pair: int = 0) -> go.Figure:
    """Measured covariance (±2 standard errors), its shared-noise part and the signal part, against θ."""
    thetas = [finite(t) for t in result.get("thetas") or []]
    name, s = _series(result, pair)
    if not thetas or not s:
        return empty_figure("no covariance yet")
    fig = go.Figure()
    fig.add_scatter(
        x=thetas,
        y=[finite(v) for v in s.get("measured", [])],
        name="measured C̄ (±2 s.e.)",
        mode="lines+markers",
        line={"color": COMPONENT_COLORS["covariance"], "width": 3},
        error_y={"type": "data", "array": [2 * (finite(v) or 0.0) for v in s.get("measured_se", [])]},
    )
    for key, label, color, dash in (
        ("shared_noise", "shared noise σ²E[Σ w w′]", SHARED_COLOR, "dash"),
        ("signal", "signal part (the rest)", SIGNAL_COLOR, "dot"),
    ):
        fig.add_scatter(
            x=thetas,
            y=[finite(v) for v in s.get(key, [])],
            name=label,
            mode="lines+markers",
            line={"color": color, "dash": dash},
        )
    level = finite(result.get("sigma2_over_n"))
    if level is not None:
        reference_line(fig, "h", level, f"σ²/n = {fmt(level)}", "#888", "dot", width=1)
    fig.add_scatter(
        x=thetas,
        y=[finite(v) for v in s.get("bound", [])],
        name="Lemma 4.1 bound",
        mode="lines",
        line={"color": THEORY_COLOR, "width": 2},
        visible="legendonly",  # often orders of magnitude above: shown on the log chart
    )
    fig.update_xaxes(title="θ (degrees)")
    fig.update_yaxes(title="covariance")
    return styled(fig, f"Inter-head covariance, {name}", height=380)


def bound_vs_truth(result: Result, pair: int = 0) -> go.Figure:
    """|measured| and the shared-noise part beside the lemma's bound, on a log scale (0 cannot be drawn: a gap)."""
    thetas = [finite(t) for t in result.get("thetas") or []]
    name, s = _series(result, pair)
    if not thetas or not s:
        return empty_figure("no covariance yet")

    def positive(values: list[Any], absolute: bool = False) -> list[float | None]:
        out = []
        for v in values:
            x = finite(v)
            x = abs(x) if (x is not None and absolute) else x
            out.append(x if x is not None and x > 0 else None)
        return out

    fig = go.Figure()
    fig.add_scatter(
        x=thetas,
        y=positive(s.get("bound", [])),
        name="Lemma 4.1 bound",
        mode="lines+markers",
        line={"color": THEORY_COLOR, "width": 3},
    )
    fig.add_scatter(
        x=thetas,
        y=positive(s.get("measured", []), absolute=True),
        name="|measured C̄|",
        mode="lines+markers",
        line={"color": COMPONENT_COLORS["covariance"]},
    )
    fig.add_scatter(
        x=thetas,
        y=positive(s.get("shared_noise", [])),
        name="shared noise",
        mode="lines",
        line={"color": SHARED_COLOR, "dash": "dash"},
    )
    fig.update_xaxes(title="θ (degrees)")
    fig.update_yaxes(title="covariance (log)", type="log")
    # the gap where the bound is 0 is explained beside the chart: a longer title wraps into the legend on a phone
    return styled(fig, f"Bound against the truth, {name}", height=380)


def pair_heatmap(result: Result, part: str = "measured") -> go.Figure:
    """One part of the split for every pair of heads at the largest angle computed."""
    matrices = result.get("matrices") or []
    thetas = result.get("thetas") or []
    if not matrices:
        return empty_figure("no covariance yet")
    full = [[finite(v) for v in row] for row in matrices[-1].get(part, [])]
    labels = [f"head {h + 1}" for h in range(len(full))]
    # The pairs are the lesson; each head's own variance (the diagonal) is an order of magnitude larger and
    # would set the colour scale, so the off-diagonal covariances set it and the diagonal is left blank
    # (its value stays in the hover text).
    z = [[None if i == j else v for j, v in enumerate(row)] for i, row in enumerate(full)]
    off = [abs(v) for row in z for v in row if v is not None]
    reach = max(off) if off and max(off) > 0 else 1.0
    text = [
        [f"variance {fmt(v)}" if i == j else f"covariance {fmt(v)}" for j, v in enumerate(row)]
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
            zmin=-reach,
            zmax=reach,
            colorbar={"thickness": 12},
        )
    )
    fig.update_yaxes(autorange="reversed")
    theta = finite(thetas[-1]) if thetas else None
    at = f" at θ = {theta:g}°" if theta is not None else ""
    return styled(fig, f"{part.replace('_', ' ')} for every pair{at}", height=320, legend=False)
