"""The URL <-> controls callback: the one place where the page's state is read and written.

The URL is the source of truth: this callback keeps the query string and every control in step (both
directions, so links, presets and the back button all go through the registry of `state.py`), stores
the validated state the views compute from, and answers the page frame (lecture classes, value badges,
the scenario controls the shown view ignores) in the same round trip.
"""

from __future__ import annotations

from typing import Any

from dash import ALL, Dash, Input, Output, ctx, html, no_update
from dash import State as DashState
from dash.development.base_component import Component

from headdiv.dashboard.drawing.shared_callbacks import pure_callback
from headdiv.dashboard.page.component_ids import SIM_STATE
from headdiv.dashboard.page.controls import PRIMARY, VIEW_OWNED
from headdiv.dashboard.page.url_state import (
    INACTIVE_WHEN,
    PageState,
    UrlRegistry,
    inactive_scenario_keys,
    scenario_params,
)
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.teaching.tours import expand, pin
from headdiv.dashboard.views.view_protocol import STATE_STORE, View

KEEP_ON_PRESET = ("tab", "hide", "lecture", "large", "img", "embed")
"""Page-level parameters a preset leaves as they are (a lecturer's hidden controls stay hidden)."""
SIDEBAR_PARTS = frozenset({*PRIMARY, "advanced", "presets"})
"""What the sidebar shows; when a lecturer hides all of it, the page drops its column."""


def register_sync(app: Dash, registry: UrlRegistry, views: list[View]) -> None:
    """The URL <-> controls callback: one place where the page's state is read and written. It also
    answers the page frame (lecture classes, value badges, the scenario controls the view ignores) in
    the same round trip."""
    controlled = registry.controlled
    outputs = [Output("url", "search"), Output(STATE_STORE, "data"), Output("notices", "children")]
    outputs += [Output(p.component, p.prop) for p in controlled]  # type: ignore[arg-type]
    badges = [p for p in registry if p.name in PRIMARY + VIEW_OWNED]
    frame_outputs = [Output("root", "className")]
    frame_outputs += [Output(f"lbl-{p.name}", "children") for p in badges]
    scenario_ignorable = set(INACTIVE_WHEN) & set(registry.params)
    ignorable = sorted(
        {key for v in views for key in v.ignorable} | scenario_ignorable, key=list(registry.params).index
    )
    by_id = {v.id: v for v in views}
    frame_outputs += [Output(registry[k].component or "", "disabled") for k in ignorable]
    frame_outputs += [Output(f"why-{k}", "children") for k in ignorable]
    outputs += frame_outputs
    outputs += [Output("url-fixed", "data"), Output(SIM_STATE, "data")]
    inputs = [Input("url", "search"), Input({"type": "preset", "name": ALL}, "n_clicks")]
    inputs += [Input(p.component, p.prop) for p in controlled]  # type: ignore[arg-type]
    by_component = {p.component: p for p in controlled}
    presets = {p.id: p for p in PRESETS}

    def notices(items: list[str]) -> list[Component]:
        return [html.Li(text) for text in items]

    def frame(st: PageState) -> list[Any]:
        tab = st.get("tab", views[0].id)
        hidden = st.hidden()
        if hidden >= SIDEBAR_PARTS:  # nothing left in the sidebar: its column goes to the charts
            hidden.add("sidebar")
        classes = ["root"] + [f"hide-{k}" for k in sorted(hidden)] + (["large"] if st.get("large") else [])
        classes += ["embed"] if st.get("embed") else []
        shown = by_id.get(str(tab))
        classes += [] if shown is None or shown.exportable else ["no-html-export"]
        reasons = {**inactive_scenario_keys(st.values), **(shown.ignored(st) if shown is not None else {})}
        return [
            " ".join(classes),
            *[p.dump(st.get(p.name, p.default)) for p in badges],
            *[k in reasons for k in ignorable],
            *[reasons.get(k, "") for k in ignorable],
        ]

    def frame_change(st: PageState, before: PageState | None) -> tuple[Any, ...]:
        """The frame of `st`, with no_update where it equals the frame of `before` (nothing re-rendered)."""
        now = frame(st)
        if before is None:
            return tuple(now)
        return tuple(no_update if a == b else a for a, b in zip(now, frame(before), strict=True))

    untouched = (no_update,) * len(frame_outputs)

    def everything(
        search: Any, st: PageState, shown: tuple[Any, ...], before: PageState | None = None
    ) -> tuple[Any, ...]:
        """Every output for state `st`; a control already showing its value is left alone (`shown`), so
        the callbacks listening to it do not run for nothing."""
        values = [p.component_value(st[p.name]) for p in controlled]
        values = [no_update if v == r else v for v, r in zip(values, shown, strict=True)]
        return (search, st.to_data(), notices(st.notices), *values, *frame_change(st, before))

    scenario_keys = [p.name for p in scenario_params()]

    def scenario_of(data: Any) -> dict[str, Any] | None:
        return {k: data.get(k) for k in scenario_keys} if isinstance(data, dict) else None

    @pure_callback(app, *outputs, *inputs, DashState("url-fixed", "data"), DashState(STATE_STORE, "data"))
    def _sync(search: str | None, presets_: list[Any], *rest: Any) -> tuple[Any, ...]:
        """Every output, and the simulation's state when a scenario key changed: answered here rather
        than by a gate in the browser, so the simulation's request leaves one step sooner."""
        *raw, fixed, before = rest
        answer = _answer(search, presets_, *raw, fixed)
        scenario = scenario_of(answer[1]) if answer[1] is not no_update else None
        changed = scenario is not None and scenario != scenario_of(before)
        return (*answer, scenario if changed else no_update)

    def _answer(search: str | None, presets_: list[Any], *rest: Any) -> tuple[Any, ...]:
        """A link with bad values is rewritten to the values used, its notices kept on screen: the
        rewritten query is remembered (`url-fixed`) so the navigation it causes does not clear them."""
        *raw, fixed = rest
        trigger = ctx.triggered_id
        if trigger is None or trigger == "url":
            st = registry.parse(expand(search))
            if st.notices:
                clean = pin(registry, registry.serialize(st.values), st.values)
                if clean != (search or ""):
                    return (clean, *everything(no_update, st, tuple(raw))[1:], clean)
            elif fixed is not None and fixed == (search or ""):
                kept = list(everything(no_update, st, tuple(raw)))
                kept[2] = no_update  # the notices of the link just rewritten stay
                return (*kept, None)
        return (*_apply(trigger, search, presets_, *raw), None if trigger is None or trigger == "url" else no_update)

    def _apply(trigger: Any, search: str | None, _presets: list[Any], *raw: Any) -> tuple[Any, ...]:
        unchanged = [no_update] * len(controlled)
        if trigger is None or trigger == "url":
            return everything(no_update, registry.parse(expand(search)), raw)
        current = registry.parse(expand(search))
        if isinstance(trigger, dict) and trigger.get("type") == "preset":
            preset = presets.get(str(trigger.get("name")))
            if preset is None or not ctx.triggered[0].get("value"):
                return (no_update, no_update, no_update, *unchanged, *untouched)
            target = registry.parse(preset.query)
            if preset.tab is None:
                target.values["tab"] = current["tab"]
            for key in KEEP_ON_PRESET:
                if key != "tab":
                    target.values[key] = current[key]
            return everything(registry.serialize(target.values), target, raw, current)
        changed = by_component.get(trigger)
        if changed is None:
            return (no_update, no_update, no_update, *unchanged, *untouched)
        st = registry.from_controls({p.name: r for p, r in zip(controlled, raw, strict=True)}, current.values)
        reset_values = list(unchanged)
        for name in changed.resets:
            param = registry[name]
            st.values[name] = param.default
            reset_values[controlled.index(param)] = param.component_value(param.default)
        if st.notices:
            return (no_update, no_update, notices(st.notices), *reset_values, *untouched)
        new = pin(registry, registry.serialize(st.values), st.values)
        return (
            new if new != (search or "") else no_update,
            st.to_data(),
            [],
            *reset_values,
            *frame_change(st, current),
        )
