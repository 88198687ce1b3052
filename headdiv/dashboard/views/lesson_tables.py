"""The Foundations lessons' tables: Dash html, so they live with the view (the figures are Plotly only)."""

from __future__ import annotations

from typing import Any

from dash import html
from dash.development.base_component import Component

from headdiv.dashboard.page.language import _
from headdiv.figures.theme import finite, fmt
from headdiv.schemas.results.lesson_results import BudgetLesson


def _human(x: Any) -> str:
    v = finite(x)
    if v is None:
        return "—"
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= size:
            return f"{fmt(v / size)}{unit}"
    return fmt(v)


def budget_table(r: BudgetLesson) -> Component:
    """Every H dividing d_model at the chosen n: the parameter column never changes, the last two do."""
    cell = {"padding": "3px 10px", "textAlign": "right", "borderBottom": "1px solid #e5e7eb"}
    header = html.Tr(
        [
            html.Th(t, style={**cell, "fontWeight": 600})
            for t in ("H", "d_k", _("parameters"), _("Q,K,V per head"), "FLOPs", _("attention bytes"))
        ]
    )
    body = [
        html.Tr(
            [
                html.Td(row.H, style=cell),
                html.Td(row.d_k, style=cell),
                html.Td(f"{row.params:,}", style=cell),
                html.Td(f"{row.params_per_head:,}", style=cell),
                html.Td(_human(row.flops), style=cell),
                html.Td(_human(row.attention_bytes), style=cell),
            ],
            style={"fontWeight": 700, "background": "#eef4fb"} if row.H == r.chosen.H else None,
        )
        for row in r.by_heads
    ]
    caption = html.Caption(
        _("Every H dividing d_model = {d_model} at n = {n}: parameters {formula} whatever H").format(
            d_model=r.chosen.d_model, n=r.chosen.seq_len, formula=r.params_formula.replace("^2", "²")
        ),  # 4 d_model² + 4 d_model
        style={"captionSide": "top", "textAlign": "left", "padding": "4px 0 8px", "fontSize": "0.92em"},
    )
    return html.Table(
        [caption, html.Thead(header), html.Tbody(body)],
        className="budget-table",
        style={"borderCollapse": "collapse", "width": "100%", "fontVariantNumeric": "tabular-nums"},
    )
