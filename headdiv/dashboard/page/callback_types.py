"""What each component property of the page can hold, read from the components' own prop types (Dash ships
them in each library's `metadata.json`), so that a callback request whose inputs or state hold anything
else is refused before a callback runs (`callback_boundary`).

A browser only ever sends what its components hold; a script may send anything. `null` is always allowed
(every property may be unset). Where a prop type allows any object (a store's `data`, a chart's `figure`),
the page's own shape is given here instead: what the page writes there, and what its callbacks read.
Properties of components created later by callbacks (a tour's answer buttons) are known by their pattern
id's `type` (`CREATED_LATER`).

Beside the prop types' names, a spec may be `{"name": "pattern", "value": regex}` (a string matching it
whole) or `{"name": "check", "value": predicate}`; a shape's field marked `"required": true` may not be
missing or null.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from dash.development.base_component import Component

from headdiv.dashboard.page.param import Param
from headdiv.jobs.kinds import kind_at

MAX_TEXT = 20_000
"""Longest string any property of this page holds (a URL's query, a typed list of values)."""
MAX_ITEMS = 10_000
"""Most items in any array or object a property holds."""
MAX_DEPTH = 32

Spec = dict[str, Any]

OBJECT: Spec = {"name": "object"}
STRING: Spec = {"name": "string"}
NUMBER: Spec = {"name": "number"}
SCALAR: Spec = {"name": "union", "value": [NUMBER, STRING, {"name": "bool"}]}


def array_of(spec: Spec) -> Spec:
    return {"name": "arrayOf", "value": spec}


def exact(required: Iterable[str] = (), **fields: Spec) -> Spec:
    """An object with these fields and no other (`required`: those that must be there)."""
    return {"name": "exact", "value": {k: {**s, "required": k in required} for k, s in fields.items()}}


def _request_key(value: Any) -> bool:
    """A view job's `request_key`: `[route, body]`, the route one of a job kind's (its result model is read
    from it)."""
    try:
        route, body = json.loads(value)
        kind_at(route)
    except (ValueError, TypeError):
        return False
    return isinstance(body, dict)


FIGURE = exact(data=array_of(OBJECT), layout=OBJECT, frames=array_of(OBJECT), config=OBJECT)
"""A Plotly figure, whatever the Graph's own prop type says (some Dash versions allow any object)."""
JOB = exact(("id", "key"), id={"name": "pattern", "value": r"[A-Za-z0-9_-]{1,128}"}, key=STRING, done=NUMBER)
"""A view's running job (`view_jobs.register_job`): its id becomes part of the path the page polls."""
VIEW_RESULT = exact(
    ("key", "result"),
    key={"name": "check", "value": _request_key},
    result=OBJECT,
    partial={"name": "bool"},
    headline=array_of(STRING),
)
"""A view job's result (`view_jobs`), and its copy in a view's `view_sim` store."""
MODEL_REPORT: Spec = {"name": "shape", "value": {"model": STRING, "layers": array_of(OBJECT)}}
"""A measured model as the page reads it before validating it (`model_measure.identity`)."""

STORE_DATA: dict[str, Spec] = {
    "url-fixed": STRING,
    "tour-choice": {"name": "objectOf", "value": STRING},
    "tour-poll": {"name": "objectOf", "value": STRING},
    "fd-*-key": {"name": "objectOf", "value": {"name": "union", "value": [SCALAR, array_of(SCALAR)]}},
    "fd-*-result": exact(key=OBJECT, result=OBJECT),
    "mdl-result": exact(
        source={"name": "enum", "value": [{"value": f"'{s}'"} for s in ("builtin", "server", "upload")]},
        model=STRING,
        seed=NUMBER,
        picked=STRING,
        result=MODEL_REPORT,
        error=STRING,
    ),
    "mdl-cmp-result": exact(key={"name": "array"}, result=OBJECT),
    # written in the browser (assets/upload.js): its fields typed, others let through unread
    "mdl-upload-result": {"name": "shape", "value": {"name": STRING, "result": OBJECT, "error": STRING}},
}
"""What the page's stores hold, by id (or an fnmatch pattern of ids): a store's own prop type allows any JSON,
but every store of this page holds one kind of value, and the callbacks that read it expect that kind. A store
not named here (nor given by `prop_types`' caller) may hold any object."""

COMPONENT: Spec = {"name": "shape", "value": {"type": STRING, "namespace": STRING, "props": OBJECT}}
NODE: Spec = {"name": "union", "value": [SCALAR, COMPONENT, array_of({"name": "union", "value": [SCALAR, COMPONENT]})]}
"""Children as a browser sends them back: text, numbers, components as Dash writes them, or a list of those."""

CREATED_LATER: dict[str, str] = {"tour-choice": "Button"}
"""Components that callbacks add to the page, absent from its first layout: their pattern id's type -> their
component type."""


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


def type_key(component_id: Any) -> str:
    """The key of a component's types: a string id as itself, a pattern-matching id by its `type` (its other
    keys vary per instance)."""
    if isinstance(component_id, dict):
        return "{type:" + str(component_id.get("type")) + "}"
    return str(component_id)


KIND_SPECS: dict[str, Spec] = {
    "int": NUMBER,
    "float": NUMBER,
    "bool": {"name": "bool"},
    "floats": array_of(NUMBER),
    "flags": array_of(STRING),
    "name": STRING,
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


def _store_spec(ident: str, given: Mapping[str, Spec]) -> Spec:
    if ident in given:
        return given[ident]
    found = STORE_DATA.get(ident)
    if found is None:
        found = next((s for pattern, s in STORE_DATA.items() if fnmatchcase(ident, pattern)), OBJECT)
    return found


def prop_types(layout: Component, stores: Mapping[str, Spec] | None = None) -> dict[tuple[str, str], Spec]:
    """{(id key, prop): type spec} for every component with an id in the layout; `stores` gives stores
    their shape by id (a page state's, `state_spec`, or a view job's), beside `STORE_DATA`."""
    meta = _metadata()
    found: dict[tuple[str, str], Spec] = {}
    stores = stores or {}
    for pattern_type, component in CREATED_LATER.items():
        for prop, spec in meta.get(component, {}).items():
            found[(type_key({"type": pattern_type}), prop)] = spec

    def walk(node: Any) -> None:
        if isinstance(node, list | tuple):
            for child in node:
                walk(child)
            return
        if not isinstance(node, Component):
            return
        ident = getattr(node, "id", None)
        kind = type(node).__name__
        props = meta.get(kind, {})
        if ident is not None and props:
            for prop, spec in props.items():
                found[(type_key(ident), prop)] = spec
            if kind == "Store":
                found[(type_key(ident), "data")] = _store_spec(type_key(ident), stores)
            if kind == "Graph":
                found[(type_key(ident), "figure")] = FIGURE
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
    if name in (None, "any", "element", "custom", "func", "signature"):
        return True
    if name == "node":
        return _fits(value, NODE)
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
    if name == "pattern":
        return isinstance(value, str) and re.fullmatch(spec["value"], value) is not None
    if name == "check":
        check: Callable[[Any], bool] = spec["value"]
        return check(value)
    if name == "union":
        return any(_fits(value, s) for s in spec.get("value", [])) or not spec.get("value")
    if name == "arrayOf":
        return isinstance(value, list) and all(_fits(v, spec.get("value", {})) for v in value)
    if name == "objectOf":
        return isinstance(value, dict) and all(_fits(v, spec.get("value", {})) for v in value.values())
    if name in ("shape", "exact"):
        return isinstance(value, dict) and _misfit_field(value, spec) is None
    if name == "enum":
        allowed = [_literal(v.get("value")) for v in spec.get("value", []) if isinstance(v, dict)]
        return not allowed or any(a is _ANY or a == value for a in allowed)
    if name == "literal":
        return _literal(spec.get("value")) in (value, _ANY)
    return True


def _misfit_field(value: dict[str, Any], spec: Spec) -> tuple[str, str] | None:
    """The first field of an object that a shape refuses: (field, "extra" | "missing" | "wrong")."""
    fields: dict[str, Spec] = spec.get("value", {})
    if spec.get("name") == "exact":
        extra = next((k for k in value if k not in fields), None)
        if extra is not None:
            return extra, "extra"
    for k, s in fields.items():
        v = value.get(k)
        if v is None and s.get("required"):
            return k, "missing"
        if not _fits(v, s):
            return k, "wrong"
    return None


_ANY = object()


def _literal(text: Any) -> Any:
    """An enum member as metadata writes it ("'drag'", "true", "42"); anything unreadable matches all."""
    if not isinstance(text, str):
        return _ANY
    try:
        return json.loads(text.replace("'", '"'))
    except ValueError:
        return _ANY


def id_text(component_id: Any) -> str:
    """A component id as a message names it: a string as itself, a pattern-matching id as compact JSON."""
    if isinstance(component_id, dict):
        return json.dumps(component_id, sort_keys=True, separators=(",", ":"), default=str)[:120]
    return str(component_id)[:120]


def value_problem(
    types: dict[tuple[str, str], Spec], component_id: Any, prop: str, value: Any, spec_id: Any = None
) -> str | None:
    """Why `value` cannot be what the page's `component_id.prop` holds (None when it can); `spec_id`: the id
    whose type it is read by, when not `component_id` (a pattern's)."""
    where = f"{id_text(component_id)}.{prop[:40]}"
    problem = _depth_and_size(value)
    if problem:
        return f"{where}: {problem}"
    spec = types.get((type_key(component_id if spec_id is None else spec_id), prop))
    if spec is not None and not _fits(value, spec):
        return f"{where}: {_why(value, spec)}"
    return None


def _a(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name} ({str(value)[:40]})"


def _why(value: Any, spec: Spec, path: str = "") -> str:
    """Where a value that does not fit its spec goes wrong: the first field or item, however deep, that does
    not."""
    name = spec.get("name")
    given = spec.get("value")
    inner: Spec = given if isinstance(given, dict) else {}
    if isinstance(value, dict) and name in ("shape", "exact"):
        found = _misfit_field(value, spec)
        if found is not None:
            field, how = found
            at = f"{path}.{field}" if path else str(field)[:40]
            if how == "extra":
                return f"{at!r} is not one of its fields"
            if how == "missing":
                return f"its field {at!r} is missing"
            return _why(value[field], spec["value"][field], at)
    if isinstance(value, list) and name == "arrayOf":
        bad = next((i for i, v in enumerate(value) if not _fits(v, inner)), None)
        if bad is not None:
            return _why(value[bad], inner, f"{path}[{bad}]")
    if isinstance(value, dict) and name == "objectOf":
        bad_key = next((k for k, v in value.items() if not _fits(v, inner)), None)
        if bad_key is not None:
            return _why(value[bad_key], inner, f"{path}.{bad_key}" if path else str(bad_key)[:40])
    if path:
        return f"its field {path!r} cannot be {_a(value)}"
    return f"{_a(value).split(' (')[0]} is not a value this property holds"
