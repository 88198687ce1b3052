"""Foundations view: the background seeds' four lessons, each a few sliders, a figure and its formula.

1. why scores are divided by sqrt(d_k) (seeds 002, 003); 2. softmax as a Boltzmann distribution
(seed 003); 3. attention entropy against the number of heads (seed 002); 4. the head budget (seed 001).
Every control is a URL parameter (declared below through the registry), so a lesson with its settings
is a link. The numbers come from `GET /api/v1/foundations/...`; bounds are read from the same pydantic
query models the API validates with, so a slider can never ask for what the API refuses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import annotated_types
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, dcc, html, no_update
from dash.development.base_component import Component
from pydantic import BaseModel

from dashboard.api_client import ApiClient, ApiError
from dashboard.components import chart_id, control, graph, number_input
from dashboard.figures.theme import (
    COMPONENT_COLORS,
    THEORY_COLOR,
    empty_figure,
    finite,
    fmt,
    head_color,
    styled,
)
from dashboard.state import Param
from dashboard.state import State as PageState
from dashboard.views.base import STATE_STORE, View
from workers.engine.foundations import (
    MAX_ENTROPY_WEIGHTS,
    MAX_ENTROPY_WORK,
    MAX_SCALING_WORK,
    BudgetQuery,
    EntropyQuery,
    ScalingQuery,
    SoftmaxQuery,
    entropy_work,
)

VIEW_ID = "foundations"
Result = dict[str, Any]


def bounds(model: type[BaseModel], name: str) -> tuple[float | None, float | None]:
    """(ge, le) of a field of a query model: the API's own bounds, never copied by hand."""
    lo = hi = None
    for m in model.model_fields[name].metadata:
        if isinstance(m, annotated_types.Ge):
            lo = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Le):
            hi = float(m.le)  # type: ignore[arg-type]
    return lo, hi


def _default(model: type[BaseModel], name: str) -> Any:
    return model.model_fields[name].get_default(call_default_factory=True)


def _int_param(name: str, model: type[BaseModel], field: str, component: str, help_text: str, **kw: Any) -> Param:
    lo, hi = bounds(model, field)
    return Param(name, "int", _default(model, field), component=component, lo=lo, hi=hi, help=help_text, **kw)


def _log10_slider(default: float) -> dict[str, Any]:
    """Temperature spans 1e-3..1e3: the slider moves in log10, the state keeps the number itself."""
    return {
        "to_component": lambda v: math.log10(v),
        "from_component": lambda c: round(10 ** float(c), 6) if c is not None else default,
    }


def _heads_from_component(raw: Any) -> list[float]:
    return [float(h) for h in (raw or [])]


_T_LO, _T_HI = bounds(SoftmaxQuery, "temperature")
URL_PARAMS: list[Param] = [
    _int_param("sc_dk", ScalingQuery, "d_k", "fd-sc-dk", "Scaling lesson: head dimension d_k."),
    _int_param("sc_n", ScalingQuery, "samples", "fd-sc-n", "Scaling lesson: random (query, key) pairs."),
    _int_param("fseed", ScalingQuery, "seed", "fd-seed", "Seed of the scaling and entropy lessons."),
    Param(
        "sm_scores",
        "floats",
        _default(SoftmaxQuery, "scores"),
        component="fd-sm-scores",
        max_items=64,
        help="Softmax lesson: the scores s_i (comma separated).",
    ),
    Param(
        "sm_T",
        "float",
        1.0,
        component="fd-sm-t",
        lo=_T_LO,
        hi=_T_HI,
        help="Softmax lesson: temperature T.",
        **_log10_slider(1.0),
    ),
    _int_param("en_d", EntropyQuery, "d_model", "fd-en-d", "Entropy lesson: d_model."),
    _int_param("en_len", EntropyQuery, "seq_len", "fd-en-len", "Entropy lesson: tokens per sequence."),
    Param(
        "en_heads",
        "floats",
        [float(h) for h in _default(EntropyQuery, "heads")],
        component="fd-en-heads",
        max_items=12,
        to_component=lambda v: [int(h) for h in (v or [])],
        from_component=_heads_from_component,
        help="Entropy lesson: head counts H compared.",
    ),
    Param(
        "en_scaled",
        "bool",
        True,
        component="fd-en-scaled",
        to_component=lambda v: ["on"] if v else [],
        from_component=lambda c: bool(c),
        help="Entropy lesson: divide scores by sqrt(d_k).",
    ),
    _int_param("bu_d", BudgetQuery, "d_model", "fd-bu-d", "Budget lesson: d_model."),
    Param(
        "bu_H",
        "int",
        _default(BudgetQuery, "H"),
        component="fd-bu-h",
        lo=1,
        hi=4096,
        help="Budget lesson: number of heads (must divide d_model).",
    ),
    _int_param("bu_len", BudgetQuery, "seq_len", "fd-bu-len", "Budget lesson: sequence length n."),
]

HEAD_CHOICES = (1, 2, 4, 8, 16, 32, 64, 128, 256)

EXPLAIN_SCALING = r"""
**Why divide by $\sqrt{d_k}$.** For a query and a key with independent unit-variance entries,
$q\cdot k=\sum_{i=1}^{d_k} q_i k_i$ is a sum of $d_k$ independent terms of variance 1, so
$\operatorname{Var}(q\cdot k)=d_k$ and $\operatorname{Var}\big(q\cdot k/\sqrt{d_k}\big)=1$ whatever $d_k$.
Unscaled, wide heads would feed the softmax ever larger scores and saturate it. The cosine
$q\cdot k/(\lVert q\rVert\lVert k\rVert)$ has variance $1/d_k$: random vectors in many dimensions are
nearly orthogonal.
"""
EXPLAIN_SOFTMAX = r"""
**Softmax is a Boltzmann distribution.** With energies $E_i=-s_i$ and temperature $T$,
$p_i = e^{s_i/T}/Z$, $Z=\sum_j e^{s_j/T}$. Its entropy $S=-\sum_i p_i\log p_i$ rises from $\log m$
($m$ tied maxima; 0 for a unique arg-max) as $T\to 0$ to $\log n$ (uniform) as $T\to\infty$; the free
energy $F=-T\log Z=\langle E\rangle - T S$. Scaling by $\sqrt{d_k}$ is a temperature.
"""
EXPLAIN_ENTROPY = r"""
**Entropy against the number of heads.** At fixed $d_{\text{model}}$, $H$ heads of
$d_k=d_{\text{model}}/H$ split the same random projections. Scaled scores keep variance 1, so the
*mean* entropy barely moves, but each head's $\lVert q\rVert^2/d_k$ fluctuates more when $d_k$ is small:
the *spread* across heads grows with $H$ (some sharp, some diffuse). Unscaled, wide heads are sharp.
"""
EXPLAIN_BUDGET = r"""
**The head budget.** $W_Q,W_K,W_V,W_O$ are each $d_{\text{model}}\times d_{\text{model}}$:
$4d_{\text{model}}^2 + 4d_{\text{model}}$ parameters however many heads share them. FLOPs:
$8nd^2$ for the projections, $2n^2d$ for the scores, $2n^2d$ for the weighted sum, $\approx 3Hn^2$ for
the softmax; the $H$ attention matrices hold $Hn^2$ numbers - quadratic in the sequence length $n$.
"""


# ---------------------------------------------------------------------------------------------------
# Requests from the page state
# ---------------------------------------------------------------------------------------------------


def scaling_params(st: PageState) -> dict[str, Any]:
    d_k, samples = int(st.get("sc_dk", 64)), int(st.get("sc_n", 4000))
    limit = MAX_SCALING_WORK // max(d_k, 1)  # the API's samples * d_k budget: shrink samples rather than fail
    return {"d_k": d_k, "samples": max(100, min(samples, limit)), "seed": int(st.get("fseed", 0))}


def softmax_params(st: PageState) -> dict[str, Any]:
    return {"scores": list(st.get("sm_scores") or []), "temperature": st.get("sm_T", 1.0)}


def entropy_params(st: PageState) -> dict[str, Any]:
    d = int(st.get("en_d", 128))
    heads = sorted({int(h) for h in (st.get("en_heads") or []) if h >= 1 and d % int(h) == 0}) or [1]
    n = int(st.get("en_len", 64))
    # as many random sequences (up to 8) as the API's two budgets allow; 1 beyond them, and the API explains
    by_weights = MAX_ENTROPY_WEIGHTS // max(n * n * sum(heads), 1)
    by_work = MAX_ENTROPY_WORK // max(entropy_work(d, n, 1, len(heads)), 1)
    return {
        "d_model": d,
        "seq_len": n,
        "heads": heads,
        "scaled": bool(st.get("en_scaled", True)),
        "seed": int(st.get("fseed", 0)),
        "samples": int(max(1, min(8, by_weights, by_work))),
    }


def budget_params(st: PageState) -> dict[str, Any]:
    return {"d_model": int(st.get("bu_d", 512)), "H": int(st.get("bu_H", 8)), "seq_len": int(st.get("bu_len", 1024))}


# ---------------------------------------------------------------------------------------------------
# Figures (pure: result dict in, figure out)
# ---------------------------------------------------------------------------------------------------


def scaling_histograms(r: Result) -> go.Figure:
    fig = go.Figure()
    for part, color, name in (
        ("unscaled", COMPONENT_COLORS["bias2"], "q·k"),
        ("scaled", COMPONENT_COLORS["variance"], "q·k / √d_k"),
    ):
        h = r[part]["histogram"]
        fig.add_bar(
            x=h["centers"],
            y=h["density"],
            name=f"{name} (var {fmt(r[part]['variance'], 3)})",
            marker_color=color,
            opacity=0.55,
        )
        fig.add_scatter(
            x=h["centers"],
            y=h["normal_pdf"],
            mode="lines",
            line={"color": color, "dash": "dot"},
            name=f"N(0, {fmt(r[part]['theory_variance'], 3)})",
        )
    fig.update_layout(barmode="overlay", bargap=0)
    fig.update_xaxes(title="score")
    fig.update_yaxes(title="density")
    return styled(fig, f"Dot products at d_k = {r['d_k']}: variance d_k unscaled, 1 scaled", height=340)


def cosine_curve(r: Result) -> go.Figure:
    c = r["cosine"]["curve"]
    fig = go.Figure()
    fig.add_scatter(x=c["d_k"], y=c["q95"], mode="lines", line={"width": 0}, showlegend=False, hoverinfo="skip")
    fig.add_scatter(
        x=c["d_k"],
        y=c["q05"],
        mode="lines",
        line={"width": 0},
        fill="tonexty",
        fillcolor="rgba(46,134,171,0.18)",
        name="5–95% of cosines",
    )
    fig.add_scatter(
        x=c["d_k"], y=c["std"], mode="lines+markers", name="sd of cosine", line={"color": COMPONENT_COLORS["variance"]}
    )
    fig.add_scatter(
        x=c["d_k"], y=c["theory_std"], mode="lines", name="1/√d_k", line={"color": THEORY_COLOR, "dash": "dash"}
    )
    fig.add_vline(x=r["d_k"], line={"color": "#999", "dash": "dot"})
    fig.update_xaxes(title="d_k", type="log")
    fig.update_yaxes(title="cosine similarity")
    return styled(fig, "Random vectors become orthogonal as d_k grows", height=340)


def softmax_figure(r: Result) -> go.Figure:
    idx = [f"s{i + 1}={fmt(s, 3)}" for i, s in enumerate(r["scores"])]
    fig = go.Figure()
    fig.add_bar(
        x=idx, y=r["weights"], name=f"p at T = {fmt(r['temperature'], 3)}", marker_color=COMPONENT_COLORS["variance"]
    )
    fig.add_scatter(
        x=idx,
        y=r["limits"]["uniform"],
        mode="markers",
        name="T → ∞ (uniform)",
        marker={"symbol": "line-ew-open", "size": 18, "color": THEORY_COLOR},
    )
    fig.add_scatter(
        x=idx,
        y=r["limits"]["argmax"],
        mode="markers",
        name="T → 0 (arg-max)",
        marker={"symbol": "x-thin-open", "size": 10, "color": COMPONENT_COLORS["bias2"]},
    )
    fig.update_yaxes(title="weight p_i", range=[0, 1.05])
    return styled(
        fig,
        f"Boltzmann weights: entropy {fmt(r['entropy'], 3)} of at most log n = {fmt(r['max_entropy'], 3)}",
        height=340,
    )


def entropy_temperature_figure(r: Result) -> go.Figure:
    c = r["curve"]
    fig = go.Figure()
    fig.add_scatter(
        x=c["temperature"], y=c["entropy"], mode="lines", name="entropy S(T)", line={"color": COMPONENT_COLORS["mse"]}
    )
    fig.add_hline(y=r["max_entropy"], line={"color": THEORY_COLOR, "dash": "dash"}, annotation_text="log n")
    fig.add_hline(
        y=r["argmax_entropy"],
        line={"color": COMPONENT_COLORS["bias2"], "dash": "dot"},
        annotation_text="log m (arg-max set)",
        annotation_position="bottom right",
    )
    fig.add_scatter(
        x=[r["temperature"]],
        y=[r["entropy"]],
        mode="markers",
        name="this T",
        marker={"size": 11, "color": COMPONENT_COLORS["variance"]},
    )
    fig.update_xaxes(title="temperature T", type="log")
    fig.update_yaxes(title="entropy (nats)")
    return styled(fig, "From arg-max to uniform as T grows", height=340)


def entropy_heads_figure(r: Result) -> go.Figure:
    fig = go.Figure()
    for i, p in enumerate(r["points"]):
        fig.add_box(
            y=p["head_entropies"],
            name=f"H={p['H']}",
            marker_color=head_color(i),
            boxpoints="outliers",
            showlegend=False,
        )
    fig.add_scatter(
        x=[f"H={p['H']}" for p in r["points"]],
        y=[p["mean"] for p in r["points"]],
        mode="lines+markers",
        name="mean over heads",
        line={"color": COMPONENT_COLORS["mse"]},
    )
    fig.add_hline(y=r["max_entropy"], line={"color": THEORY_COLOR, "dash": "dash"}, annotation_text="log n")
    fig.update_yaxes(title="mean attention entropy of a head (nats)")
    scaled = "scaled" if r["scaled"] else "unscaled"
    return styled(fig, f"Entropy per head, d_model = {r['d_model']}, n = {r['seq_len']} ({scaled} scores)", height=360)


def budget_figure(r: Result) -> go.Figure:
    rows = r["by_length"]
    n = [row["seq_len"] for row in rows]
    fig = go.Figure()
    fig.add_scatter(
        x=n,
        y=[row["flops"] for row in rows],
        mode="lines+markers",
        name="FLOPs",
        line={"color": COMPONENT_COLORS["mse"]},
    )
    fig.add_scatter(
        x=n,
        y=[row["attention_bytes"] for row in rows],
        mode="lines+markers",
        name="attention matrices (bytes)",
        line={"color": COMPONENT_COLORS["bias2"]},
    )
    fig.add_scatter(
        x=n,
        y=[row["params"] for row in rows],
        mode="lines",
        name="parameters (constant)",
        line={"color": THEORY_COLOR, "dash": "dash"},
    )
    fig.add_vline(x=r["chosen"]["seq_len"], line={"color": "#999", "dash": "dot"})
    fig.update_xaxes(title="sequence length n", type="log")
    fig.update_yaxes(title="count", type="log", exponentformat="power")
    return styled(fig, f"Cost against n at d_model = {r['chosen']['d_model']}, H = {r['chosen']['H']}", height=340)


def _human(x: Any) -> str:
    v = finite(x)
    if v is None:
        return "—"
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= size:
            return f"{v / size:.3g}{unit}"
    return f"{v:.4g}"


def budget_table(r: Result) -> Component:
    """Every H dividing d_model at the chosen n: the parameter column never changes, the last two do."""
    cell = {"padding": "3px 10px", "textAlign": "right", "borderBottom": "1px solid #e5e7eb"}
    header = html.Tr(
        [
            html.Th(t, style={**cell, "fontWeight": 600})
            for t in ("H", "d_k", "parameters", "Q,K,V per head", "FLOPs", "attention bytes")
        ]
    )
    body = [
        html.Tr(
            [
                html.Td(row["H"], style=cell),
                html.Td(row["d_k"], style=cell),
                html.Td(f"{row['params']:,}", style=cell),
                html.Td(f"{row['params_per_head']:,}", style=cell),
                html.Td(_human(row["flops"]), style=cell),
                html.Td(_human(row["attention_bytes"]), style=cell),
            ],
            style={"fontWeight": 700, "background": "#eef4fb"} if row["H"] == r["chosen"]["H"] else None,
        )
        for row in r["by_heads"]
    ]
    caption = html.Caption(
        f"Every H dividing d_model = {r['chosen']['d_model']} at n = {r['chosen']['seq_len']}: "
        f"parameters {r['params_formula']} whatever H",
        style={"captionSide": "top", "textAlign": "left", "padding": "4px 0 8px", "fontSize": "0.92em"},
    )
    return html.Table(
        [caption, html.Thead(header), html.Tbody(body)],
        className="budget-table",
        style={"borderCollapse": "collapse", "width": "100%", "fontVariantNumeric": "tabular-nums"},
    )


# ---------------------------------------------------------------------------------------------------
# Layout and callbacks
# ---------------------------------------------------------------------------------------------------


def _lesson(title: str, controls: list[Component], charts: list[Component], text: str, error_id: str) -> Component:
    return html.Section(
        [
            html.H3(title),
            html.Div(controls, className="view-controls"),
            html.Div(charts, className="chart-row" if len(charts) > 1 else "chart-row one"),
            html.Div(id=error_id, className="job-status error", role="status"),
            dcc.Store(id=error_id.replace("-error", "-key")),
            html.Div(dcc.Markdown(text, mathjax=True), className="explain part-explain"),
        ],
        className="lesson",
    )


def _slider(
    cid: str,
    lo: float,
    hi: float,
    value: Any,
    step: float = 1,
    marks: dict[Any, str] | None = None,
    direct: bool = True,
) -> Any:
    return dcc.Slider(lo, hi, step, value=value, id=cid, marks=marks, allow_direct_input=direct)


def layout(state: PageState) -> Component:
    sc_lo, sc_hi = bounds(ScalingQuery, "d_k")
    return html.Div(
        [
            _lesson(
                "1 · Why scale by √d_k",
                [
                    control(
                        "d_k",
                        _slider(
                            "fd-sc-dk",
                            sc_lo or 1,
                            sc_hi or 1024,
                            state.get("sc_dk", 64),
                            marks={1: "1", 256: "256", 512: "512", 1024: "1024"},
                        ),
                        "sc_dk",
                        "Head dimension.",
                    ),
                    control(
                        "samples",
                        number_input("fd-sc-n", state.get("sc_n", 4000), low=100, high=50_000, step=100),
                        "sc_n",
                        "Random pairs drawn.",
                    ),
                    control(
                        "seed",
                        number_input("fd-seed", state.get("fseed", 0), low=0),
                        "fseed",
                        "Seed of the draws.",
                    ),
                ],
                [graph("fd-scaling", "open this tab to draw"), graph("fd-cosine")],
                EXPLAIN_SCALING,
                "fd-scaling-error",
            ),
            _lesson(
                "2 · Softmax as a Boltzmann distribution",
                [
                    control(
                        "scores s_i",
                        dcc.Input(
                            id="fd-sm-scores",
                            type="text",
                            debounce=True,
                            value=", ".join(str(s) for s in state.get("sm_scores", [])),
                            className="text-input",
                        ),
                        "sm_scores",
                        "Two to 64 numbers in [-1000, 1000], comma separated.",
                    ),
                    control(
                        "temperature T (log scale)",
                        _slider(
                            "fd-sm-t",
                            -3,
                            3,
                            math.log10(state.get("sm_T", 1.0)),
                            0.05,
                            marks={-3: "0.001", -2: "0.01", -1: "0.1", 0: "1", 1: "10", 2: "100", 3: "1000"},
                            direct=False,  # the box would show log10(T), not T
                        ),
                        "sm_T",
                        "Softmax temperature.",
                    ),
                ],
                [graph("fd-softmax"), graph("fd-softmax-entropy")],
                EXPLAIN_SOFTMAX,
                "fd-softmax-error",
            ),
            _lesson(
                "3 · Attention entropy against the number of heads",
                [
                    control(
                        "d_model",
                        number_input("fd-en-d", state.get("en_d", 128), low=2, high=1024),
                        "en_d",
                        "Model dimension split into H heads.",
                    ),
                    control(
                        "sequence length",
                        number_input("fd-en-len", state.get("en_len", 64), low=2, high=512),
                        "en_len",
                        "Tokens per sequence.",
                    ),
                    control(
                        "head counts H",
                        dcc.Checklist(
                            id="fd-en-heads",
                            options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                            value=[int(h) for h in state.get("en_heads", [])],
                            inline=True,
                        ),
                        "en_heads",
                        "Those that do not divide d_model are skipped.",
                    ),
                    control(
                        "scores",
                        dcc.Checklist(
                            id="fd-en-scaled",
                            options=[{"label": "scaled by √d_k", "value": "on"}],
                            value=["on"] if state.get("en_scaled", True) else [],
                        ),
                        "en_scaled",
                        "Divide scores by sqrt(d_k).",
                    ),
                ],
                [graph("fd-entropy")],
                EXPLAIN_ENTROPY,
                "fd-entropy-error",
            ),
            _lesson(
                "4 · The head budget",
                [
                    control(
                        "d_model",
                        number_input("fd-bu-d", state.get("bu_d", 512), low=1, high=65_536),
                        "bu_d",
                        "Model dimension.",
                    ),
                    control(
                        "H",
                        number_input("fd-bu-h", state.get("bu_H", 8), low=1, high=4096),
                        "bu_H",
                        "Heads; must divide d_model.",
                    ),
                    control(
                        "sequence length n",
                        number_input("fd-bu-len", state.get("bu_len", 1024), low=1, high=1_048_576),
                        "bu_len",
                        "Tokens.",
                    ),
                ],
                [graph("fd-budget"), html.Div(id="fd-budget-table", className="budget-table-wrap")],
                EXPLAIN_BUDGET,
                "fd-budget-error",
            ),
        ],
        className="foundations",
    )


def _state(data: Any) -> PageState | None:
    """The page state when this tab is shown; None otherwise (nothing is fetched for a hidden tab)."""
    if not data or data.get("tab") != VIEW_ID:
        return None
    return PageState.from_data(data)


def _lesson_callback(
    app: Dash,
    client: ApiClient,
    lesson: str,
    params: Callable[[PageState], dict[str, Any]],
    draw: Callable[[Result], tuple[Any, ...]],
    outputs: list[Output],
    blank: tuple[Any, ...] = (),
) -> None:
    """Fetch one lesson when its own parameters change (the last request is kept in a store, so
    moving another lesson's slider sends nothing) and draw it; an API refusal is shown, never raised.
    `blank` holds what the outputs after the first show meanwhile (an empty chart by default)."""
    n = len(outputs)
    blanks = blank or tuple(empty_figure("") for _ in range(n - 1))

    @app.callback(
        *outputs,
        Output(f"fd-{lesson}-error", "children"),
        Output(f"fd-{lesson}-key", "data"),
        Input(STATE_STORE, "data"),
        State(f"fd-{lesson}-key", "data"),
    )
    def _update(data: Any, last: Any) -> Any:
        st = _state(data)
        if st is None:
            return (no_update,) * (n + 2)
        request = params(st)
        if request == last:
            return (no_update,) * (n + 2)
        try:
            result = client.get(f"/foundations/{lesson}", params=request)
        except ApiError as exc:
            retry = None if exc.status is None or exc.status >= 500 else request  # an outage is retried
            return (empty_figure(exc.message), *blanks, exc.message, retry)
        return (*draw(result), "", request)


def register_callbacks(app: Dash, client: ApiClient) -> None:
    _lesson_callback(
        app,
        client,
        "scaling",
        scaling_params,
        lambda r: (scaling_histograms(r), cosine_curve(r)),
        [Output(chart_id("fd-scaling"), "figure"), Output(chart_id("fd-cosine"), "figure")],
    )
    _lesson_callback(
        app,
        client,
        "softmax",
        softmax_params,
        lambda r: (softmax_figure(r), entropy_temperature_figure(r)),
        [Output(chart_id("fd-softmax"), "figure"), Output(chart_id("fd-softmax-entropy"), "figure")],
    )
    _lesson_callback(
        app,
        client,
        "entropy",
        entropy_params,
        lambda r: (entropy_heads_figure(r),),
        [Output(chart_id("fd-entropy"), "figure")],
    )
    _lesson_callback(
        app,
        client,
        "budget",
        budget_params,
        lambda r: (budget_figure(r), budget_table(r)),
        [Output(chart_id("fd-budget"), "figure"), Output("fd-budget-table", "children")],
        blank=("",),
    )


VIEW = View(
    id=VIEW_ID,
    label="Foundations",
    layout=layout,
    register_callbacks=register_callbacks,
    url_params=URL_PARAMS,
    description="The background lessons: why √d_k, softmax as Boltzmann, entropy against H, the head budget.",
)
