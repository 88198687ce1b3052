"""Whether a `_dash-update-component` body can be a call of one of the app's own callbacks, checked before
Dash runs it (`headdiv.server.dashboard_mount.harden` answers 400 with the reason).

Dash takes the body's word for everything: which component each value comes from, which outputs to fill,
which inputs changed (`ctx.triggered_id`). A browser only sends what the callback declares, so each part is
held to the declaration: every input and state entry names the declared component and property (a pattern's
wildcards filled with plain values, a MATCH one alike across the call) and holds what that property can
hold (`callback_types`); the outputs are the declared ones; each changed prop id names one of the inputs
sent. A callback drawn in the browser (clientside) is no server callback.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from dash import Dash

from headdiv.dashboard.page.callback_types import (
    JOB,
    MAX_ITEMS,
    VIEW_RESULT,
    Spec,
    id_text,
    prop_types,
    state_spec,
    type_key,
    value_problem,
)
from headdiv.dashboard.page.component_ids import SIM_RESULT_STORE, SIM_STATE, STATE_STORE, view_sim, view_state
from headdiv.dashboard.teaching.tour_layout import TOUR_STATE
from headdiv.dashboard.views import VIEWS

MANY = ("ALL", "ALLSMALLER")
"""Wildcards whose entry is a list of components (every match), not one."""
MAX_ID_TEXT = 200
"""Longest value a pattern id's wildcard is filled with (the page's are short names)."""


@dataclass(frozen=True)
class Dependency:
    """One declared input, state or output: its id (a string, or a pattern: {key: value or [wildcard]})."""

    id: str | dict[str, Any]
    prop: str

    @property
    def many(self) -> bool:
        return isinstance(self.id, dict) and any(isinstance(v, list) and v[0] in MANY for v in self.id.values())

    @property
    def text(self) -> str:
        return f"{id_text(self.id)}.{self.prop}"


def _dependency(component_id: str, prop: str) -> Dependency:
    ident: str | dict[str, Any] = json.loads(component_id) if component_id.startswith("{") else component_id
    return Dependency(ident, prop.split("@")[0])  # `@hash`: an output that more than one callback sets


def _outputs(output: str) -> list[Dependency]:
    parts = output[2:-2].split("...") if output.startswith("..") else [output]
    return [_dependency(*p.rpartition(".")[::2]) for p in parts]


@dataclass(frozen=True)
class Declared:
    inputs: list[Dependency]
    state: list[Dependency]
    outputs: list[Dependency]
    multi: bool
    """The outputs are sent as a list, one entry per declared output."""
    no_output: bool


def _wildcard_value(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_ID_TEXT
    return isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value))


class CallbackBoundary:
    """The app's server callbacks as declared, and the types of the properties they read."""

    def __init__(self, callbacks: dict[str, Declared], types: dict[tuple[str, str], Spec]) -> None:
        self.callbacks = callbacks
        self.types = types

    def spec_of(self, dep: Dependency) -> Spec | None:
        """The type of what a declared input or state holds (None: not known)."""
        return self.types.get((type_key(dep.id), dep.prop))

    def problem(self, body: Any) -> str | None:
        """Why `body` cannot be a call of one of the app's callbacks (None if it can)."""
        if not isinstance(body, dict):
            return f"the callback request must be a JSON object, got {type(body).__name__}"
        output = body.get("output")
        if not isinstance(output, str):
            return "the callback request names no output"
        declared = self.callbacks.get(output)
        if declared is None:
            return f"no callback of the server has the output {output[:100]!r}"
        match: dict[str, Any] = {}
        for key, deps in (("inputs", declared.inputs), ("state", declared.state)):
            problem = self._entries(key, body.get(key, []), deps, match, values=True)
            if problem:
                return problem
        if not declared.no_output:
            outputs = body.get("outputs")
            given = outputs if declared.multi else [outputs]
            problem = self._entries("outputs", given, declared.outputs, match, values=False)
            if problem:
                return problem
        return self._changed(body.get("changedPropIds", []), declared.inputs)

    def _entries(
        self, key: str, given: Any, deps: list[Dependency], match: dict[str, Any], *, values: bool
    ) -> str | None:
        if not isinstance(given, list) or len(given) != len(deps):
            return f"{key}: this callback takes {len(deps)}"
        for item, dep in zip(given, deps, strict=True):
            if dep.many and not (isinstance(item, list) and len(item) <= MAX_ITEMS):
                return f"{key}: {dep.text} is a pattern matching many components: a list of them"
            for entry in item if dep.many else [item]:
                problem = self._entry(entry, dep, match)
                if problem is None and values:
                    problem = value_problem(self.types, entry["id"], dep.prop, entry.get("value"), spec_id=dep.id)
                if problem:
                    return f"{key}: {problem}"
        return None

    @staticmethod
    def _entry(entry: Any, dep: Dependency, match: dict[str, Any]) -> str | None:
        """Whether one entry is the declared component and property (None if it is)."""
        if not isinstance(entry, dict) or "id" not in entry or not isinstance(entry.get("property"), str):
            return "each entry needs an id and a property"
        ident, prop = entry["id"], entry["property"]
        if prop.split("@")[0] != dep.prop or not _same_component(ident, dep.id, match):
            return f"{id_text(ident)}.{prop[:40]} is not {dep.text}, which this callback declares there"
        return None

    @staticmethod
    def _changed(changed: Any, inputs: list[Dependency]) -> str | None:
        """Each changed prop id (Dash's `ctx.triggered`) names a component one of the inputs declares (not
        necessarily one sent: a component removed meanwhile may still have changed)."""
        if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
            return "changedPropIds: must be a list of strings"
        for text in changed:
            ident, _, prop = text.rpartition(".")
            try:
                parsed = json.loads(ident) if ident.startswith("{") else ident
            except ValueError:
                parsed = None
            if not any(prop == d.prop and _same_component(parsed, d.id, {}) for d in inputs):
                return f"changedPropIds: {text[:120]!r} is none of this callback's inputs"
        return None


def _same_component(ident: Any, declared: str | dict[str, Any], match: dict[str, Any]) -> bool:
    """Whether `ident` is the declared id, or a component its pattern matches (MATCH values alike in a call)."""
    if isinstance(declared, str):
        return ident == declared
    if not isinstance(ident, dict) or set(ident) != set(declared):
        return False
    for k, want in declared.items():
        value = ident[k]
        if not isinstance(want, list):
            if value != want:
                return False
        elif not _wildcard_value(value) or (want[0] == "MATCH" and match.setdefault(k, value) != value):
            return False
    return True


def callback_boundary(app: Dash) -> CallbackBoundary:
    """The boundary of `app` (every callback registered): its server callbacks as declared, and the types of
    its components' properties, the page's stores by what the page writes in them."""
    callbacks: dict[str, Declared] = {}
    for output, entry in app.callback_map.items():
        if "callback" not in entry:  # drawn in the browser
            continue
        callbacks[output] = Declared(
            inputs=[_dependency(d["id"], d["property"]) for d in entry.get("inputs", [])],
            state=[_dependency(d["id"], d["property"]) for d in entry.get("state", [])],
            outputs=_outputs(output),
            multi=output.startswith(".."),
            no_output=bool(entry.get("no_output")),
        )
    layout = app.layout() if callable(app.layout) else app.layout
    return CallbackBoundary(callbacks, prop_types(layout, _stores(app)))


def _stores(app: Dash) -> dict[str, Spec]:
    """The shapes of the stores that hold a page state or a view job, by id."""
    stores: dict[str, Spec] = {}
    registry = getattr(app, "headdiv_registry", None)
    if registry is not None:  # the page's own app (a test's small app has none of its stores)
        page_state = state_spec(registry)
        for store in (STATE_STORE, TOUR_STATE, SIM_STATE, *(view_state(v.id) for v in VIEWS)):
            stores[store] = page_state
    for prefix in (SIM_RESULT_STORE.removesuffix("-result"), *(j.prefix for v in VIEWS for j in v.jobs)):
        stores[f"{prefix}-job"], stores[f"{prefix}-result"] = JOB, VIEW_RESULT
    stores.update({view_sim(v.id): VIEW_RESULT for v in VIEWS if v.shows_simulation})
    return stores
