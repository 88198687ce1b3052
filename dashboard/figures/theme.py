"""Colours and layout shared by every chart, so a component has one colour everywhere.

Bias^2, variance and covariance keep their colours across views (a reader learns them once); heads
use one qualitative palette; the truth is always a dashed dark line.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

COMPONENT_COLORS: dict[str, str] = {
    "bias2": "#d1495b",
    "variance": "#2e86ab",
    "covariance": "#edae49",
    "mse": "#3d405b",
}
COMPONENT_LABELS: dict[str, str] = {
    "bias2": "Bias²",
    "variance": "Variance",
    "covariance": "Covariance",
    "mse": "MSE",
}
HEAD_COLORS: tuple[str, ...] = (
    "#4C78A8",
    "#F58518",
    "#54A24B",
    "#B279A2",
    "#E45756",
    "#72B7B2",
    "#EECA3B",
    "#9D755D",
    "#FF9DA6",
    "#BAB0AC",
)
TRUTH_COLOR = "#222222"
ENSEMBLE_COLOR = "#3d405b"
BEST_COLOR = "#2a9d8f"
THEORY_COLOR = "#8d6cab"
FONT = "Inter, 'Segoe UI', system-ui, -apple-system, sans-serif"


def head_color(h: int) -> str:
    return HEAD_COLORS[h % len(HEAD_COLORS)]


def styled(fig: go.Figure, title: str, *, height: int = 320, legend: bool = True) -> go.Figure:
    """Apply the house style: white background, light grid, title top-left, legend on top."""
    fig.update_layout(
        template="plotly_white",
        title={
            "text": title,
            "x": 0.01,
            "xanchor": "left",
            "y": 0.98,
            "yanchor": "top",
            "yref": "container",
            "font": {"size": 15},
        },
        font={"family": FONT, "size": 12, "color": "#2b2d42"},
        height=height,
        margin={"l": 56, "r": 16, "t": 78 if legend else 48, "b": 44},
        showlegend=legend,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0, "font": {"size": 11}},
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="white",
        hoverlabel={"font": {"family": FONT}},
    )
    return fig


def empty_figure(message: str, *, height: int = 320) -> go.Figure:
    """A blank chart carrying a message, used before the first result and when there is nothing to show."""
    fig = go.Figure()
    fig.add_annotation(
        text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper", font={"size": 14, "color": "#6c757d"}
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return styled(fig, "", height=height, legend=False)


def finite(x: Any) -> float | None:
    """A number for a chart, or None (a gap) for null, NaN or infinity: never NaN on screen."""
    if x is None or isinstance(x, bool):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def fmt(x: Any, digits: int = 4) -> str:
    """A headline number, or an em dash when it is missing or not finite."""
    v = finite(x)
    if v is None:
        return "—"
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        return f"{v:.{max(digits - 1, 1)}e}"
    return f"{v:.{digits}g}"
