"""Charts of a trained model's head diversity: per-layer HDI against chance, a layer's overlap and angles."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures import heatmaps
from headdiv.figures.theme import COMPONENT_COLORS, THEORY_COLOR, empty_figure, fmt, styled
from headdiv.schemas.results.reports import HeadClusters, LayerHeads, ModelHeadsReport


def layer_bars(r: ModelHeadsReport, chosen: int | None = None) -> go.Figure:
    layers = r.layers
    x = [layer_name(layer, short=True) for layer in layers]
    fig = go.Figure()
    fig.add_bar(
        x=x,
        y=[layer.key_hdi for layer in layers],
        name="key heads",
        marker_color=COMPONENT_COLORS["variance"],
    )
    fig.add_bar(
        x=x,
        y=[layer.query_hdi for layer in layers],
        name="query heads",
        marker_color=COMPONENT_COLORS["covariance"],
    )
    fig.add_scatter(
        x=x,
        y=[layer.random_hdi for layer in layers],
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
        f"{r.model or 'model'}: {r.num_heads} heads ({r.num_kv_heads} key heads) "
        f"of d_k = {r.d_k} in d_model = {r.d_model}"
    )
    return styled(fig, title, height=360)


SHORT_STACKS = {"self-attention": "self", "cross-attention": "cross", "encoder": "enc", "decoder": "dec"}


def layer_name(item: LayerHeads, *, short: bool = False) -> str:
    """ "layer 3", or with the stack of a model that has several ("layer 3, decoder cross-attention"); short,
    for an axis: "3" or "3 dec cross"."""
    if not item.stack:
        return str(item.layer) if short else f"layer {item.layer}"
    if short:
        return f"{item.layer} " + " ".join(SHORT_STACKS.get(w, w) for w in item.stack.split())
    return f"layer {item.layer}, {item.stack}"


def layer_of(r: ModelHeadsReport, layer: int) -> LayerHeads | None:
    """The report's layer at index `layer`, clamped to the layers there are (None when there are none)."""
    return r.layers[max(0, min(layer, len(r.layers) - 1))] if r.layers else None


def overlap_heatmap(r: ModelHeadsReport, layer: int) -> go.Figure:
    item = layer_of(r, layer)
    if item is None:
        return empty_figure("no layers")
    title = f"Key overlap, {layer_name(item)} (HDI {fmt(item.key_hdi)}, random {fmt(item.random_hdi)})"
    return heatmaps.overlap_heatmap(
        item.key_overlap, item.key_principal_angles_deg, title, label="head ", first=1, height=360
    )


def angle_histogram(r: ModelHeadsReport, layer: int) -> go.Figure:
    item = layer_of(r, layer)
    if item is None:
        return empty_figure("no layers")
    angles = [a for pair in item.key_principal_angles_deg for a in pair.angles]
    fig = go.Figure(
        go.Histogram(
            x=angles,
            xbins={"start": 0, "end": 90, "size": 3},
            marker_color=COMPONENT_COLORS["variance"],
            name="principal angles",
        )
    )
    # a little room left of 0, so the first x label does not sit in the corner on the y axis's "0"
    fig.update_xaxes(title="angle (degrees; 90 = orthogonal)", range=[-3, 93])
    fig.update_yaxes(title="count")
    return styled(fig, f"Principal angles between key heads, {layer_name(item)}", height=300, legend=False)


def summary(r: ModelHeadsReport, source: str) -> str:
    """One line on the model measured (`source`: "upload", "builtin" or "server") and its key HDI against
    chance."""
    keys = [layer.key_hdi for layer in r.layers if layer.key_hdi is not None]
    rand = [layer.random_hdi for layer in r.layers if layer.random_hdi is not None]
    where = {"upload": "uploaded", "server": "model on this server"}.get(source, "built-in model")
    text = f"{where} {r.model} ({r.style} naming), {len(r.layers)} layers"
    if keys and rand:
        below = sum(k < q for k, q in zip(keys, rand, strict=False))
        text += (
            f"; mean key HDI {fmt(sum(keys) / len(keys))} against {fmt(sum(rand) / len(rand))} for "
            f"random subspaces ({below} of {len(keys)} layers below chance)"
        )
    return text


def clusters_of(r: ModelHeadsReport, layer: int, which: str) -> tuple[LayerHeads | None, HeadClusters | None]:
    """A layer and the clusters of its `which` ("key" or "query") heads (None where it has none)."""
    item = layer_of(r, layer)
    if item is None:
        return None, None
    return item, item.clusters.query if which == "query" else item.clusters.key


def dendrogram_figure(r: ModelHeadsReport, layer: int, which: str = "key") -> go.Figure:
    """scipy's dendrogram of the heads (distance 1 - overlap, average linkage), leaves labelled by head."""
    item, c = clusters_of(r, layer, which)
    if item is None or c is None:
        return empty_figure("clusters need three heads or more (and at most 256)")
    fig = go.Figure()
    for xs, ys in zip(c.icoord, c.dcoord, strict=False):
        fig.add_scatter(
            x=xs, y=ys, mode="lines", line={"color": THEORY_COLOR, "width": 1.5}, hoverinfo="skip", showlegend=False
        )
    order = c.order
    fig.update_xaxes(
        tickvals=[5 + 10 * i for i in range(len(order))],
        ticktext=[f"{h + 1}" + (f" (g{c.groups[h] + 1})" if which == "query" else "") for h in order],
        title=f"{which} head (key group)" if which == "query" else "key head",
    )
    fig.add_hline(y=c.cut, line={"color": "#999", "dash": "dot", "width": 1}, annotation_text="cut")
    # scipy puts leaf i at 5 + 10 i: half a leaf of room each side keeps the first label off the corner
    fig.update_xaxes(range=[0, 10 * len(order)])
    fig.update_yaxes(title="distance 1 − overlap", range=[0, 1.02])
    return styled(fig, f"Dendrogram of the {which} heads, {layer_name(item)}", height=340, legend=False)


def clustered_heatmap(r: ModelHeadsReport, layer: int, which: str = "key") -> go.Figure:
    """The overlap matrix with heads in the dendrogram's order, so clusters show as blocks."""
    item, c = clusters_of(r, layer, which)
    if item is None or c is None:
        return empty_figure("")
    groups = c.groups
    query = which == "query"
    return heatmaps.overlap_heatmap(
        item.query_overlap if query else item.key_overlap,
        [] if query else item.key_principal_angles_deg,  # the report lists the key heads' angles only
        f"{which.capitalize()} overlap in cluster order, {layer_name(item)}",
        height=360,
        order=c.order,
        names=[f"{h + 1}" + (f"·g{groups[h] + 1}" if which == "query" else "") for h in range(len(groups))],
    )


def contribution_bars(r: ModelHeadsReport, layer: int, which: str = "key") -> go.Figure:
    """Each head's diversity contribution HDI(layer) − HDI(without it); the lowest are the pruning candidates."""
    item, c = clusters_of(r, layer, which)
    if item is None or c is None:
        return empty_figure("")
    ranked = c.redundant_first
    fig = go.Figure(
        go.Bar(
            x=[f"{h + 1}" + (f"·g{c.groups[h] + 1}" if which == "query" else "") for h in ranked],
            y=[c.contribution[h] for h in ranked],
            marker_color=[
                COMPONENT_COLORS["bias2"] if i < max(1, len(ranked) // 4) else COMPONENT_COLORS["variance"]
                for i in range(len(ranked))
            ],
            hovertemplate="head %{x}<br>contribution %{y:.4g}<extra></extra>",
        )
    )
    fig.update_xaxes(title="head, most redundant first", type="category")
    # short: a long vertical title reaches the top corner, where a wrapped chart title comes down to
    fig.update_yaxes(title="HDI − HDI<sub>−h</sub>")
    return styled(
        fig,
        f"Diversity contribution of each {which} head, {layer_name(item)} (red: prune first)",
        height=340,
        legend=False,
    )
