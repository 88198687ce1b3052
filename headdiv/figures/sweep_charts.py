"""Charts of the long computations: surfaces, diversity sweeps, architectures and theory curves."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from headdiv.figures.theme import (
    BEST_COLOR,
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    MSE_NAME,
    THEORY_COLOR,
    finite,
    fmt,
    styled,
)
from headdiv.figures.verdict_sentences import read_fit
from headdiv.i18n import _
from headdiv.schemas import Scenario
from headdiv.schemas.metrics import SURFACE_METRICS
from headdiv.schemas.results.report_results import TheoryReport
from headdiv.schemas.results.result_parts import Split
from headdiv.schemas.results.sweep_results import ArchitectureResult, CellTerms, DiversitySweepResult, SurfaceResult


def param_title(param: str) -> str:
    """A swept key as the sidebar names it (its scenario field's title), not its URL name."""
    field = Scenario.model_fields.get(param)
    return field.title if field is not None and field.title else param


def _label(v: Any) -> str:
    """Axis label of a swept value: 45 not 45.0, 0.25 as is."""
    x = finite(v)
    return str(v) if x is None else f"{x:g}"


def surface_heatmap(result: SurfaceResult, metric: str = "mse") -> go.Figure:
    """One metric over the two swept keys as a heatmap (z[i][j] at y[i], x[j]); categorical axes keep
    uneven grids (e.g. n = 32, 64, ..., 4096) evenly spaced and readable."""
    xp, xv = result.x.param, result.x.values
    yp, yv = result.y.param, result.y.values
    z = result.metrics.get(metric, [])
    # the metric's and the swept keys' names are marked where they are defined (schemas)
    label = _(SURFACE_METRICS.get(metric, metric))
    xt, yt = _(param_title(xp)), _(param_title(yp))
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[_label(v) for v in xv],
            y=[_label(v) for v in yv],
            colorscale="Viridis",
            colorbar={"title": {"text": label, "side": "right"}, "thickness": 12},
            hovertemplate=f"{xt} = %{{x}}<br>{yt} = %{{y}}<br>{label} = %{{z:.3g}}<extra></extra>",
        )
    )
    fig.update_xaxes(title=xt, type="category")
    fig.update_yaxes(title=yt, type="category")
    title = _("{metric} over {x} × {y}").format(metric=label, x=xt, y=yt)
    return styled(fig, title, height=420, legend=False)


def surface_3d(result: SurfaceResult, metric: str = "mse") -> go.Figure:
    """The same grid as a 3-D surface, to see the shape of the valley."""
    xp, xv = result.x.param, result.x.values
    yp, yv = result.y.param, result.y.values
    label = _(SURFACE_METRICS.get(metric, metric))
    fig = go.Figure(
        go.Surface(
            z=result.metrics.get(metric, []),
            x=xv,
            y=yv,
            colorscale="Viridis",
            colorbar={"title": {"text": label, "side": "right"}, "thickness": 12},
        )
    )
    fig.update_layout(
        scene={"xaxis_title": _(param_title(xp)), "yaxis_title": _(param_title(yp)), "zaxis_title": label},
        margin={"l": 0, "r": 0, "t": 48, "b": 0},
    )
    return styled(fig, _("{metric} surface").format(metric=label), height=460, legend=False)


def _decomposition(fig: go.Figure, x: list[Any], records: list[CellTerms], *, bars: bool, **mse_style: Any) -> None:
    """Each record's bias², variance and covariance (stacked bars, or thin lines), then its Monte Carlo MSE
    with ±1 standard error (null where a cell is not done yet: a gap)."""
    for part in ("bias2", "variance", "covariance"):
        y = [getattr(r, part) for r in records]
        color, name = COMPONENT_COLORS[part], _(COMPONENT_LABELS[part])
        if bars:
            fig.add_bar(x=x, y=y, name=name, marker_color=color, opacity=0.85)
        else:
            fig.add_scatter(x=x, y=y, mode="lines", name=name, line={"color": color, "width": 1.5}, opacity=0.8)
    errors = [r.mse_se or 0.0 for r in records]
    fig.add_scatter(
        x=x,
        y=[r.mse for r in records],
        name=_(MSE_NAME),
        error_y={"type": "data", "array": errors, "visible": True},
        **mse_style,
    )


def mse_vs_hdi(result: DiversitySweepResult) -> go.Figure:
    """MSE and its parts against HDI over the theta sweep, with the paper's bound (4.4) fitted over it."""
    points = result.points
    hdi = [p.hdi for p in points]
    thetas = [p.theta for p in points]
    fig = go.Figure()
    _decomposition(
        fig,
        hdi,
        list(points),
        bars=False,
        mode="lines+markers",
        line={"color": COMPONENT_COLORS["mse"], "width": 3},
        customdata=thetas,
        hovertemplate="θ = %{customdata}°<br>HDI = %{x:.3f}<br>" + _("Monte Carlo MSE = %{y:.3g}") + "<extra></extra>",
    )
    if any(v is not None for v in result.bound.values):
        # the legend stays short (two regimes share a projector's width); whether it holds is the verdict's
        status = _("tightest bound (4.4), holds") if result.holds else _("tightest bound (4.4), violated")
        fig.add_scatter(
            x=hdi,
            y=result.bound.values,
            mode="lines",
            name=_("bound (4.4)"),
            hovertemplate=status + "<br>HDI = %{x:.3f}<br>" + _("bound = %{y:.3g}") + "<extra></extra>",
            line={"color": THEORY_COLOR, "width": 2.5, "dash": "dash"},
        )
    # short axis titles: the two regimes share a projector's width side by side (the view explains HDI)
    fig.update_layout(xaxis_title="HDI", yaxis_title=_("error"))
    return styled(fig, _("MSE against head diversity"), height=380)


def correlation_vs_overlap(result: DiversitySweepResult) -> go.Figure:
    """Mean error correlation against 1 − HDI: the paper's link between subspace overlap and correlation."""
    points = result.points
    x = [None if p.hdi is None else 1.0 - p.hdi for p in points]
    fig = go.Figure()
    fig.add_scatter(
        x=x,
        y=[p.mean_correlation for p in points],
        mode="lines+markers",
        name=_("mean correlation"),
        line={"color": COMPONENT_COLORS["covariance"], "width": 3},
        customdata=[p.theta for p in points],
        hovertemplate="θ = %{customdata}°<br>1 − HDI = %{x:.3f}<br>ρ̄ = %{y:.3f}<extra></extra>",
    )
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="ρ̄ = 1 − HDI", line={"color": "#adb5bd", "dash": "dot"})
    fig.update_layout(xaxis_title=_("1 − HDI (overlap)"), yaxis_title=_("mean error correlation"))
    return styled(fig, _("Error correlation against overlap"), height=380)


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


def architecture_mse(result: ArchitectureResult) -> go.Figure:
    """Monte Carlo MSE of every split H × d_k = D, the best marked, the fitted theory curve over it."""
    cands = result.candidates
    labels = [f"{c.H}×{c.d_k}" for c in cands]
    fig = go.Figure()
    _decomposition(
        fig,
        labels,
        list(cands),
        bars=True,
        mode="markers",
        marker={"color": COMPONENT_COLORS["mse"], "size": 9},
        hovertemplate="%{x}<br>" + _("Monte Carlo MSE = %{y:.3g}") + "<extra></extra>",
    )
    theory = result.theory
    tc = {(c.H, c.d_k): c.mse for c in theory.candidates}
    if tc:
        fitted = _("theory (degenerate)") if theory.degenerate else _("theory (fitted)")
        fig.add_scatter(
            x=labels,
            y=[tc.get((c.H, c.d_k)) for c in cands],
            mode="lines+markers",
            name=fitted,
            line={"color": THEORY_COLOR, "dash": "dash", "width": 2.5},
        )
    best = result.best
    for c, label in zip(cands, labels, strict=True):
        if best is not None and (c.H, c.d_k) == (best.H, best.d_k):
            so_far = _("best so far: {split}") if any(c.mse is None for c in cands) else _("best: {split}")
            _ring(fig, label, c.mse, so_far.format(split=label), BEST_COLOR, "circle-open")
    # the theory's best is ringed only where its curve has a trade-off to show, as the verdict under the chart
    # says (`verdicts.read_fit`): a minimum at an end of the range, or on a flat curve, is no optimum
    reading = read_fit(result)
    tb = theory.best
    if tb is not None and (reading is None or reading.names_best):
        tlabel = f"{tb.H}×{tb.d_k}"
        if tlabel in labels:
            name = _("theory's best: {split}").format(split=tlabel)
            _ring(fig, tlabel, tc.get((tb.H, tb.d_k)), name, THEORY_COLOR, "diamond-open")
    fig.update_layout(barmode="relative", xaxis_title=_("split H × d<sub>k</sub>"), yaxis_title=_("error"))
    fig.update_yaxes(rangemode="nonnegative")  # errors are never negative: the axis starts at 0
    return styled(fig, _("Every split of the budget D = {budget}").format(budget=result.budget), height=400)


def architecture_formula(result: ArchitectureResult) -> str:
    """The fitted curve as MathJax, with its constants, and why no optimum is claimed when the fit is degenerate."""
    theory = result.theory
    c0, c1, c2 = (_tex(fmt(v)) for v in (theory.c0, theory.c1, theory.c2))
    text = (
        _("Theory fitted to the Monte Carlo: ")
        + r"$\mathrm{MSE}(d_k) \approx c_0 + c_1\, d_k^{-2} + c_2\, \dfrac{d_k^{d_k/2+1}}{nD}$ "
        + _("with $c_0 = {c0}$ (the floor no split removes), $c_1 = {c1}$, $c_2 = {c2}$.").format(c0=c0, c1=c1, c2=c2)
    )
    if theory.degenerate:
        # why, in words from the numbers, is the verdict under the chart (`verdicts.architecture_verdict`)
        text += _(
            " **The fit is degenerate**, so no theoretical optimum is marked: the closed-form chart"
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
    theory: TheoryReport,
    *,
    fitted: bool = True,
    best: Split | None = None,
    n: int | None = None,
    budget: int | None = None,
) -> go.Figure:
    """The closed-form optimum: d_k*(n) beside the paper's stated rate, and H*(D); the Monte Carlo's best
    split (`best`, measured at `n` and `budget`) as a point on each.

    `fitted` says whether `theory` was computed with constants fitted to the Monte Carlo. A degenerate fit
    has no optimum (docs/model.md section 7: its minimum is an end of the range), so the view passes the
    paper's unit constants instead and the chart says so in its title and legend.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=(_("d<sub>k</sub>* against n"), _("H* against D")))
    dk, hs = theory.dk_star_vs_n, theory.h_star_vs_budget
    which = _("(fitted)") if fitted else "(c₁ = c₂ = 1)"
    curves: list[tuple[int, list[int], list[int] | list[float], str, dict[str, str]]] = [
        (1, dk.n, dk.d_k, f"d<sub>k</sub>* {which}", {"color": THEORY_COLOR, "shape": "hv"}),
        (
            1,
            dk.n,
            dk.stated_rate,
            _("stated rate (log n)<sup>2/(4+d)</sup>, d = {d}").format(d=dk.stated_rate_d),
            {"color": "#adb5bd", "dash": "dot"},
        ),
        (2, hs.budget, hs.H, f"H* {which}", {"color": BEST_COLOR, "shape": "hv"}),
    ]
    for col, x, y, name, line in curves:
        if y:
            mode = "lines" if "dash" in line else "lines+markers"
            fig.add_scatter(x=x, y=y, mode=mode, name=name, line=line, row=1, col=col)
    if best is not None and n is not None and budget is not None:
        name = _("best split, n = {n}, D = {budget}").format(n=n, budget=budget)
        for col, at, split in ((1, n, best.d_k), (2, budget, best.H)):
            fig.add_scatter(
                x=[at],
                y=[split],
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
        _("Closed-form optimum of the fitted objective")
        if fitted
        else _("Closed-form optimum, c₁ = c₂ = 1 (fit degenerate)")
    )
    styled(fig, title, height=400)
    fig.update_layout(
        # below the axis titles, anchored to the figure's bottom (assets/fit_charts.js makes room if it wraps)
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0.0, "x": 0.0, "xanchor": "left"},
        margin={"t": 60, "b": 96},
    )
    return fig
