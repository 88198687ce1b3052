"""Real models view: the Head Diversity Index of trained Transformers, layer by layer.

A built-in model (shipped in an optional package, works offline) or an uploaded `.safetensors` file is
sent to the API (`/api/v1/models/...`); the answer is drawn (`headdiv/figures/model_charts.py`) as per-layer
key/query HDI bars against the HDI of random subspaces of the same shapes, and the key-overlap heatmap
of a chosen layer. The built-in's name, the layer and the baseline seed are URL parameters; an upload is
not (a link cannot carry a file), so the status line says which model is on screen.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.view_jobs import register_exports
from headdiv.dashboard.page.component_ids import view_state
from headdiv.dashboard.page.components import (
    chart_outputs,
    control,
    download_bar,
    graph,
    number_input,
    radio,
    view_page,
)
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState, Param
from headdiv.dashboard.views.model_compare import COMPARE_CHARTS, compare_control, compare_section, register_compare
from headdiv.dashboard.views.model_measure import HIDDEN, SHOWN, VIEW_ID, measured, model_box, prune_forecast
from headdiv.dashboard.views.view_protocol import View
from headdiv.figures import model_charts as figs
from headdiv.i18n import N_
from headdiv.schemas.builtin_models import BUILTINS
from headdiv.schemas.csv_tables import head_clusters_csv
from headdiv.schemas.fields import MAX_SEED
from headdiv.schemas.results.report_results import ModelHeadsReport

DEFAULT_MODEL = next(iter(BUILTINS))
MAX_LAYER = 255


# ---------------------------------------------------------------------------------------------------
# Layout and callbacks
# ---------------------------------------------------------------------------------------------------


def upload_box() -> Component:
    """File choosers (files, or a whole model folder) and a drop target that assets/upload.js sends straight
    to the API, multipart, with a progress bar and a cancel button; the answer comes back through the store
    `mdl-upload-result`. A folder's config.json, shards and index go together (its other files stay here)."""
    # the file type is set in bold inside the sentence, wherever the language puts it
    before, _kind, after = _("Choose {kind} files").partition("{kind}")
    return html.Div(
        [
            html.Div(
                [
                    html.Button([before, html.B(".safetensors"), after], id="mdl-choose", className="btn"),
                    html.Button(_("Choose a model folder"), id="mdl-choose-folder", className="btn"),
                    html.Span(" " + _("or drop them here"), className="upload-hint"),
                ],
                className="upload-box",
            ),
            html.Div(
                [
                    html.Progress(id="mdl-upload-progress", max="1", value="0"),
                    html.Span(id="mdl-upload-note", className="upload-note"),
                    html.Button(_("Cancel upload"), id="mdl-upload-cancel", n_clicks=0, className="btn btn-small"),
                ],
                id="mdl-upload-bar",
                className="upload-bar",
                style=HIDDEN,
            ),
            dcc.Store(id="mdl-upload-result"),
        ],
        id="mdl-upload",
    )


def layout(state: PageState) -> Component:
    return view_page(
        [
            dcc.Store(id="mdl-result"),
            # the model and the layer, which every chart below follows: a phone keeps them just above the
            # charts (`lead-controls`) where the view's other controls come after the charts
            html.Div(
                [
                    control(
                        _("built-in model"),
                        dcc.Dropdown(
                            id="mdl-model",
                            options=[{"label": n, "value": n} for n in BUILTINS],
                            value=state.get("model", DEFAULT_MODEL),
                            clearable=False,
                        ),
                        "model",
                        _("Example weights shipped in an optional package (works offline)."),
                    ),
                    control(
                        _("layer"),
                        # the charts follow the thumb: a layer needs no computation, only drawing from the
                        # report on the page (built-in or uploaded); the drag is one history entry (live.js)
                        dcc.Slider(0, 5, 1, value=state.get("layer", 0), id="mdl-layer", updatemode="drag"),
                        "layer",
                        _("Layer whose key overlap is drawn."),
                    ),
                ],
                className="view-controls lead-controls",
            ),
            html.Div(
                [
                    control(
                        _("model on this server"),
                        model_box("mdl-local", str(state.get("smodel") or ""), _("none: the built-in model")),
                        "smodel",
                        _(
                            "A model this server has on disk (its models folder or Hugging Face cache), measured "
                            "instead of the built-in one."
                        ),
                    ),
                    compare_control(state),
                    control(
                        _("baseline seed"),
                        number_input("mdl-seed", state.get("mseed", 0), low=0),
                        "mseed",
                        _("Seed of the random subspaces."),
                    ),
                    html.Button(
                        _("Show the built-in model"), id="mdl-builtin-btn", n_clicks=0, className="btn btn-small"
                    ),
                ],
                className="view-controls",
            ),
            html.Div(
                [
                    control(
                        "num_heads",
                        number_input("mdl-num-heads", low=1, high=4096, placeholder=_("from the file")),
                        "num_heads",
                        _("Query heads per layer, when the file does not say."),
                    ),
                    control(
                        "num_kv_heads",
                        number_input("mdl-num-kv", low=1, high=4096, placeholder="= num_heads"),
                        "num_kv_heads",
                        _("Key/value heads of a grouped-query model."),
                    ),
                    upload_box(),
                ],
                className="view-controls",
            ),
            html.Div(id="mdl-status", className="job-status", role="status"),
            html.Div(
                [
                    html.Div(
                        [graph("mdl-layers", "open this tab to measure the built-in model")], className="chart-row one"
                    ),
                    html.Div([graph("mdl-overlap"), graph("mdl-angles")], className="chart-row"),
                    download_bar("mdl"),
                    html.H4(_("Heads clustered and ranked")),
                    html.Div(
                        [
                            control(
                                _("heads"),
                                radio(
                                    "mdl-heads",
                                    {"key": _("key heads"), "query": _("query heads")},
                                    state.get("mheads", "key"),
                                ),
                                "mheads",
                                _(
                                    "Which heads are clustered: key heads (one per key group) or query heads, "
                                    "labelled by group."
                                ),
                            ),
                            html.Button(
                                _("Download clusters CSV"), id="mdl-dl-clusters", n_clicks=0, className="btn btn-small"
                            ),
                            dcc.Download(id="mdl-clusters-download"),
                        ],
                        className="view-controls",
                    ),
                    html.Div([graph("mdl-dendro"), graph("mdl-clustered")], className="chart-row"),
                    html.Div([graph("mdl-contrib")], className="chart-row one"),
                    html.Div(id="mdl-prune", className="verdict", role="status"),
                    html.H4(_("The whole model at a glance")),
                    html.Div([graph("mdl-diversity")], className="chart-row one"),
                ],
                id="mdl-charts",
            ),
            compare_section(),
        ],
        "models",
    )


CHARTS = ("mdl-layers", "mdl-overlap", "mdl-angles", "mdl-dendro", "mdl-clustered", "mdl-contrib", "mdl-diversity")
"""The view's charts, in the order `_figures` draws them (every one of the layer shown, and the whole model)."""


def _builtin(client: ApiClient, model: str, seed: int) -> tuple[Any, Any, Any]:
    return measured(client, "builtin", model, seed)


def _uploaded(uploaded: Any, picked: str) -> tuple[Any, Any, Any]:
    """What the page's upload (assets/upload.js) brought back: the file's report drawn, or why not in one
    line (the charts on screen stay)."""
    if not isinstance(uploaded, dict):
        return no_update, no_update, no_update
    name = str(uploaded.get("name") or _("the file"))
    if "result" not in uploaded:
        error = uploaded.get("error") or _("the upload failed")
        return no_update, _("{name}: {error}").format(name=name, error=error), no_update
    try:
        report = ModelHeadsReport.model_validate(uploaded["result"])
    except ValueError:
        note = _("{name}: the API answered with something that is not a model report").format(name=name)
        return no_update, note, no_update
    entry = {"source": "upload", "picked": picked, "result": uploaded["result"]}
    return entry, figs.summary(report, "upload"), SHOWN


def register_callbacks(app: Dash, client: ApiClient) -> None:
    register_exports(app, "mdl", "real-model-hdi", model=ModelHeadsReport)

    @app.callback(
        Output("mdl-result", "data"),
        Output("mdl-status", "children"),
        Output("mdl-charts", "style"),
        Input(view_state(VIEW_ID), "data"),
        Input("mdl-upload-result", "data"),
        Input("mdl-builtin-btn", "n_clicks"),
        State("mdl-result", "data"),
        prevent_initial_call=True,
    )
    def _load(data: Any, uploaded: Any, _clicks: Any, current: Any) -> Any:
        st = PageState.from_data(data)
        model = st.get("model", DEFAULT_MODEL)
        on_server = st.get("smodel") or ""
        seed = int(st.get("mseed", 0) or 0)
        trigger = ctx.triggered_id
        if trigger == "mdl-upload-result":
            return _uploaded(uploaded, on_server or model)
        if trigger == "mdl-builtin-btn":
            return _builtin(client, model, seed)
        if not data or st.get("tab") != VIEW_ID:
            return no_update, no_update, no_update
        current = current or {}
        if current.get("source") == "upload" and current.get("picked") == (on_server or model):
            return no_update, no_update, no_update  # keep the upload until another model is picked
        source = "server" if on_server else "builtin"
        wanted = on_server or model
        if current.get("source") == source and current.get("model") == wanted and current.get("seed") == seed:
            return no_update, no_update, no_update  # a layer change needs no new request
        return measured(client, source, wanted, seed)

    @app.callback(
        Output("mdl-local-list", "children"),
        Output("mdl-compare-list", "children"),
        Input(view_state(VIEW_ID), "data"),
        State("mdl-local-list", "children"),
        prevent_initial_call=True,
    )
    def _server_models(data: Any, listed: Any) -> Any:
        """The server's models as suggestions (and, with the built-ins, as models to compare with), asked
        once when the view first opens (the server keeps its listing); those whose layout cannot be read are
        not offered."""
        if listed or PageState.from_data(data).get("tab") != VIEW_ID:
            return no_update, no_update
        try:
            models = client.get("/models/local")["models"]
        except ApiError:
            return no_update, no_update
        described = _("{style}, {layers} layers, {size} MB")
        options = [
            html.Option(
                value=m["id"],
                label=described.format(style=m["style"], layers=m["layers"], size=f"{m['size_bytes'] / 2**20:.0f}"),
            )
            for m in models
            if m["style"] is not None
        ]
        return options, [*(html.Option(value=name, label=_("built-in")) for name in BUILTINS), *options]

    @app.callback(
        *chart_outputs(CHARTS),
        Output("mdl-prune", "children"),
        Output("mdl-layer", "max"),
        Output("mdl-layer", "marks"),
        Input("mdl-result", "data"),
        Input(view_state(VIEW_ID), "data"),
        prevent_initial_call=True,
    )
    def _figures(entry: Any, data: Any) -> Any:
        """Every chart of the layer shown (one round trip when the layer or the heads clustered change)."""
        if not entry or "error" in entry or "result" not in entry:  # the status line says why; charts hidden
            return (no_update,) * (len(CHARTS) + 3)
        result = ModelHeadsReport.model_validate(entry["result"])
        st = PageState.from_data(data)
        top = max(len(result.layers) - 1, 0)
        layer = min(int(st.get("layer", 0) or 0), top)
        which = str(st.get("mheads", "key"))
        marks = {i: str(i) for i in range(0, top + 1, max(1, (top + 1) // 12))}
        return (
            figs.layer_bars(result, layer),
            figs.overlap_heatmap(result, layer),
            figs.angle_histogram(result, layer),
            figs.dendrogram_figure(result, layer, which),
            figs.clustered_heatmap(result, layer, which),
            figs.contribution_bars(result, layer, which),
            figs.diversity_heatmap(result, which),
            prune_forecast(result, layer, which),
            top,
            marks,
        )

    register_compare(app, client)

    @app.callback(
        Output("mdl-clusters-download", "data"),
        Input("mdl-dl-clusters", "n_clicks"),
        State("mdl-result", "data"),
        prevent_initial_call=True,
    )
    def _download(_clicks: Any, entry: Any) -> Any:
        raw = (entry or {}).get("result")
        if not raw:
            return no_update
        report = ModelHeadsReport.model_validate(raw)
        name = (report.model or "model").removesuffix(".safetensors")
        return {"content": head_clusters_csv(report), "filename": f"headdiv-{name}-head-clusters.csv"}


def model_name(name: str, component: str, help: str) -> Param:
    """A model named in the link (a server model's id, a built-in's name), held by a text box."""
    return Param(
        name,
        "name",
        "",
        component=component,
        to_component=lambda v: v or "",
        from_component=lambda c: str(c).strip() if c else "",
        help=help,
    )


VIEW = View(
    id=VIEW_ID,
    label=N_("Real models"),
    layout=layout,
    register_callbacks=register_callbacks,
    charts=CHARTS + COMPARE_CHARTS,
    url_params=[
        Param(
            "model",
            "choice",
            DEFAULT_MODEL,
            component="mdl-model",
            choices=tuple(BUILTINS),
            help="Built-in model whose heads are measured.",
        ),
        model_name(
            "smodel",
            "mdl-local",
            "A model on this server (GET /api/v1/models/local) measured instead of the built-in one.",
        ),
        model_name(
            "cmodel", "mdl-compare", "A second model (a built-in's name or a server model's id) drawn beside the first."
        ),
        Param("layer", "int", 0, component="mdl-layer", lo=0, hi=MAX_LAYER, help="Layer whose key overlap is drawn."),
        Param("mseed", "int", 0, component="mdl-seed", lo=0, hi=MAX_SEED, help="Seed of the random-subspace baseline."),
        Param(
            "mheads",
            "choice",
            "key",
            component="mdl-heads",
            choices=("key", "query"),
            help="Heads clustered and ranked: key or query heads.",
        ),
    ],
    # the header's numbers stay those of the sidebar's simulated heads, beside this model's own HDI: said here
    description=N_(
        "How diverse are a trained Transformer's heads? Key and query HDI per layer against chance. The header's "
        "MSE, HDI, H_eff and ρ̄ are the sidebar's simulated heads, not this model's."
    ),
    ignores={key: N_("a trained model's heads are measured, not simulated") for key in ("H", "d_k", "n", "theta")},
)
