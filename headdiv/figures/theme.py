"""Colours and layout shared by every chart, so a component has one colour everywhere.

Bias^2, variance and covariance keep their colours across views (a reader learns them once); heads
use one qualitative palette; the truth is always a dashed dark line.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from headdiv.i18n import N_

COMPONENT_COLORS: dict[str, str] = {
    "bias2": "#d1495b",
    "variance": "#2e86ab",
    "covariance": "#c0841f",
    "mse": "#3d405b",
}
COMPONENT_LABELS: dict[str, str] = {
    "bias2": N_("Bias²"),
    "variance": N_("Variance"),
    "covariance": N_("Covariance"),
    "mse": "MSE",
}
"""The components' names in English, marked for the catalogue: a chart shows `_(COMPONENT_LABELS[part])`."""
MSE_NAME = N_("MSE ± s.e.")
"""The Monte Carlo MSE with its standard error bars, in sweeps' legends: short, so that a legend beside a
theory curve keeps several entries a row on a projector (the hover says Monte Carlo in full)."""
HEAD_COLORS: tuple[str, ...] = (
    "#3C5699",
    "#B82E0F",
    "#228833",
    "#CC79A7",
    "#785EF0",
    "#661A08",
    "#EE6677",
    "#8F4753",
)
"""Heads' colours, told apart by readers with any of the three common colour-vision deficiencies: under
Machado et al.'s (2009) full-severity protanopia, deuteranopia and tritanopia, every two of them, and each
against the truth's and the ensemble's dark lines, stay at least 15 apart in CIELAB (ΔE*ab, CIE 1976), and
each has 3:1 contrast against the white plot (WCAG 1.4.11); tests/test_palettes.py checks both. Heads past
the eighth take the same colours again with a dash (`head_dash`), so colour is never all that tells them apart."""
TRUTH_COLOR = "#222222"
ENSEMBLE_COLOR = "#3d405b"
BEST_COLOR = "#1a6e1a"
THEORY_COLOR = "#7b2d8e"
FONT = "Inter, 'Segoe UI', system-ui, -apple-system, sans-serif"


def head_color(h: int) -> str:
    return HEAD_COLORS[h % len(HEAD_COLORS)]


SIGNED_LABELS_UP_TO = 8
"""A signed heatmap (a diverging colour scale) of at most this many rows writes each cell's value in it, so
that a sign is read from a minus, not only from red against blue; larger ones keep it in the hover."""


def signed_cell_labels(n: int, digits: int = 2) -> dict[str, Any]:
    """Heatmap properties that print each cell's value, for an n-by-n signed matrix small enough to read."""
    if n > SIGNED_LABELS_UP_TO:
        return {}
    return {"texttemplate": f"%{{z:.{digits}f}}", "textfont": {"size": 10}}


HEAD_DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot")


def head_dash(h: int) -> str:
    """A head's line style: a new one each time the colours come round again."""
    return HEAD_DASHES[(h // len(HEAD_COLORS)) % len(HEAD_DASHES)]


HOUSE_LAYOUT: dict[str, Any] = {
    "title": {"x": 0.01, "xanchor": "left", "y": 0.98, "yanchor": "top", "yref": "container", "font": {"size": 15}},
    "font": {"family": FONT, "size": 12, "color": "#2b2d42"},
    "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0, "font": {"size": 11}},
    "paper_bgcolor": "rgba(0,0,0,0)",
    "plot_bgcolor": "white",
    "hoverlabel": {"font": {"family": FONT}},
}
"""The house style: white background, light grid, title top-left, legend on top. It lives in the template,
so a figure carries it without validating it again."""


def _template() -> go.layout.Template:
    """Plotly's `plotly_white`, cut to its layout and the trace types the charts draw (the whole template,
    with defaults for every trace type, cost 50-100 ms to validate per figure), plus the house style."""
    white = pio.templates["plotly_white"]
    kinds = ("bar", "box", "heatmap", "histogram", "scatter", "surface")
    template = go.layout.Template(layout=white.layout, data={k: getattr(white.data, k) for k in kinds})
    template.layout.update(HOUSE_LAYOUT)
    return template


TEMPLATE = _template()
pio.templates["headdiv"] = TEMPLATE
pio.templates.default = "headdiv"
"""Every figure starts from the house template as Plotly's default: a new figure takes the default
without validating it again, where setting `template=` on each figure cost half of a redraw."""


def styled(fig: go.Figure, title: str, *, height: int = 320, legend: bool = True) -> go.Figure:
    """A chart's own frame on the house style (the template): its title, height, margins and legend.

    Set property by property: `update_layout` with nested dicts took 5 ms a figure, most of drawing one.
    """
    layout = fig.layout
    layout.title.text = title
    layout.height = height
    margin = layout.margin
    margin.l, margin.r, margin.t, margin.b = 56, 16, 78 if legend else 48, 44
    layout.showlegend = legend
    return fig


def reference_line(fig: go.Figure, along: str, at: float, name: str, color: str, dash: str, width: float = 1.5) -> None:
    """A line across the plot at `at` (`h`: a value of y, `v`: of x), with its legend entry (an empty trace
    drawn in the line's style): named in the legend, never by text on the plot, where it would sit on
    the data."""
    line = {"color": color, "dash": dash, "width": width}
    if along == "h":
        fig.add_hline(y=at, line=line)
    else:
        fig.add_vline(x=at, line=line)
    fig.add_scatter(x=[None], y=[None], mode="lines", name=name, line=line, hoverinfo="skip")


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


SIGNIFICANT = 3
"""Significant digits of a number shown without a standard error (an exact quantity, or one whose error
the result does not carry)."""
SE_DIGITS = 2
"""Significant digits of a standard error; its estimate is shown to the same last decimal place."""


def _decimals(se: float) -> int:
    """Decimal places that show `se` with `SE_DIGITS` significant digits (negative: tens, hundreds...)."""
    return SE_DIGITS - 1 - math.floor(math.log10(se))


def _at_decimals(v: float, decimals: int) -> str:
    if 1e-3 <= abs(v) < 1e5 and 0 <= decimals <= 8:
        return f"{v:.{decimals}f}"
    exponent = math.floor(math.log10(abs(v))) if v != 0 else 0
    digits = max(exponent + decimals, 0)
    return f"{v:.{digits}e}"


def fmt(x: Any, se: Any = None) -> str:
    """The dashboard's one rule for showing a number (headline, bar labels, legends, notes, tables).

    With a standard error `se`, the number is shown to the precision its error supports: the error's
    first `SE_DIGITS` significant digits fix the last decimal place. Without one, `SIGNIFICANT`
    significant digits, trailing zeros kept (0.410 beside 0.404), except for a value that is exact in
    fewer digits (0.75, 1, 0). Missing, NaN or infinite: an em dash.
    """
    v = finite(x)
    if v is None:
        return "—"
    s = finite(se)
    if s is not None and s > 0 and v != 0:
        return _at_decimals(v, _decimals(s))
    if v == 0:
        return "0"
    short = f"{v:.{SIGNIFICANT}g}"
    if abs(float(short) - v) <= 1e-9 * abs(v):
        return short
    out = f"{v:#.{SIGNIFICANT}g}"
    return out[:-1] if out.endswith(".") else out


def fmt_se(x: Any, se: Any) -> str:
    """An estimate with its standard error, both to the estimate's supported precision: `0.412 ± 0.013`."""
    s = finite(se)
    if s is None or s <= 0 or finite(x) is None:
        return fmt(x)
    d = _decimals(s)
    err = f"{s:.{d}f}" if 0 <= d <= 8 else f"{s:.{SE_DIGITS - 1}e}"
    return f"{fmt(x, s)} ± {err}"
