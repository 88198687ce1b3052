"""Charts of a trained model's head diversity: per-layer HDI against chance, a layer's overlap and angles."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures import heatmaps
from headdiv.figures.theme import COMPONENT_COLORS, THEORY_COLOR, empty_figure, fmt, styled
from headdiv.i18n import N_, _
from headdiv.schemas.results.report_results import HeadClusters, LayerHeads, ModelHeadsReport


def _by_kind(which: str, key: str, query: str) -> str:
    """The text said of query heads (`which` "query") or else of key heads, in the language spoken now."""
    return _(query) if which == "query" else _(key)


def _head(h: int) -> str:
    return _("head {number}").format(number=h + 1)


def layer_bars(r: ModelHeadsReport, chosen: int | None = None) -> go.Figure:
    layers = r.layers
    x = [layer_name(layer, short=True) for layer in layers]
    fig = go.Figure()
    fig.add_bar(
        x=x,
        y=[layer.key_hdi for layer in layers],
        name=_("key heads"),
        marker_color=COMPONENT_COLORS["variance"],
    )
    fig.add_bar(
        x=x,
        y=[layer.query_hdi for layer in layers],
        name=_("query heads"),
        marker_color=COMPONENT_COLORS["covariance"],
    )
    fig.add_scatter(
        x=x,
        y=[layer.random_hdi for layer in layers],
        mode="markers",
        name=_("random subspaces"),
        marker={"symbol": "line-ew-open", "size": 26, "color": THEORY_COLOR, "line": {"width": 3}},
    )
    if chosen is not None and 0 <= chosen < len(layers):
        fig.add_vrect(x0=chosen - 0.5, x1=chosen + 0.5, fillcolor="rgba(0,0,0,0.06)", line_width=0)
    fig.update_layout(barmode="group")
    fig.update_xaxes(title=_("layer"), type="category")
    fig.update_yaxes(title="HDI", range=[0, 1.02])
    title = _("{model}: {heads} heads ({key_heads} key heads) of d_k = {d_k} in d_model = {d_model}").format(
        model=r.model or _("model"), heads=r.num_heads, key_heads=r.num_kv_heads, d_k=r.d_k, d_model=r.d_model
    )
    return styled(fig, title, height=360)


SHORT_STACKS = {"self-attention": "self", "cross-attention": "cross", "encoder": "enc", "decoder": "dec"}


def layer_name(item: LayerHeads, *, short: bool = False) -> str:
    """ "layer 3", or with the stack of a model that has several ("layer 3, decoder cross-attention"); short,
    for an axis: "3" or "3 dec cross"."""
    if not item.stack:
        return str(item.layer) if short else _("layer {number}").format(number=item.layer)
    if short:
        return f"{item.layer} " + " ".join(SHORT_STACKS.get(w, w) for w in item.stack.split())
    return _("layer {number}, {stack}").format(number=item.layer, stack=item.stack)


def layer_of(r: ModelHeadsReport, layer: int) -> LayerHeads | None:
    """The report's layer at index `layer`, clamped to the layers there are (None when there are none)."""
    return r.layers[max(0, min(layer, len(r.layers) - 1))] if r.layers else None


def overlap_heatmap(r: ModelHeadsReport, layer: int) -> go.Figure:
    item = layer_of(r, layer)
    if item is None:
        return empty_figure(_("no layers"))
    title = _("Key overlap, {layer} (HDI {hdi}, random {random})").format(
        layer=layer_name(item), hdi=fmt(item.key_hdi), random=fmt(item.random_hdi)
    )
    return heatmaps.overlap_heatmap(
        item.key_overlap,
        item.key_principal_angles_deg,
        title,
        height=360,
        names=[_head(h) for h in range(len(item.key_overlap))],
    )


def angle_histogram(r: ModelHeadsReport, layer: int) -> go.Figure:
    item = layer_of(r, layer)
    if item is None:
        return empty_figure(_("no layers"))
    angles = [a for pair in item.key_principal_angles_deg for a in pair.angles]
    fig = go.Figure(
        go.Histogram(
            x=angles,
            xbins={"start": 0, "end": 90, "size": 3},
            marker_color=COMPONENT_COLORS["variance"],
            name=_("principal angles"),
        )
    )
    # a little room left of 0, so the first x label does not sit in the corner on the y axis's "0"
    fig.update_xaxes(title=_("angle (degrees; 90 = orthogonal)"), range=[-3, 93])
    fig.update_yaxes(title=_("count"))
    title = _("Principal angles between key heads, {layer}").format(layer=layer_name(item))
    return styled(fig, title, height=300, legend=False)


def diversity_heatmap(r: ModelHeadsReport, which: str = "key", name: str | None = None) -> go.Figure:
    """The whole model at a glance: layers (rows, first at the top) x heads, each cell a head's diversity,
    its mean distance `1 - s_hh'` to its layer's other heads (0 = spans what they span, 1 = orthogonal to
    all). One colour scale, 0 to 1, for every model, so two heatmaps compare by eye."""
    rows = r.head_diversity(which)
    if not r.layers or all(row is None for row in rows):
        return empty_figure(_("each layer has a single head: no diversity to draw"))
    width = max(len(row) for row in rows if row is not None)
    z = [(row or []) + [None] * (width - len(row or [])) for row in rows]
    labels = [layer_name(layer, short=True) for layer in r.layers]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[_head(h) for h in range(width)],
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": _("diversity"), "side": "right"}, "thickness": 12},
            hovertemplate=_("layer %{y}, %{x}: diversity %{z:.3f}<extra></extra>"),
        )
    )
    fig.update_yaxes(title=_("layer"), type="category", autorange="reversed")
    axis = _("key head") if which == "key" else _("query head") if which == "query" else f"{which} head"
    fig.update_xaxes(title=axis, type="category")
    title = _by_kind(
        which,
        N_("{model}: each key head's diversity, layer by layer"),
        N_("{model}: each query head's diversity, layer by layer"),
    )
    return styled(
        fig,
        title.format(model=name or r.model or _("model")),
        height=max(300, 80 + 22 * len(z)),
        legend=False,
    )


def depth_axis(a: ModelHeadsReport, b: ModelHeadsReport) -> tuple[str, list[float], list[float]]:
    """Where two models' layers sit on one axis: the layer itself when they have as many, else its depth
    (layer / last layer, 0 to 1), so a 6-layer and a 12-layer model line up first to last."""
    na, nb = len(a.layers), len(b.layers)
    if na == nb:
        return N_("layer"), [float(i) for i in range(na)], [float(i) for i in range(nb)]
    return (
        N_("depth (layer / last layer)"),
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
        label = report.model or _("model")
        fig.add_scatter(
            x=x,
            y=[layer.key_hdi for layer in report.layers],
            mode="lines+markers",
            name=_("{model}: key HDI").format(model=label),
            line={"color": color, "dash": dash, "width": 2.5},
        )
        fig.add_scatter(
            x=x,
            y=[layer.random_hdi for layer in report.layers],
            mode="lines",
            name=_("{model}: random subspaces").format(model=label),
            line={"color": color, "dash": "dot", "width": 1.5},
            opacity=0.8,
        )
    fig.update_xaxes(title=_(title))
    fig.update_yaxes(title=_("key HDI"), range=[0, 1.02])
    title = _("{first} against {second}: key HDI by layer").format(
        first=a.model or _("model"), second=b.model or _("model")
    )
    return styled(fig, title, height=360)


def compare_sentence(a: ModelHeadsReport, b: ModelHeadsReport) -> str:
    """One line read from the numbers the comparison draws: which model's key heads are more diverse on
    average, and by how much against each one's random baseline. HDI of given weights has no Monte Carlo
    error; the baseline's spread over layers says what a difference of chance size is."""
    mean_a, mean_b = _mean_key(a), _mean_key(b)
    if mean_a is None or mean_b is None:
        return _("One of the models has no layer with two key heads or more: nothing to compare.")
    base = [x.random_hdi for r in (a, b) for x in r.layers if x.random_hdi is not None]
    spread = (max(base) - min(base)) if len(base) > 1 else 0.0
    na, nb = a.model or _("the first model"), b.model or _("the second model")
    if abs(mean_a - mean_b) <= spread:
        return _(
            "Mean key HDI {mean_a} ({first}) and {mean_b} ({second}): a difference of {difference}, "
            "within the {spread} the random baselines themselves vary by: no clear difference."
        ).format(
            mean_a=fmt(mean_a),
            first=na,
            mean_b=fmt(mean_b),
            second=nb,
            difference=fmt(abs(mean_a - mean_b)),
            spread=fmt(spread),
        )
    more, less = (na, nb) if mean_a > mean_b else (nb, na)
    return _(
        "{more}'s key heads are more diverse: mean key HDI {higher} against {lower} for {less}, "
        "a difference of {difference} (the random baselines vary by {spread})."
    ).format(
        more=more,
        higher=fmt(max(mean_a, mean_b)),
        lower=fmt(min(mean_a, mean_b)),
        less=less,
        difference=fmt(abs(mean_a - mean_b)),
        spread=fmt(spread),
    )


def _mean_key(r: ModelHeadsReport) -> float | None:
    keys = [x.key_hdi for x in r.layers if x.key_hdi is not None]
    return sum(keys) / len(keys) if keys else None


def summary(r: ModelHeadsReport, source: str) -> str:
    """One line on the model measured (`source`: "upload", "builtin" or "server") and its key HDI against
    chance."""
    keys = [layer.key_hdi for layer in r.layers if layer.key_hdi is not None]
    rand = [layer.random_hdi for layer in r.layers if layer.random_hdi is not None]
    where = {
        "upload": N_("uploaded {model} ({style} naming), {layers} layers"),
        "server": N_("model on this server {model} ({style} naming), {layers} layers"),
    }.get(source, N_("built-in model {model} ({style} naming), {layers} layers"))
    text = _(where).format(model=r.model, style=r.style, layers=len(r.layers))
    if keys and rand:
        below = sum(k < q for k, q in zip(keys, rand, strict=False))
        text += _(
            "; mean key HDI {key} against {random} for random subspaces ({below} of {layers} layers below chance)"
        ).format(key=fmt(sum(keys) / len(keys)), random=fmt(sum(rand) / len(rand)), below=below, layers=len(keys))
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
        return empty_figure(_("clusters need three heads or more (and at most 256)"))
    fig = go.Figure()
    for xs, ys in zip(c.icoord, c.dcoord, strict=False):
        fig.add_scatter(
            x=xs, y=ys, mode="lines", line={"color": THEORY_COLOR, "width": 1.5}, hoverinfo="skip", showlegend=False
        )
    order = c.order
    fig.update_xaxes(
        tickvals=[5 + 10 * i for i in range(len(order))],
        ticktext=[f"{h + 1}" + (f" (g{c.groups[h] + 1})" if which == "query" else "") for h in order],
        title=_("query head (key group)") if which == "query" else _("key head"),
    )
    fig.add_hline(y=c.cut, line={"color": "#999", "dash": "dot", "width": 1}, annotation_text=_("cut"))
    # scipy puts leaf i at 5 + 10 i: half a leaf of room each side keeps the first label off the corner
    fig.update_xaxes(range=[0, 10 * len(order)])
    fig.update_yaxes(title=_("distance 1 − overlap"), range=[0, 1.02])
    title = _by_kind(which, N_("Dendrogram of the key heads, {layer}"), N_("Dendrogram of the query heads, {layer}"))
    return styled(fig, title.format(layer=layer_name(item)), height=340, legend=False)


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
        _by_kind(
            which, N_("Key overlap in cluster order, {layer}"), N_("Query overlap in cluster order, {layer}")
        ).format(layer=layer_name(item)),
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
            hovertemplate=_("head %{x}<br>contribution %{y:.4g}<extra></extra>"),
        )
    )
    fig.update_xaxes(title=_("head, most redundant first"), type="category")
    # short: a long vertical title reaches the top corner, where a wrapped chart title comes down to
    fig.update_yaxes(title="HDI − HDI<sub>−h</sub>")
    return styled(
        fig,
        _by_kind(
            which,
            N_("Diversity contribution of each key head, {layer} (red: prune first)"),
            N_("Diversity contribution of each query head, {layer} (red: prune first)"),
        ).format(layer=layer_name(item)),
        height=340,
        legend=False,
    )
