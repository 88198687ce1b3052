"""Real models view: the Head Diversity Index of trained Transformers, layer by layer.

A built-in model (shipped in an optional package, works offline) or an uploaded `.safetensors` file is
sent to the API (`/api/v1/models/...`); the answer is drawn as per-layer key/query HDI bars against
the HDI of random subspaces of the same shapes, and the key-overlap heatmap of a chosen layer. The
built-in's name, the layer and the baseline seed are URL parameters; an upload is not (a link cannot
carry a file), so the status line says which model is on screen.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update
from dash.development.base_component import Component

from dashboard.api_client import ApiClient, ApiError
from dashboard.components import chart_id, control, graph, number_input
from dashboard.figures.theme import COMPONENT_COLORS, THEORY_COLOR, empty_figure, finite, fmt, styled
from dashboard.state import Param
from dashboard.state import State as PageState
from dashboard.views.base import STATE_STORE, View
from workers.models.builtin import BUILTINS

VIEW_ID = "models"
Result = dict[str, Any]
DEFAULT_MODEL = next(iter(BUILTINS))
MAX_LAYER = 255
UPLOAD_MAX_BYTES = 256 << 20
"""Refused in the browser beyond this (the API's own cap, `HEADDIV_MAX_UPLOAD_BYTES`, answers 413)."""
UPLOAD_WAIT_S = 60.0

URL_PARAMS: list[Param] = [
    Param(
        "model",
        "choice",
        DEFAULT_MODEL,
        component="mdl-model",
        choices=tuple(BUILTINS),
        help="Built-in model whose heads are measured.",
    ),
    Param("layer", "int", 0, component="mdl-layer", lo=0, hi=MAX_LAYER, help="Layer whose key overlap is drawn."),
    Param("mseed", "int", 0, component="mdl-seed", lo=0, hi=2**32 - 1, help="Seed of the random-subspace baseline."),
]

EXPLAIN = r"""
**Head diversity of a trained model.** Head $h$'s key projection is the $d_{\text{model}}\times d_k$
block $W_h$ of the layer's $W_K$ (rows $h d_k$ to $(h+1)d_k$ of the Linear weight, transposed; GPT-2's
fused `c_attn` is split into Q, K, V first). With $Q_h$ an orthonormal basis of its span,
$s_{hh'}=\lVert Q_h^\top Q_{h'}\rVert_F^2/d_k$ and
$\mathrm{HDI}=1-\frac{2}{H(H-1)}\sum_{h<h'} s_{hh'}$: 1 for mutually orthogonal heads, 0 for one
shared subspace.

**Read it against chance.** Independent random $d_k$-dimensional subspaces of
$\mathbb{R}^{d_{\text{model}}}$ already overlap by $d_k/d_{\text{model}}$ on average, so their HDI is
about $1-d_k/d_{\text{model}}$ (the grey marks, drawn from seeded random heads of the same shapes).
A trained layer below that line has heads that share directions more than chance would give.
Grouped-query models have fewer key heads (`num_kv_heads`) than query heads.
"""


# ---------------------------------------------------------------------------------------------------
# Figures (pure)
# ---------------------------------------------------------------------------------------------------


def layer_bars(r: Result, chosen: int | None = None) -> go.Figure:
    layers = r.get("layers") or []
    x = [str(layer["layer"]) for layer in layers]
    fig = go.Figure()
    fig.add_bar(
        x=x,
        y=[finite(layer.get("key_hdi")) for layer in layers],
        name="key heads",
        marker_color=COMPONENT_COLORS["variance"],
    )
    fig.add_bar(
        x=x,
        y=[finite(layer.get("query_hdi")) for layer in layers],
        name="query heads",
        marker_color=COMPONENT_COLORS["covariance"],
    )
    fig.add_scatter(
        x=x,
        y=[finite(layer.get("random_hdi")) for layer in layers],
        mode="markers",
        name="random subspaces",
        marker={"symbol": "line-ew-open", "size": 26, "color": THEORY_COLOR, "line": {"width": 3}},
    )
    if chosen is not None and 0 <= chosen < len(layers):
        fig.add_vrect(x0=chosen - 0.5, x1=chosen + 0.5, fillcolor="rgba(0,0,0,0.06)", line_width=0)
    fig.update_layout(barmode="group")
    fig.update_xaxes(title="layer", type="category")
    fig.update_yaxes(title="HDI", range=[0, 1.02])
    title = (
        f"{r.get('model', 'model')}: {r.get('num_heads')} heads ({r.get('num_kv_heads')} key heads) "
        f"of d_k = {r.get('d_k')} in d_model = {r.get('d_model')}"
    )
    return styled(fig, title, height=360)


def overlap_heatmap(r: Result, layer: int) -> go.Figure:
    layers = r.get("layers") or []
    if not layers:
        return empty_figure("no layers")
    item = layers[max(0, min(layer, len(layers) - 1))]
    z = [[finite(v) for v in row] for row in item.get("key_overlap") or []]
    heads = [str(h) for h in range(len(z))]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=heads,
            y=heads,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": "overlap"}, "thickness": 12},
            hovertemplate="heads %{y} and %{x}<br>overlap %{z:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(title="key head", type="category")
    fig.update_yaxes(title="key head", type="category", autorange="reversed")
    return styled(
        fig,
        f"Key overlap, layer {item['layer']} (HDI {fmt(item.get('key_hdi'), 3)}, "
        f"random {fmt(item.get('random_hdi'), 3)})",
        height=360,
        legend=False,
    )


def angle_histogram(r: Result, layer: int) -> go.Figure:
    layers = r.get("layers") or []
    if not layers:
        return empty_figure("no layers")
    item = layers[max(0, min(layer, len(layers) - 1))]
    angles = [a for pair in item.get("key_principal_angles_deg") or [] for a in pair.get("angles", [])]
    fig = go.Figure(
        go.Histogram(
            x=angles,
            xbins={"start": 0, "end": 90, "size": 3},
            marker_color=COMPONENT_COLORS["variance"],
            name="principal angles",
        )
    )
    fig.update_xaxes(title="angle (degrees; 90 = orthogonal)", range=[0, 90])
    fig.update_yaxes(title="count")
    return styled(fig, f"Principal angles between key heads, layer {item['layer']}", height=300, legend=False)


def summary(entry: dict[str, Any]) -> str:
    r = entry.get("result") or {}
    layers = r.get("layers") or []
    keys = [v for v in (finite(layer.get("key_hdi")) for layer in layers) if v is not None]
    rand = [v for v in (finite(layer.get("random_hdi")) for layer in layers) if v is not None]
    where = "uploaded file" if entry.get("source") == "upload" else "built-in model"
    text = f"{where} {r.get('model')} ({r.get('style')} naming), {len(layers)} layers"
    if keys and rand:
        below = sum(k < q for k, q in zip(keys, rand, strict=False))
        text += (
            f"; mean key HDI {fmt(sum(keys) / len(keys), 3)} against {fmt(sum(rand) / len(rand), 3)} for "
            f"random subspaces ({below} of {len(keys)} layers below chance)"
        )
    return text


# ---------------------------------------------------------------------------------------------------
# Talking to the API
# ---------------------------------------------------------------------------------------------------


def decode_upload(contents: str) -> bytes:
    """dcc.Upload's `data:<type>;base64,<data>` to bytes; ValueError with a readable reason."""
    try:
        _, data = contents.split(",", 1)
        return base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error) as exc:
        raise ValueError(f"the upload could not be decoded ({exc})") from None


def upload_hdi(client: ApiClient, name: str, content: bytes, num_heads: Any, num_kv_heads: Any, seed: int) -> Result:
    """POST the file as multipart to /models/hdi (the API checks it; 422 explains what is wrong)."""
    form = {"seed": str(seed)}
    for key, value in (("num_heads", num_heads), ("num_kv_heads", num_kv_heads)):
        if value not in (None, ""):
            form[key] = str(value)
    files = {"file": (name or "model.safetensors", content, "application/octet-stream")}
    return client.upload("/models/hdi", files=files, data=form, extra_timeout=UPLOAD_WAIT_S)


# ---------------------------------------------------------------------------------------------------
# Layout and callbacks
# ---------------------------------------------------------------------------------------------------


def layout(state: PageState) -> Component:
    return html.Div(
        [
            html.Div(
                [
                    dcc.Store(id="mdl-result"),
                    html.Div(
                        [
                            control(
                                "built-in model",
                                dcc.Dropdown(
                                    id="mdl-model",
                                    options=[{"label": n, "value": n} for n in BUILTINS],
                                    value=state.get("model", DEFAULT_MODEL),
                                    clearable=False,
                                ),
                                "model",
                                "Example weights shipped in an optional package (works offline).",
                            ),
                            control(
                                "layer",
                                dcc.Slider(0, 5, 1, value=state.get("layer", 0), id="mdl-layer"),
                                "layer",
                                "Layer whose key overlap is drawn.",
                            ),
                            control(
                                "baseline seed",
                                number_input("mdl-seed", state.get("mseed", 0), low=0),
                                "mseed",
                                "Seed of the random subspaces.",
                            ),
                            html.Button(
                                "Show the built-in model", id="mdl-builtin-btn", n_clicks=0, className="btn btn-small"
                            ),
                        ],
                        className="view-controls",
                    ),
                    html.Div(
                        [
                            control(
                                "num_heads",
                                number_input("mdl-num-heads", low=1, high=4096, placeholder="from the file"),
                                "num_heads",
                                "Query heads per layer, when the file does not say.",
                            ),
                            control(
                                "num_kv_heads",
                                number_input("mdl-num-kv", low=1, high=4096, placeholder="= num_heads"),
                                "num_kv_heads",
                                "Key/value heads of a grouped-query model.",
                            ),
                            dcc.Upload(
                                id="mdl-upload",
                                children=html.Div(["Drop a ", html.B(".safetensors"), " file here or click to choose"]),
                                accept=".safetensors",
                                max_size=UPLOAD_MAX_BYTES,
                                multiple=False,
                                className="upload-box",
                                style={
                                    "border": "2px dashed #bbb",
                                    "borderRadius": "8px",
                                    "padding": "14px",
                                    "textAlign": "center",
                                    "cursor": "pointer",
                                    "minWidth": "260px",
                                },
                            ),
                        ],
                        className="view-controls",
                    ),
                    html.Div(id="mdl-status", className="job-status", role="status"),
                    html.Div(
                        [graph("mdl-layers", "open this tab to measure the built-in model")], className="chart-row one"
                    ),
                    html.Div([graph("mdl-overlap"), graph("mdl-angles")], className="chart-row"),
                ],
                className="charts",
            ),
            html.Aside(dcc.Markdown(EXPLAIN, mathjax=True), className="explain part-explain"),
        ],
        className="view-grid",
    )


def _builtin(client: ApiClient, model: str, seed: int) -> tuple[Any, Any]:
    try:
        result = client.get(f"/models/builtin/{model}/hdi", params={"seed": seed})
    except ApiError as exc:
        return {"error": exc.message}, f"{model}: {exc.message}"
    entry = {"source": "builtin", "model": model, "seed": seed, "result": result}
    return entry, summary(entry)


def register_callbacks(app: Dash, client: ApiClient) -> None:
    @app.callback(
        Output("mdl-result", "data"),
        Output("mdl-status", "children"),
        Input(STATE_STORE, "data"),
        Input("mdl-upload", "contents"),
        Input("mdl-builtin-btn", "n_clicks"),
        Input("mdl-num-heads", "value"),
        Input("mdl-num-kv", "value"),
        State("mdl-upload", "contents"),
        State("mdl-upload", "filename"),
        State("mdl-result", "data"),
        prevent_initial_call=False,
    )
    def _load(
        data: Any,
        _uploaded: Any,
        _clicks: Any,
        num_heads: Any,
        num_kv: Any,
        contents: Any,
        filename: Any,
        current: Any,
    ) -> Any:
        st = PageState.from_data(data)
        model = st.get("model", DEFAULT_MODEL)
        seed = int(st.get("mseed", 0) or 0)
        trigger = ctx.triggered_id
        if trigger in ("mdl-upload", "mdl-num-heads", "mdl-num-kv"):
            # a new file, or new head counts for the file already chosen (after a 422 asking for them)
            if not contents:
                return no_update, no_update
            try:
                content = decode_upload(contents)
                result = upload_hdi(client, str(filename or "model.safetensors"), content, num_heads, num_kv, seed)
            except ValueError as exc:
                return no_update, str(exc)
            except ApiError as exc:
                return no_update, f"{filename}: {exc.message}"
            entry = {"source": "upload", "picked": model, "result": result}
            return entry, summary(entry)
        if trigger == "mdl-builtin-btn":
            return _builtin(client, model, seed)
        if not data or st.get("tab") != VIEW_ID:
            return no_update, no_update
        current = current or {}
        if current.get("source") == "upload" and current.get("picked") == model:
            return no_update, no_update  # keep the upload until another built-in is picked
        if current.get("source") == "builtin" and current.get("model") == model and current.get("seed") == seed:
            return no_update, no_update  # a layer change needs no new request
        return _builtin(client, model, seed)

    @app.callback(
        Output(chart_id("mdl-layers"), "figure"),
        Output(chart_id("mdl-overlap"), "figure"),
        Output(chart_id("mdl-angles"), "figure"),
        Output("mdl-layer", "max"),
        Output("mdl-layer", "marks"),
        Input("mdl-result", "data"),
        Input(STATE_STORE, "data"),
    )
    def _figures(entry: Any, data: Any) -> Any:
        if not entry:
            return (no_update,) * 5
        if "error" in entry:
            message = str(entry["error"])
            return empty_figure(message), empty_figure(""), empty_figure(""), no_update, no_update
        result = entry.get("result") or {}
        layer = int(PageState.from_data(data).get("layer", 0) or 0)
        n_layers = len(result.get("layers") or [])
        top = max(n_layers - 1, 0)
        layer = min(layer, top)
        marks = {i: str(i) for i in range(0, top + 1, max(1, (top + 1) // 12))}
        return (layer_bars(result, layer), overlap_heatmap(result, layer), angle_histogram(result, layer), top, marks)


VIEW = View(
    id=VIEW_ID,
    label="Real models",
    layout=layout,
    register_callbacks=register_callbacks,
    url_params=URL_PARAMS,
    description="How diverse are a trained Transformer's heads? Key and query HDI per layer against chance.",
)
