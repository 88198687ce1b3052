"""Charts of a trained model's head diversity: per-layer HDI against chance, a layer's overlap and angles."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures import heatmaps
from headdiv.figures.theme import COMPONENT_COLORS, THEORY_COLOR, empty_figure, fmt, styled
from headdiv.schemas.results.report_results import HeadClusters, LayerHeads, ModelHeadsReport


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


def diversity_heatmap(r: ModelHeadsReport, which: str = "key", name: str | None = None) -> go.Figure:
    """The whole model at a glance: layers (rows, first at the top) x heads, each cell a head's diversity,
    its mean distance `1 - s_hh'` to its layer's other heads (0 = spans what they span, 1 = orthogonal to
    all). One colour scale, 0 to 1, for every model, so two heatmaps compare by eye."""
    rows = r.head_diversity(which)
    if not r.layers or all(row is None for row in rows):
        return empty_figure("each layer has a single head: no diversity to draw")
    width = max(len(row) for row in rows if row is not None)
    z = [(row or []) + [None] * (width - len(row or [])) for row in rows]
    labels = [layer_name(layer, short=True) for layer in r.layers]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"head {h + 1}" for h in range(width)],
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": "diversity", "side": "right"}, "thickness": 12},
            hovertemplate="layer %{y}, %{x}: diversity %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(title="layer", type="category", autorange="reversed")
    fig.update_xaxes(title=f"{which} head", type="category")
    kind = "key" if which != "query" else "query"
    return styled(
        fig,
        f"{name or r.model or 'model'}: each {kind} head's diversity, layer by layer",
        height=max(300, 80 + 22 * len(z)),
        legend=False,
    )


def depth_axis(a: ModelHeadsReport, b: ModelHeadsReport) -> tuple[str, list[float], list[float]]:
    """Where two models' layers sit on one axis: the layer itself when they have as many, else its depth
    (layer / last layer, 0 to 1), so a 6-layer and a 12-layer model line up first to last."""
    na, nb = len(a.layers), len(b.layers)
    if na == nb:
        return "layer", [float(i) for i in range(na)], [float(i) for i in range(nb)]
    return (
        "depth (layer / last layer)",
        [i / max(na - 1, 1) for i in range(na)],
        [i / max(nb - 1, 1) for i in range(nb)],
    )


def compare_layers(a: ModelHeadsReport, b: ModelHeadsReport) -> go.Figure:
    """Two models' per-layer key HDI, each beside its random-subspace baseline, on the same axes."""
    title, xa, xb = depth_axis(a, b)
    fig = go.Figure()
    for report, x, color, dash in (
        (a, xa, COMPONENT_COLORS["variance"], "solid"),
        (b, xb, COMPONENT_COLORS["covariance"], "dash"),
    ):
        label = report.model or "model"
        fig.add_scatter(
            x=x,
            y=[layer.key_hdi for layer in report.layers],
            mode="lines+markers",
            name=f"{label}: key HDI",
            line={"color": color, "dash": dash, "width": 2.5},
        )
        fig.add_scatter(
            x=x,
            y=[layer.random_hdi for layer in report.layers],
            mode="lines",
            name=f"{label}: random subspaces",
            line={"color": color, "dash": "dot", "width": 1.5},
            opacity=0.8,
        )
    fig.update_xaxes(title=title)
    fig.update_yaxes(title="key HDI", range=[0, 1.02])
    return styled(fig, f"{a.model or 'model'} against {b.model or 'model'}: key HDI by layer", height=360)


def compare_sentence(a: ModelHeadsReport, b: ModelHeadsReport) -> str:
    """One line read from the numbers the comparison draws: which model's key heads are more diverse on
    average, and by how much against each one's random baseline. HDI of given weights has no Monte Carlo
    error; the baseline's spread over layers says what a difference of chance size is."""
    mean_a, mean_b = _mean_key(a), _mean_key(b)
    if mean_a is None or mean_b is None:
        return "One of the models has no layer with two key heads or more: nothing to compare."
    base = [x.random_hdi for r in (a, b) for x in r.layers if x.random_hdi is not None]
    spread = (max(base) - min(base)) if len(base) > 1 else 0.0
    na, nb = a.model or "the first model", b.model or "the second model"
    if abs(mean_a - mean_b) <= spread:
        return (
            f"Mean key HDI {fmt(mean_a)} ({na}) and {fmt(mean_b)} ({nb}): a difference of {fmt(abs(mean_a - mean_b))}, "
            f"within the {fmt(spread)} the random baselines themselves vary by: no clear difference."
        )
    more, less = (na, nb) if mean_a > mean_b else (nb, na)
    return (
        f"{more}'s key heads are more diverse: mean key HDI {fmt(max(mean_a, mean_b))} against "
        f"{fmt(min(mean_a, mean_b))} for {less}, a difference of {fmt(abs(mean_a - mean_b))} (the random "
        f"baselines vary by {fmt(spread)})."
    )


def _mean_key(r: ModelHeadsReport) -> float | None:
    keys = [x.key_hdi for x in r.layers if x.key_hdi is not None]
    return sum(keys) / len(keys) if keys else None


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
