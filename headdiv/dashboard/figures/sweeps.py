"""Charts of the long computations: surfaces, diversity sweeps, architectures and theory curves."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from headdiv.dashboard.figures.theme import (
    BEST_COLOR,
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    THEORY_COLOR,
    finite,
    fmt,
    styled,
)
from headdiv.workers.schemas import Scenario
from headdiv.workers.schemas.metrics import SURFACE_METRICS

Result = dict[str, Any]


def _axis(result: Result, key: str) -> tuple[str, list[Any]]:
    axis = result.get(key) or {}
    return str(axis.get("param", key)), list(axis.get("values") or [])


def param_title(param: str) -> str:
    """A swept key as the sidebar names it (its scenario field's title), not its URL name."""
    field = Scenario.model_fields.get(param)
    return field.title if field is not None and field.title else param


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
    label = SURFACE_METRICS.get(metric, metric)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[_label(v) for v in xv],
            y=[_label(v) for v in yv],
            colorscale="Viridis",
            colorbar={"title": {"text": label, "side": "right"}, "thickness": 12},
            hovertemplate=f"{param_title(xp)} = %{{x}}<br>{param_title(yp)} = %{{y}}<br>{label} = %{{z:.3g}}<extra></extra>",
        )
    )
    fig.update_xaxes(title=param_title(xp), type="category")
    fig.update_yaxes(title=param_title(yp), type="category")
    return styled(fig, f"{label} over {param_title(xp)} × {param_title(yp)}", height=420, legend=False)


def surface_3d(result: Result, metric: str = "mse") -> go.Figure:
    """The same grid as a 3-D surface, to see the shape of the valley."""
    xp, xv = _axis(result, "x")
    yp, yv = _axis(result, "y")
    label = SURFACE_METRICS.get(metric, metric)
    fig = go.Figure(
        go.Surface(
            z=_grid(result, metric),
            x=xv,
            y=yv,
            colorscale="Viridis",
            colorbar={"title": {"text": label, "side": "right"}, "thickness": 12},
        )
    )
    fig.update_layout(
        scene={"xaxis_title": param_title(xp), "yaxis_title": param_title(yp), "zaxis_title": label},
        margin={"l": 0, "r": 0, "t": 48, "b": 0},
    )
    return styled(fig, f"{label} surface", height=460, legend=False)


def _decomposition(fig: go.Figure, x: list[Any], records: list[Result], *, bars: bool, **mse_style: Any) -> None:
    """Each record's bias², variance and covariance (stacked bars, or thin lines), then its Monte Carlo MSE
    with ±1 standard error."""
    for part in ("bias2", "variance", "covariance"):
        y = [finite(r.get(part)) for r in records]
        color, name = COMPONENT_COLORS[part], COMPONENT_LABELS[part]
        if bars:
            fig.add_bar(x=x, y=y, name=name, marker_color=color, opacity=0.85)
        else:
            fig.add_scatter(x=x, y=y, mode="lines", name=name, line={"color": color, "width": 1.5}, opacity=0.8)
    errors = [finite(r.get("mse_se")) or 0.0 for r in records]
    fig.add_scatter(
        x=x,
        y=[finite(r.get("mse")) for r in records],
        name="MSE (Monte Carlo)",
        error_y={"type": "data", "array": errors, "visible": True},
        **mse_style,
    )


def mse_vs_hdi(result: Result) -> go.Figure:
    """MSE and its parts against HDI over the theta sweep, with the paper's bound (4.4) fitted over it."""
    points = result.get("points") or []
    hdi = [finite(p.get("hdi")) for p in points]
    thetas = [finite(p.get("theta")) for p in points]
    fig = go.Figure()
    _decomposition(
        fig,
        hdi,
        points,
        bars=False,
        mode="lines+markers",
        line={"color": COMPONENT_COLORS["mse"], "width": 3},
        customdata=thetas,
        hovertemplate="θ = %{customdata}°<br>HDI = %{x:.3f}<br>MSE = %{y:.3g}<extra></extra>",
    )
    bound = result.get("bound") or {}
    if bound.get("values"):
        holds = result.get("holds")
        name = "bound (4.4), tightest" + ("" if holds is None else (": holds" if holds else ": violated"))
        fig.add_scatter(
            x=hdi,
            y=[finite(v) for v in bound["values"]],
            mode="lines",
            name=name,
            line={"color": THEORY_COLOR, "width": 2.5, "dash": "dash"},
        )
    # short axis titles: the two regimes share a projector's width side by side (the view explains HDI)
    fig.update_layout(xaxis_title="HDI", yaxis_title="error")
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
    fig.update_layout(xaxis_title="1 − HDI (overlap)", yaxis_title="mean error correlation")
    return styled(fig, "Error correlation against overlap", height=380)


def _ring(fig: go.Figure, x: Any, y: float | None, name: str, color: str, symbol: str) -> None:
    """A split marked by an open ring around its point, named in the legend: a text label beside the point
    would sit on the bars, the error bars or the theory line wherever that split falls."""
    fig.add_scatter(
        x=[x],
        y=[y],
        mode="markers",
        name=name,
        marker={"symbol": symbol, "size": 20, "color": color, "line": {"width": 2.5, "color": color}},
        hoverinfo="name",
    )


def architecture_mse(result: Result) -> go.Figure:
    """Monte Carlo MSE of every split H × d_k = D, the best marked, the fitted theory curve over it."""
    cands = result.get("candidates") or []
    labels = [f"{c.get('H')}×{c.get('d_k')}" for c in cands]
    fig = go.Figure()
    _decomposition(fig, labels, cands, bars=True, mode="markers", marker={"color": COMPONENT_COLORS["mse"], "size": 9})
    theory = result.get("theory") or {}
    tc = {(c.get("H"), c.get("d_k")): c.get("mse") for c in theory.get("candidates") or []}
    if tc:
        fitted = (
            "theory, fitted: degenerate (see below)" if theory.get("degenerate") else "theory, fitted (formula below)"
        )
        fig.add_scatter(
            x=labels,
            y=[finite(tc.get((c.get("H"), c.get("d_k")))) for c in cands],
            mode="lines+markers",
            name=fitted,
            line={"color": THEORY_COLOR, "dash": "dash", "width": 2.5},
        )
    best = result.get("best") or {}
    for c, label in zip(cands, labels, strict=True):
        if c.get("H") == best.get("H") and c.get("d_k") == best.get("d_k"):
            so_far = "best so far" if any(c.get("mse") is None for c in cands) else "best"
            _ring(fig, label, finite(c.get("mse")), f"{so_far} (Monte Carlo): {label}", BEST_COLOR, "circle-open")
    tb = theory.get("best") or {}
    if tb:
        tlabel = f"{tb.get('H')}×{tb.get('d_k')}"
        if tlabel in labels:
            y = finite(tc.get((tb.get("H"), tb.get("d_k"))))
            _ring(fig, tlabel, y, f"best (theory): {tlabel}", THEORY_COLOR, "diamond-open")
    fig.update_layout(barmode="relative", xaxis_title="split H × d<sub>k</sub>", yaxis_title="error")
    fig.update_yaxes(rangemode="nonnegative")  # errors are never negative: the axis starts at 0
    return styled(fig, f"Every split of the budget D = {result.get('budget', '?')}", height=400)


def architecture_formula(result: Result) -> str:
    """The fitted curve as MathJax, with its constants, and why no optimum is claimed when the fit is degenerate."""
    theory = result.get("theory") or {}
    c0, c1, c2 = (_tex(fmt(theory.get(k))) for k in ("c0", "c1", "c2"))
    text = (
        "Theory fitted to the Monte Carlo: "
        r"$\mathrm{MSE}(d_k) \approx c_0 + c_1\, d_k^{-2} + c_2\, \dfrac{d_k^{d_k/2+1}}{nD}$ "
        f"with $c_0 = {c0}$ (the floor no split removes), $c_1 = {c1}$, $c_2 = {c2}$."
    )
    why = theory.get("degenerate")
    if why:
        text += (
            f" **The fit is degenerate** ({why}), so no theoretical optimum is marked: the closed-form chart"
            " below draws the paper's objective at $c_1 = c_2 = 1$ instead, beside the Monte Carlo's best split."
        )
    return text


def _tex(shown: str) -> str:
    """A number as `fmt` shows it, in TeX: 1.90e-22 becomes 1.90 \\times 10^{-22}."""
    if "e" not in shown:
        return shown
    mantissa, exponent = shown.split("e", 1)
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def theory_curves(
    theory: Result, *, fitted: bool = True, best: Result | None = None, n: Any = None, budget: Any = None
) -> go.Figure:
    """The closed-form optimum: d_k*(n) beside the paper's stated rate, and H*(D); the Monte Carlo's best
    split (`best`, measured at `n` and `budget`) as a point on each.

    `fitted` says whether `theory` was computed with constants fitted to the Monte Carlo. A degenerate fit
    has no optimum (docs/model.md section 7: its minimum is an end of the range), so the view passes the
    paper's unit constants instead and the chart says so in its title and legend.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=("d<sub>k</sub>* against n", "H* against D"))
    dk = theory.get("dk_star_vs_n") or {}
    hs = theory.get("h_star_vs_budget") or {}
    which = "of the fitted objective" if fitted else "at c₁ = c₂ = 1, not fitted"
    curves = [
        (1, dk.get("n"), dk.get("d_k"), f"d<sub>k</sub>* {which}", {"color": THEORY_COLOR, "shape": "hv"}),
        (
            1,
            dk.get("n"),
            dk.get("stated_rate"),
            f"stated rate (log n)<sup>2/(4+d)</sup>, d = {dk.get('stated_rate_d', 1)}: reference",
            {"color": "#adb5bd", "dash": "dot"},
        ),
        (2, hs.get("budget"), hs.get("H"), f"H* {which}", {"color": BEST_COLOR, "shape": "hv"}),
    ]
    for col, x, y, name, line in curves:
        if y:
            mode = "lines" if "dash" in line else "lines+markers"
            fig.add_scatter(x=x or [], y=[finite(v) for v in y], mode=mode, name=name, line=line, row=1, col=col)
    if best and finite(n) is not None and finite(budget) is not None:
        name = f"best split (Monte Carlo) at n = {int(n)}, D = {int(budget)}"
        for col, x, y in ((1, n, best.get("d_k")), (2, budget, best.get("H"))):
            fig.add_scatter(
                x=[x],
                y=[finite(y)],
                mode="markers",
                name=name,
                legendgroup="mc-best",
                showlegend=col == 1,
                marker={"symbol": "star", "size": 14, "color": COMPONENT_COLORS["mse"]},
                row=1,
                col=col,
            )
    fig.update_xaxes(type="log", dtick=2, title_text="n", row=1, col=1)  # every 100x: labels never crowd
    fig.update_xaxes(type="log", dtick=1, title_text="D", row=1, col=2)
    fig.update_yaxes(title_text="d<sub>k</sub>*", row=1, col=1)
    # H* spans 1 to thousands of heads: on a log axis the small budgets (and the Monte Carlo's star) stay visible
    fig.update_yaxes(title_text="H*", type="log", dtick=1, row=1, col=2)
    title = (
        "Closed-form optimum of the fitted objective" if fitted else "Closed-form optimum, c₁ = c₂ = 1 (fit degenerate)"
    )
    styled(fig, title, height=400)
    fig.update_layout(
        # below the axis titles, anchored to the figure's bottom (assets/fit_charts.js makes room if it wraps)
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0.0, "x": 0.0, "xanchor": "left"},
        margin={"t": 60, "b": 96},
    )
    return fig
