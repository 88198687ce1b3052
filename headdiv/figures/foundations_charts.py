"""Charts of the foundations lessons: pure functions from a lesson's answer (its model) to a figure."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures.theme import COMPONENT_COLORS, THEORY_COLOR, fmt, head_color, styled
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
            name=f"{name} (var {fmt(part.variance)})",
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
    fig.update_xaxes(title="score")
    fig.update_yaxes(title="density")
    return styled(fig, f"Dot products at d_k = {r.d_k}: variance d_k unscaled, 1 scaled", height=340)


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
        name="5–95% of cosines",
    )
    fig.add_scatter(
        x=c.d_k, y=c.std, mode="lines+markers", name="sd of cosine", line={"color": COMPONENT_COLORS["variance"]}
    )
    fig.add_scatter(x=c.d_k, y=c.theory_std, mode="lines", name="1/√d_k", line={"color": THEORY_COLOR, "dash": "dash"})
    fig.add_vline(x=r.d_k, line={"color": "#999", "dash": "dot"})
    fig.update_xaxes(title="d_k", type="log", dtick=1)  # one label per power of ten: never crowded
    fig.update_yaxes(title="cosine similarity")
    return styled(fig, "Random vectors become orthogonal as d_k grows", height=340)


def softmax_figure(r: SoftmaxLesson) -> go.Figure:
    idx = [f"s{i + 1}={fmt(s)}" for i, s in enumerate(r.scores)]
    fig = go.Figure()
    fig.add_bar(x=idx, y=r.weights, name=f"p at T = {fmt(r.temperature)}", marker_color=COMPONENT_COLORS["variance"])
    fig.add_scatter(
        x=idx,
        y=r.limits.uniform,
        mode="markers",
        name="T → ∞ (uniform)",
        marker={"symbol": "line-ew-open", "size": 18, "color": THEORY_COLOR},
    )
    fig.add_scatter(
        x=idx,
        y=r.limits.argmax,
        mode="markers",
        name="T → 0 (arg-max)",
        marker={"symbol": "x-thin-open", "size": 10, "color": COMPONENT_COLORS["bias2"]},
    )
    fig.update_yaxes(title="weight p_i", range=[0, 1.05])
    return styled(
        fig,
        f"Boltzmann weights: entropy {fmt(r.entropy)} of at most log n = {fmt(r.max_entropy)}",
        height=340,
    )


def entropy_temperature_figure(r: SoftmaxLesson) -> go.Figure:
    c = r.curve
    fig = go.Figure()
    fig.add_scatter(
        x=c.temperature, y=c.entropy, mode="lines", name="entropy S(T)", line={"color": COMPONENT_COLORS["mse"]}
    )
    fig.add_hline(y=r.max_entropy, line={"color": THEORY_COLOR, "dash": "dash"}, annotation_text="log n")
    fig.add_hline(
        y=r.argmax_entropy,
        line={"color": COMPONENT_COLORS["bias2"], "dash": "dot"},
        annotation_text="log m (arg-max set)",
        annotation_position="bottom right",
    )
    fig.add_scatter(
        x=[r.temperature],
        y=[r.entropy],
        mode="markers",
        name="this T",
        marker={"size": 11, "color": COMPONENT_COLORS["variance"]},
    )
    fig.update_xaxes(title="temperature T", type="log", dtick=1)  # one label per power of ten
    fig.update_yaxes(title="entropy (nats)")
    return styled(fig, "From arg-max to uniform as T grows", height=340)


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
        name="mean over heads",
        line={"color": COMPONENT_COLORS["mse"]},
    )
    fig.add_hline(y=r.max_entropy, line={"color": THEORY_COLOR, "dash": "dash"}, annotation_text="log n")
    fig.update_yaxes(title="entropy per head (nats)")  # short: it must fit the height at large fonts
    scaled = "scaled" if r.scaled else "unscaled"
    return styled(fig, f"Entropy per head, d_model = {r.d_model}, n = {r.seq_len} ({scaled} scores)", height=360)


BUDGET_CURVES: tuple[tuple[str, str, str, dict[str, str]], ...] = (
    ("flops", "FLOPs", "lines+markers", {"color": COMPONENT_COLORS["mse"]}),
    ("attention_bytes", "attention matrices (bytes)", "lines+markers", {"color": COMPONENT_COLORS["bias2"]}),
    ("params", "parameters (constant)", "lines", {"color": THEORY_COLOR, "dash": "dash"}),
)


def budget_figure(r: BudgetLesson) -> go.Figure:
    rows = r.by_length
    n = [row.seq_len for row in rows]
    fig = go.Figure()
    for key, name, mode, line in BUDGET_CURVES:
        fig.add_scatter(x=n, y=[getattr(row, key) for row in rows], mode=mode, name=name, line=line)
    fig.add_vline(x=r.chosen.seq_len, line={"color": "#999", "dash": "dot"})
    fig.update_xaxes(title="sequence length n", type="log", dtick=1)
    fig.update_yaxes(title="count", type="log", exponentformat="power")
    return styled(fig, f"Cost against n at d_model = {r.chosen.d_model}, H = {r.chosen.H}", height=340)
