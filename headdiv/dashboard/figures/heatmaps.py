"""The subspace-overlap heatmap, shared by a simulation's heads and a trained model's layer."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from headdiv.dashboard.figures.theme import finite, fmt, styled


def overlap_heatmap(
    overlap: Any,
    angles: Any,
    title: str,
    *,
    label: str = "h",
    first: int = 1,
    height: int = 320,
    order: list[int] | None = None,
    names: list[str] | None = None,
) -> go.Figure:
    """Overlap s_hh' between heads (1 = same subspace, 0 = orthogonal), with their principal angles on hover.

    `overlap` is the H x H matrix, `angles` the `[{pair: [h, g], angles: [...]}]` list of a result;
    heads are labelled `{label}{h + first}`, or `names[h]`. `order` lists the heads in the order drawn
    (a dendrogram's, so that clusters show as blocks).
    """
    full = [[finite(v) for v in row] for row in (overlap or [])]
    size = len(full)
    order = list(range(size)) if order is None else [h for h in order if 0 <= h < size]
    names = names or [f"{label}{h + first}" for h in range(size)]
    text: list[list[str]] = [["same head" if i == j else "" for j in range(size)] for i in range(size)]
    for item in angles or []:
        pair = item.get("pair") or []
        if len(pair) != 2 or not all(isinstance(p, int) and 0 <= p < size for p in pair):
            continue
        shown = ", ".join(fmt(a) + "°" for a in (item.get("angles") or [])[:8])
        text[pair[0]][pair[1]] = text[pair[1]][pair[0]] = shown
    labels = [names[h] for h in order]
    fig = go.Figure(
        go.Heatmap(
            z=[[full[i][j] for j in order] for i in order],
            x=labels,
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": "overlap", "side": "right"}, "thickness": 12},
            customdata=[[text[i][j] for j in order] for i in order],
            hovertemplate="%{y} × %{x}: overlap %{z:.3f}<br>angles: %{customdata}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed", scaleanchor="x")
    return styled(fig, title, height=height, legend=False)
