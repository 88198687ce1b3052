"""What each component property of the page can hold, read from the components' own prop types (Dash ships
them in each library's `metadata.json`), so that a callback request whose inputs or state hold anything
else is refused before a callback runs (`headdiv.server.dashboard_mount.harden`).

A browser only ever sends what its components hold; a script may send anything. `null` is always allowed
(every property may be unset). Properties of components created later by callbacks (a tour's answer
buttons) are known by their pattern id's `type`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from dash.development.base_component import Component

from headdiv.dashboard.page.param import Param

MAX_TEXT = 20_000
"""Longest string any property of this page holds (a URL's query, a typed list of values)."""
MAX_ITEMS = 10_000
"""Most items in any array or object a property holds."""
MAX_DEPTH = 32

Spec = dict[str, Any]

STORE_DATA: dict[str, Spec] = {"url-fixed": {"name": "string"}}
"""What the page's stores hold, where it is not an object: a store's own prop type allows any JSON, but every
store of this page holds one kind of value, and the callbacks that read it expect that kind."""
OBJECT: Spec = {"name": "object"}


@cache
def _metadata() -> dict[str, dict[str, Spec]]:
    """{component type name: {prop: its type spec}} of every library the page uses."""
    import dash

    out: dict[str, dict[str, Spec]] = {}
    root = Path(dash.__file__).parent
    for lib in ("dcc", "html", "dash_table"):
        path = root / lib / "metadata.json"
        if not path.is_file():
            continue
        for source, entry in json.loads(path.read_text(encoding="utf-8")).items():
            name = Path(source).name.split(".")[0]
            out[name] = {prop: spec.get("type") or spec.get("flowType") or {} for prop, spec in entry["props"].items()}
    return out


def _key(component_id: Any) -> str:
    """A string id as itself; a pattern-matching id by its `type` (its other keys vary per instance)."""
    if isinstance(component_id, dict):
        return "{type:" + str(component_id.get("type")) + "}"
    return str(component_id)


KIND_SPECS: dict[str, Spec] = {
    "int": {"name": "number"},
    "float": {"name": "number"},
    "bool": {"name": "bool"},
    "floats": {"name": "arrayOf", "value": {"name": "number"}},
    "flags": {"name": "arrayOf", "value": {"name": "string"}},
    "name": {"name": "string"},
}


def state_spec(params: Iterable[Param]) -> Spec:
    """A page state's shape (`PageState.to_data`): each URL parameter by its kind, no other key."""
    fields: dict[str, Spec] = {}
    for p in params:
        if p.kind == "choice":  # one of its choices, or its default (a tour's is "": none)
            allowed = [*p.choices, *([p.default] if p.default not in p.choices else [])]
            fields[p.name] = {"name": "enum", "value": [{"value": json.dumps(a)} for a in allowed]}
        else:
            fields[p.name] = KIND_SPECS[p.kind]
    return {"name": "exact", "value": fields}


def prop_types(layout: Component, state_stores: Mapping[str, Spec] | None = None) -> dict[tuple[str, str], Spec]:
    """{(id key, prop): type spec} for every component with an id in the layout; `state_stores` gives the
    stores that hold a page state their shape (`state_spec`)."""
    meta = _metadata()
    found: dict[tuple[str, str], Spec] = {}
    state_stores = state_stores or {}

    def walk(node: Any) -> None:
        if isinstance(node, list | tuple):
            for child in node:
                walk(child)
            return
        if not isinstance(node, Component):
            return
        ident = getattr(node, "id", None)
        props = meta.get(type(node).__name__, {})
        if ident is not None and props:
            for prop, spec in props.items():
                found[(_key(ident), prop)] = spec
            if type(node).__name__ == "Store":
                found[(_key(ident), "data")] = state_stores.get(_key(ident)) or STORE_DATA.get(_key(ident), OBJECT)
        for name in getattr(node, "_children_props", []) or []:
            walk(getattr(node, name.split(".")[0], None))
        walk(getattr(node, "children", None))

    walk(layout)
    return found


def _depth_and_size(value: Any, depth: int = 0) -> str | None:
    if depth > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH}"
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return f"a text of {len(value)} characters (at most {MAX_TEXT})"
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if isinstance(value, list | dict):
        if len(value) > MAX_ITEMS:
            return f"{len(value)} items (at most {MAX_ITEMS})"
        for item in value.values() if isinstance(value, dict) else value:
            problem = _depth_and_size(item, depth + 1)
            if problem:
                return problem
    return None


def _fits(value: Any, spec: Spec) -> bool:
    """Whether a JSON value can be held by a property of this type spec (unknown type names: anything)."""
    if value is None:
        return True
    name = spec.get("name")
    if name in (None, "any", "node", "element", "custom", "func", "signature"):
        return True
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "bool":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "union":
        return any(_fits(value, s) for s in spec.get("value", [])) or not spec.get("value")
    if name == "arrayOf":
        return isinstance(value, list) and all(_fits(v, spec.get("value", {})) for v in value)
    if name == "objectOf":
        return isinstance(value, dict) and all(_fits(v, spec.get("value", {})) for v in value.values())
    if name in ("shape", "exact"):
        fields = spec.get("value", {})
        if not isinstance(value, dict):
            return False
        if name == "exact" and any(k not in fields for k in value):
            return False
        return all(_fits(value.get(k), s) for k, s in fields.items())
    if name == "enum":
        allowed = [_literal(v.get("value")) for v in spec.get("value", []) if isinstance(v, dict)]
        return not allowed or any(a is _ANY or a == value for a in allowed)
    if name == "literal":
        return _literal(spec.get("value")) in (value, _ANY)
    return True


_ANY = object()


def _literal(text: Any) -> Any:
    """An enum member as metadata writes it ("'drag'", "true", "42"); anything unreadable matches all."""
    if not isinstance(text, str):
        return _ANY
    try:
        return json.loads(text.replace("'", '"'))
    except ValueError:
        return _ANY


def value_problem(types: dict[tuple[str, str], Spec], component_id: Any, prop: str, value: Any) -> str | None:
    """Why `value` cannot be what the page's `component_id.prop` holds (None when it can)."""
    where = f"{_key(component_id)[:80]}.{prop[:40]}"
    problem = _depth_and_size(value)
    if problem:
        return f"{where}: {problem}"
    spec = types.get((_key(component_id), prop))
    if spec is not None and not _fits(value, spec):
        return f"{where}: {_why(value, spec)}"
    return None


def _why(value: Any, spec: Spec) -> str:
    """Where a value that does not fit its spec goes wrong: the first field of an object that does not."""
    if isinstance(value, dict) and spec.get("name") in ("shape", "exact"):
        fields = spec.get("value", {})
        for k, v in value.items():
            if k not in fields and spec.get("name") == "exact":
                return f"{str(k)[:40]!r} is not one of its fields"
            if k in fields and not _fits(v, fields[k]):
                return f"its field {k!r} cannot be a {type(v).__name__} ({str(v)[:40]})"
    return f"a {type(value).__name__} is not a value this property holds"
