"""The subspace-overlap heatmap, shared by a simulation's heads and a trained model's layer."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from dashboard.figures.theme import finite, fmt, styled


def overlap_heatmap(
    overlap: Any, angles: Any, title: str, *, label: str = "h", first: int = 1, height: int = 320
) -> go.Figure:
    """Overlap s_hh' between heads (1 = same subspace, 0 = orthogonal), with their principal angles on hover.

    `overlap` is the H x H matrix, `angles` the `[{pair: [h, g], angles: [...]}]` list of a result;
    heads are labelled `{label}{h + first}`.
    """
    z = [[finite(v) for v in row] for row in (overlap or [])]
    size = len(z)
    labels = [f"{label}{h + first}" for h in range(size)]
    text: list[list[str]] = [["same head" if i == j else "" for j in range(size)] for i in range(size)]
    for item in angles or []:
        pair = item.get("pair") or []
        if len(pair) != 2 or not all(isinstance(p, int) and 0 <= p < size for p in pair):
            continue
        shown = ", ".join(fmt(a) + "°" for a in (item.get("angles") or [])[:8])
        text[pair[0]][pair[1]] = text[pair[1]][pair[0]] = shown
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": "overlap", "side": "right"}, "thickness": 12},
            customdata=text,
            hovertemplate="%{y} × %{x}: overlap %{z:.3f}<br>angles: %{customdata}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed", scaleanchor="x")
    return styled(fig, title, height=height, legend=False)
