"""Charts of the foundations lessons: pure functions from a lesson's answer (its model) to a figure."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures.theme import COMPONENT_COLORS, THEORY_COLOR, fmt, head_color, styled
from headdiv.i18n import N_, _
from headdiv.schemas.results.lesson_results import (
    BudgetLesson,
    DotProducts,
    EntropyLesson,
    ScalingLesson,
    SoftmaxLesson,
)


def scaling_histograms(r: ScalingLesson) -> go.Figure:
    fig = go.Figure()
    parts: tuple[tuple[DotProducts, str, str], ...] = (
        (r.unscaled, COMPONENT_COLORS["bias2"], "q·k"),
        (r.scaled, COMPONENT_COLORS["variance"], "q·k / √d_k"),
    )
    for part, color, name in parts:
        h = part.histogram
        fig.add_bar(
            x=h.centers,
            y=h.density,
            name=_("{name} (var {variance})").format(name=name, variance=fmt(part.variance)),
            marker_color=color,
            opacity=0.55,
        )
        fig.add_scatter(
            x=h.centers,
            y=h.normal_pdf,
            mode="lines",
            line={"color": color, "dash": "dot"},
            name=f"N(0, {fmt(part.theory_variance)})",
        )
    fig.update_layout(barmode="overlay", bargap=0)
    fig.update_xaxes(title=_("score"))
    fig.update_yaxes(title=_("density"))
    title = _("Dot products at d_k = {d_k}: variance d_k unscaled, 1 scaled").format(d_k=r.d_k)
    return styled(fig, title, height=340)


def cosine_curve(r: ScalingLesson) -> go.Figure:
    c = r.cosine.curve
    fig = go.Figure()
    fig.add_scatter(x=c.d_k, y=c.q95, mode="lines", line={"width": 0}, showlegend=False, hoverinfo="skip")
    fig.add_scatter(
        x=c.d_k,
        y=c.q05,
        mode="lines",
        line={"width": 0},
        fill="tonexty",
        fillcolor="rgba(46,134,171,0.18)",
        name=_("5–95% of cosines"),
    )
    fig.add_scatter(
        x=c.d_k, y=c.std, mode="lines+markers", name=_("sd of cosine"), line={"color": COMPONENT_COLORS["variance"]}
    )
    fig.add_scatter(x=c.d_k, y=c.theory_std, mode="lines", name="1/√d_k", line={"color": THEORY_COLOR, "dash": "dash"})
    fig.add_vline(x=r.d_k, line={"color": "#999", "dash": "dot"})
    fig.update_xaxes(title="d_k", type="log", dtick=1)  # one label per power of ten: never crowded
    fig.update_yaxes(title=_("cosine similarity"))
    return styled(fig, _("Random vectors become orthogonal as d_k grows"), height=340)


def softmax_figure(r: SoftmaxLesson) -> go.Figure:
    idx = [f"s{i + 1}={fmt(s)}" for i, s in enumerate(r.scores)]
    fig = go.Figure()
    fig.add_bar(
        x=idx,
        y=r.weights,
        name=_("p at T = {temperature}").format(temperature=fmt(r.temperature)),
        marker_color=COMPONENT_COLORS["variance"],
    )
    fig.add_scatter(
        x=idx,
        y=r.limits.uniform,
        mode="markers",
        name=_("T → ∞ (uniform)"),
        marker={"symbol": "line-ew-open", "size": 18, "color": THEORY_COLOR},
    )
    fig.add_scatter(
        x=idx,
        y=r.limits.argmax,
        mode="markers",
        name=_("T → 0 (arg-max)"),
        marker={"symbol": "x-thin-open", "size": 10, "color": COMPONENT_COLORS["bias2"]},
    )
    fig.update_yaxes(title=_("weight p_i"), range=[0, 1.05])
    return styled(
        fig,
        _("Boltzmann weights: entropy {entropy} of at most log n = {most}").format(
            entropy=fmt(r.entropy), most=fmt(r.max_entropy)
        ),
        height=340,
    )


def entropy_temperature_figure(r: SoftmaxLesson) -> go.Figure:
    c = r.curve
    fig = go.Figure()
    fig.add_scatter(
        x=c.temperature, y=c.entropy, mode="lines", name=_("entropy S(T)"), line={"color": COMPONENT_COLORS["mse"]}
    )
    fig.add_hline(y=r.max_entropy, line={"color": THEORY_COLOR, "dash": "dash"}, annotation_text="log n")
    fig.add_hline(
        y=r.argmax_entropy,
        line={"color": COMPONENT_COLORS["bias2"], "dash": "dot"},
        annotation_text=_("log m (arg-max set)"),
        annotation_position="bottom right",
    )
    fig.add_scatter(
        x=[r.temperature],
        y=[r.entropy],
        mode="markers",
        name=_("this T"),
        marker={"size": 11, "color": COMPONENT_COLORS["variance"]},
    )
    fig.update_xaxes(title=_("temperature T"), type="log", dtick=1)  # one label per power of ten
    fig.update_yaxes(title=_("entropy (nats)"))
    return styled(fig, _("From arg-max to uniform as T grows"), height=340)


def entropy_heads_figure(r: EntropyLesson) -> go.Figure:
    fig = go.Figure()
    for i, p in enumerate(r.points):
        fig.add_box(
            y=p.head_entropies,
            name=f"H={p.H}",
            marker_color=head_color(i),
            boxpoints="outliers",
            showlegend=False,
        )
    fig.add_scatter(
        x=[f"H={p.H}" for p in r.points],
        y=[p.mean for p in r.points],
        mode="lines+markers",
        name=_("mean over heads"),
        line={"color": COMPONENT_COLORS["mse"]},
    )
    fig.add_hline(y=r.max_entropy, line={"color": THEORY_COLOR, "dash": "dash"}, annotation_text="log n")
    fig.update_yaxes(title=_("entropy per head (nats)"))  # short: it must fit the height at large fonts
    title = (
        _("Entropy per head, d_model = {d_model}, n = {n} (scaled scores)")
        if r.scaled
        else _("Entropy per head, d_model = {d_model}, n = {n} (unscaled scores)")
    )
    return styled(fig, title.format(d_model=r.d_model, n=r.seq_len), height=360)


BUDGET_CURVES: tuple[tuple[str, str, str, dict[str, str]], ...] = (
    ("flops", "FLOPs", "lines+markers", {"color": COMPONENT_COLORS["mse"]}),
    ("attention_bytes", N_("attention matrices (bytes)"), "lines+markers", {"color": COMPONENT_COLORS["bias2"]}),
    ("params", N_("parameters (constant)"), "lines", {"color": THEORY_COLOR, "dash": "dash"}),
)
"""The budget chart's curves: result field, name (in English, marked: shown as `_(name)`), mode, line."""


def budget_figure(r: BudgetLesson) -> go.Figure:
    rows = r.by_length
    n = [row.seq_len for row in rows]
    fig = go.Figure()
    for key, name, mode, line in BUDGET_CURVES:
        fig.add_scatter(x=n, y=[getattr(row, key) for row in rows], mode=mode, name=_(name), line=line)
    fig.add_vline(x=r.chosen.seq_len, line={"color": "#999", "dash": "dot"})
    fig.update_xaxes(title=_("sequence length n"), type="log", dtick=1)
    fig.update_yaxes(title=_("count"), type="log", exponentformat="power")
    title = _("Cost against n at d_model = {d_model}, H = {heads}").format(d_model=r.chosen.d_model, heads=r.chosen.H)
    return styled(fig, title, height=340)
