"""The scenario's controls, built from the registry (so a new scenario field gets a control for free).

H, d_k, n and theta are sliders always in view; the rest sit in an "advanced" panel. A control's id
is `scenario_control_id(name)`: the URL-sync callback finds it through the registry.
"""

from __future__ import annotations

import math

from dash import dcc, html
from dash.development.base_component import Component

from headdiv.dashboard.page.components import control, log_scale, number_input
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.play import with_play
from headdiv.dashboard.page.url_state import PageState, Param, UrlRegistry, scenario_control_id
from headdiv.schemas import Scenario
from headdiv.schemas.fields import Slider, hint
from headdiv.schemas.scenario import CHOICES
from headdiv.schemas.weightings import WEIGHTINGS

PRIMARY: tuple[str, ...] = ("H", "d_k", "n", "theta")
VIEW_OWNED: tuple[str, ...] = tuple(WEIGHTINGS.param_fields())
"""Scenario keys whose controls live in a view (the weighting schemes' parameters, in the Weighting view)."""


def _pow2_marks(lo: int, hi: int, every: int = 1) -> dict[int, str]:
    return {k: str(2**k) for k in range(lo, hi + 1) if ((k - lo) % every == 0 and hi - k >= every) or k == hi}


def primary_slider(p: Param, state: PageState) -> Component:
    """A keyboard-operable slider; d_k and n move in powers of two (their state stays exact), and their
    wrapper's `data-scale` lets assets/a11y.js give screen readers the value, not the exponent."""
    cid = scenario_control_id(p.name)
    value = p.component_value(state[p.name])
    # bounds from the scenario's schema (the Param reads them from its Field), never written again here
    if p.name == "H":
        lo, hi = int(p.lo or 1), int(p.hi or 1)
        marks = {lo: str(lo), **{k: str(k) for k in range(16, hi + 1, 16)}}
        return dcc.Slider(lo, hi, 1, value=value, id=cid, marks=marks)
    if p.name == "theta":
        lo, hi = int(p.lo or 0), int(p.hi or 0)
        marks = {t: f"{t}°" for t in (lo, 30, 45, 60, hi) if lo <= t <= hi}
        return dcc.Slider(lo, hi, 1, value=value, id=cid, marks=marks)
    lo = int(math.log2(p.lo or 1))
    hi = int(math.log2(p.hi or 2))
    slider = dcc.Slider(
        lo, hi, 1, value=value, id=cid, marks=_pow2_marks(lo, hi, 2 if hi - lo <= 8 else 4), allow_direct_input=False
    )
    return log_scale(slider, 2)


def field_control(p: Param, state: PageState) -> Component:
    """Dropdown for a choice, number box for a number, text box for a list."""
    cid = scenario_control_id(p.name)
    value = p.component_value(state[p.name])
    if p.kind == "choice":
        registry = CHOICES.get(p.name)
        options = [{"label": _(e.label), "value": e.name} for e in registry] if registry else list(p.choices)
        return dcc.Dropdown(options=options, value=value, id=cid, clearable=False, searchable=False)
    if p.kind == "floats":
        return dcc.Input(
            id=cid, type="text", value=value, debounce=True, placeholder=_("e.g. 0, 30, 60, 90"), className="text-input"
        )
    return number_input(cid, value, low=p.lo, high=p.hi, step=1 if p.kind == "int" else "any")


def labelled(p: Param, widget: Component) -> Component:
    """A scenario control with its value badge and a line (`why-<name>`) saying why it is disabled, when a
    view does not use it (filled by the app from the views' `ignores`)."""
    label = html.Span([_(p.label or p.name), html.Span(id=f"lbl-{p.name}", className="value-badge")])
    box = control(label, widget, p.name, _(p.help))  # type: ignore[arg-type]
    box.children = [*box.children, html.Div(id=f"why-{p.name}", className="why-disabled")]  # type: ignore[attr-defined,misc]
    return box


def scenario_sidebar(registry: UrlRegistry, state: PageState) -> Component:
    params = [p for p in registry if p.scenario]
    primary = [
        labelled(p, with_play(primary_slider(p, state), p.component or p.name, _(p.label or p.name)))
        for p in params
        if p.name in PRIMARY
    ]
    advanced = [labelled(p, field_control(p, state)) for p in params if p.name not in PRIMARY + VIEW_OWNED]
    return html.Div(
        [
            html.Div(primary, className="primary-controls"),
            html.Details(
                [html.Summary(_("Advanced scenario")), html.Div(advanced, className="advanced-grid")],
                className="advanced part-advanced",
                id="advanced",
            ),
        ],
        className="scenario-controls",
    )


def view_owned_control(registry: UrlRegistry, state: PageState, name: str) -> Component:
    """A scenario key shown as a slider inside a view, with the range its field's `Slider` hint gives."""
    p = registry[name]
    slider = hint(Scenario.model_fields[name], Slider)
    if slider is None:
        raise ValueError(f"scenario field {name!r} has no Slider hint to be shown in a view")
    widget = dcc.Slider(
        slider.lo,
        slider.hi,
        slider.step,
        value=p.component_value(state[name]),
        id=scenario_control_id(name),
        marks={slider.lo: f"{slider.lo:g}", slider.hi: f"{slider.hi:g}"},
    )
    return labelled(p, with_play(widget, scenario_control_id(name), _(p.label or name)))
