"""The subspace-overlap heatmap, shared by a simulation's heads and a trained model's layer."""

from __future__ import annotations

import plotly.graph_objects as go

from headdiv.figures.theme import fmt, styled
from headdiv.i18n import _
from headdiv.schemas.results.result_parts import AnglePair, Matrix


def overlap_heatmap(
    overlap: Matrix,
    angles: list[AnglePair],
    title: str,
    *,
    label: str = "h",
    first: int = 1,
    height: int = 320,
    order: list[int] | None = None,
    names: list[str] | None = None,
) -> go.Figure:
    """Overlap s_hh' between heads (1 = same subspace, 0 = orthogonal), with their principal angles on hover.

    `overlap` is the H x H matrix, `angles` the principal angles of (some of) the pairs;
    heads are labelled `{label}{h + first}`, or `names[h]`. `order` lists the heads in the order drawn
    (a dendrogram's, so that clusters show as blocks).
    """
    full = overlap
    size = len(full)
    order = list(range(size)) if order is None else [h for h in order if 0 <= h < size]
    names = names or [f"{label}{h + first}" for h in range(size)]
    same = _("same head")
    text: list[list[str]] = [[same if i == j else "" for j in range(size)] for i in range(size)]
    for item in angles:
        h, g = item.pair
        if not (0 <= h < size and 0 <= g < size):
            continue
        shown = ", ".join(fmt(a) + "°" for a in item.angles[:8])
        text[h][g] = text[g][h] = shown
    labels = [names[h] for h in order]
    fig = go.Figure(
        go.Heatmap(
            z=[[full[i][j] for j in order] for i in order],
            x=labels,
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": _("overlap"), "side": "right"}, "thickness": 12},
            customdata=[[text[i][j] for j in order] for i in order],
            hovertemplate=_("%{y} × %{x}: overlap %{z:.3f}<br>angles: %{customdata}<extra></extra>"),
        )
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed", scaleanchor="x")
    return styled(fig, title, height=height, legend=False)
