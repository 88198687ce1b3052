"""The scenario's controls, built from the registry (so a new scenario field gets a control for free).

H, d_k, n and theta are sliders always in view; the rest sit in an "advanced" panel. A control's id
is `scenario_control_id(name)`: the URL-sync callback finds it through the registry.
"""

from __future__ import annotations

import math

from dash import dcc, html
from dash.development.base_component import Component

from dashboard.components import control, number_input
from dashboard.state import Param, Registry, State, scenario_control_id

PRIMARY: tuple[str, ...] = ("H", "d_k", "n", "theta")
VIEW_OWNED: tuple[str, ...] = ("rho", "beta")
"""Scenario keys whose controls live in a view (the Weighting view), not the sidebar."""

LABELS: dict[str, str] = {
    "H": "heads H",
    "d_k": "head dimension d_k",
    "n": "sample size n",
    "theta": "angle θ between heads (°)",
    "geometry": "geometry",
    "tilts": "tilts per head (°)",
    "shared_dims": "shared dimensions",
    "p": "ambient dimension p (random)",
    "target": "target f",
    "signal": "signal",
    "noise": "noise σ",
    "kernel": "kernel",
    "bandwidth_rule": "bandwidth rule",
    "bandwidth": "bandwidth h (fixed)",
    "temperature": "temperature (softmax)",
    "weights": "weights",
    "rho": "ρ (geometric)",
    "beta": "β (MAW)",
    "replicates": "replicates R",
    "queries": "query points",
    "seed": "seed",
}


def _pow2_marks(lo: int, hi: int, every: int = 1) -> dict[int, str]:
    return {k: str(2**k) for k in range(lo, hi + 1) if ((k - lo) % every == 0 and hi - k >= every) or k == hi}


def primary_slider(p: Param, state: State) -> dcc.Slider:
    """A keyboard-operable slider; d_k and n move in powers of two (their state stays exact)."""
    cid = scenario_control_id(p.name)
    value = p.component_value(state[p.name])
    if p.name == "H":
        return dcc.Slider(
            1, int(p.hi or 64), 1, value=value, id=cid, marks={1: "1", 16: "16", 32: "32", 48: "48", 64: "64"}
        )
    if p.name == "theta":
        return dcc.Slider(0, 90, 1, value=value, id=cid, marks={t: f"{t}°" for t in (0, 30, 45, 60, 90)})
    lo = int(math.log2(p.lo or 1))
    hi = int(math.log2(p.hi or 2))
    return dcc.Slider(
        lo, hi, 1, value=value, id=cid, marks=_pow2_marks(lo, hi, 2 if hi - lo <= 8 else 4), allow_direct_input=False
    )


def field_control(p: Param, state: State) -> Component:
    """Dropdown for a choice, number box for a number, text box for a list."""
    cid = scenario_control_id(p.name)
    value = p.component_value(state[p.name])
    if p.kind == "choice":
        return dcc.Dropdown(options=list(p.choices), value=value, id=cid, clearable=False, searchable=False)
    if p.kind == "floats":
        return dcc.Input(
            id=cid, type="text", value=value, debounce=True, placeholder="e.g. 0, 30, 60, 90", className="text-input"
        )
    return number_input(cid, value, low=p.lo, high=p.hi, step=1 if p.kind == "int" else "any")


def labelled(p: Param, widget: Component) -> Component:
    label = html.Span([LABELS.get(p.name, p.name), html.Span(id=f"lbl-{p.name}", className="value-badge")])
    return control(label, widget, p.name, p.help)  # type: ignore[arg-type]


def scenario_sidebar(registry: Registry, state: State) -> Component:
    params = [p for p in registry if p.scenario]
    primary = [labelled(p, primary_slider(p, state)) for p in params if p.name in PRIMARY]
    advanced = [labelled(p, field_control(p, state)) for p in params if p.name not in PRIMARY + VIEW_OWNED]
    return html.Div(
        [
            html.Div(primary, className="primary-controls"),
            html.Details(
                [html.Summary("Advanced scenario"), html.Div(advanced, className="advanced-grid")],
                className="advanced part-advanced",
                id="advanced",
            ),
        ],
        className="scenario-controls",
    )


def view_owned_control(registry: Registry, state: State, name: str, *, slider: tuple[float, float, float]) -> Component:
    """A scenario key shown as a slider inside a view (rho and beta in the Weighting view)."""
    p = registry[name]
    lo, hi, step = slider
    widget = dcc.Slider(
        lo,
        hi,
        step,
        value=p.component_value(state[name]),
        id=scenario_control_id(name),
        marks={lo: str(lo), hi: str(hi)},
    )
    return labelled(p, widget)
