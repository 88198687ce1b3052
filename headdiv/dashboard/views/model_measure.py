"""How the Real models view asks the API for a measured model (a built-in or one of the server's), and what
it shows while it waits or when refused: shared by the view and its comparison (`model_compare`)."""

from __future__ import annotations

from typing import Any

from dash import dcc, html
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.page.language import _
from headdiv.figures import model_charts as figs
from headdiv.schemas.results.report_results import ModelHeadsReport

VIEW_ID = "models"
SHOWN: dict[str, str] = {}
HIDDEN = {"display": "none"}
BUILTIN_SECONDS = 60.0
"""A built-in model's first measurement reads and decomposes every layer (seconds; cached after)."""


API_PATHS = {"builtin": "/models/builtin", "server": "/models/local"}
"""Where the API measures a model the page names: a built-in one, or one of the server's own."""


def measured(client: ApiClient, source: str, model: str, seed: int) -> tuple[Any, Any, Any]:
    """A built-in model's or a server model's entry, the status line and the charts' visibility: a refusal
    reads as one sentence with no blank charts under it, in the same round trip."""
    try:
        result = client.get(f"{API_PATHS[source]}/{model}/hdi", params={"seed": seed}, slow=BUILTIN_SECONDS)
    except ApiError as exc:
        return {"error": exc.message}, sentence(exc.message), HIDDEN
    entry = {"source": source, "model": model, "seed": seed, "result": result}
    return entry, figs.summary(ModelHeadsReport.model_validate(result), source), SHOWN


def model_box(box_id: str, value: str, placeholder: str, options: list[Component] | None = None) -> Component:
    """A text box naming a model, with suggestions (a datalist `<box_id>-list`): a dropdown would drop a
    link's model before the server's listing arrives."""
    return html.Div(
        [
            dcc.Input(
                id=box_id,
                type="text",
                value=value,
                debounce=True,
                list=f"{box_id}-list",
                placeholder=placeholder,
                className="text-input",
            ),
            html.Datalist(options or [], id=f"{box_id}-list"),
        ]
    )


def identity(entry: dict[str, Any]) -> list[Any]:
    """What tells one measured model on screen from another, cheaply (an upload has no name in the URL): its
    source, name, layer count and first layer's key HDI."""
    result = entry.get("result") or {}
    layers = result.get("layers") or [{}]
    return [entry.get("source"), result.get("model"), len(layers), layers[0].get("key_hdi")]


def sentence(message: str) -> str:
    """An API refusal as one plain sentence (capital first, full stop last): the page shows it alone."""
    text = message.strip()
    if not text:
        return _("The model could not be measured.")
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def prune_forecast(result: ModelHeadsReport, layer: int, which: str) -> str:
    """One sentence: the heads whose removal costs the layer least diversity, and the clusters found."""
    item, c = figs.clusters_of(result, layer, which)
    if item is None:
        return ""
    if c is None:
        return _("Clustering needs three heads or more (and at most 256).")
    ranked = c.redundant_first
    k = max(1, len(ranked) // 4)
    names = ", ".join(str(h + 1) for h in ranked[:k])
    cheapest = c.contribution[ranked[0]]
    clusters = len(set(c.labels))
    # the query heads' clusters where `which` is "query", else the key heads' (`figs.clusters_of`)
    if which == "query":
        pruning = _(
            "Layer {layer}: pruning query heads {names} first costs the least diversity (head {head} "
            "changes HDI by {change} when removed)."
        )
    else:
        pruning = _(
            "Layer {layer}: pruning key heads {names} first costs the least diversity (head {head} "
            "changes HDI by {change} when removed)."
        )
    found = _("{clusters} cluster(s) of {heads} heads at the cut (mean overlap above {cut} within a cluster).")
    return (
        pruning.format(layer=item.layer, names=names, head=ranked[0] + 1, change=f"{-cheapest:+.4f}")
        + " "
        + found.format(clusters=clusters, heads=len(ranked), cut=f"{1 - c.cut:g}")
    )
