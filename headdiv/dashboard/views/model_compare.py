"""The Real models view's second model: `cmodel=` (a built-in's name or a server model's id) measured with the
same seed and drawn beside the first on the same axes, with each one's layers x heads diversity and a
sentence read from the numbers (`headdiv.figures.model_charts.compare_*`); its JSON/CSV downloads are the
`ModelComparison` (one row per model and layer)."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, dcc, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.view_jobs import register_exports
from headdiv.dashboard.page.component_ids import view_state
from headdiv.dashboard.page.components import chart_outputs, control, download_bar, graph
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState
from headdiv.dashboard.views.model_measure import (
    API_PATHS,
    BUILTIN_SECONDS,
    HIDDEN,
    SHOWN,
    VIEW_ID,
    identity,
    model_box,
    sentence,
)
from headdiv.figures import model_charts as figs
from headdiv.schemas.builtin_models import BUILTINS
from headdiv.schemas.results.report_results import ModelComparison, ModelHeadsReport

COMPARE_CHARTS = ("mdl-cmp-layers", "mdl-cmp-div-a", "mdl-cmp-div-b")
"""The comparison's charts, in the order `_compare_figures` draws them."""


def compare_control(state: PageState) -> Component:
    """The "compare with" box: a text input with the built-ins (and, once listed, the server's models) as
    suggestions."""
    return control(
        _("compare with"),
        model_box(
            "mdl-compare",
            str(state.get("cmodel") or ""),
            _("none"),
            [html.Option(value=name, label=_("built-in")) for name in BUILTINS],
        ),
        "cmodel",
        _(
            "A second model (a built-in's name or a model on this server) drawn beside the first on "
            "the same axes: a base model and its fine-tune, two sizes of one family."
        ),
    )


def compare_section() -> Component:
    """The comparison's store, status line and charts (hidden until a second model is measured)."""
    return html.Div(
        [
            dcc.Store(id="mdl-cmp-result"),
            html.Div(id="mdl-cmp-status", className="job-status", role="status"),
            html.Div(
                [
                    html.H4(_("Two models on the same axes")),
                    html.Div([graph("mdl-cmp-layers")], className="chart-row one"),
                    html.Div(id="mdl-cmp-verdict", className="verdict", role="status"),
                    html.Div([graph("mdl-cmp-div-a"), graph("mdl-cmp-div-b")], className="chart-row"),
                    download_bar("mdl-cmp"),
                ],
                id="mdl-cmp-charts",
                style=HIDDEN,
            ),
        ]
    )


def register_compare(app: Dash, client: ApiClient) -> None:
    register_exports(app, "mdl-cmp", "model-comparison", store="mdl-cmp-result", model=ModelComparison)

    @app.callback(
        Output("mdl-cmp-result", "data"),
        Output("mdl-cmp-status", "children"),
        Output("mdl-cmp-charts", "style"),
        Input("mdl-result", "data"),
        Input(view_state(VIEW_ID), "data"),
        State("mdl-cmp-result", "data"),
        prevent_initial_call=True,
    )
    def _compare(entry: Any, data: Any, current: Any) -> Any:
        """The model on screen and the one to compare with (`cmodel`), measured with the same seed: one
        comparison in the store (asked again only when either model or the seed changes)."""
        st = PageState.from_data(data)
        other = str(st.get("cmodel") or "")
        if st.get("tab") != VIEW_ID:
            return no_update, no_update, no_update
        if not other or not entry or "result" not in entry:
            return ({}, "", HIDDEN) if current else (no_update, no_update, no_update)
        seed = int(st.get("mseed", 0) or 0)
        key = [*identity(entry), other, seed]
        if (current or {}).get("key") == key:
            return no_update, no_update, no_update
        source = "builtin" if other in BUILTINS else "server"
        try:
            raw = client.get(f"{API_PATHS[source]}/{other}/hdi", params={"seed": seed}, slow=BUILTIN_SECONDS)
        except ApiError as exc:
            refused = _("Compare with {model}: {reason}").format(model=other, reason=sentence(exc.message))
            return {"key": key}, refused, HIDDEN
        a = ModelHeadsReport.model_validate(entry["result"])
        b = ModelHeadsReport.model_validate(raw)
        if b.model is None or b.model == a.model:
            b = b.model_copy(update={"model": other if b.model is None else f"{other} (second)"})
        result = ModelComparison(a=a, b=b).model_dump(mode="json")
        return {"key": key, "result": result}, "", SHOWN

    @app.callback(
        *chart_outputs(COMPARE_CHARTS),
        Output("mdl-cmp-verdict", "children"),
        Input("mdl-cmp-result", "data"),
        Input(view_state(VIEW_ID), "data"),
        prevent_initial_call=True,
    )
    def _compare_figures(stored: Any, data: Any) -> Any:
        if not stored or "result" not in stored:
            return (no_update,) * (len(COMPARE_CHARTS) + 1)
        both = ModelComparison.model_validate(stored["result"])
        which = str(PageState.from_data(data).get("mheads", "key"))
        return (
            figs.compare_layers(both.a, both.b),
            figs.diversity_heatmap(both.a, which),
            figs.diversity_heatmap(both.b, which),
            figs.compare_sentence(both.a, both.b),
        )
