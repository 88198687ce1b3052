"""Every server-side Dash callback, driven with arbitrary JSON in every input and state: the answer is a
drawing (200/204) or a one-line refusal (400), never a 5xx. The values are what a script could send, not
only what a browser would: wrong types, huge and negative numbers, deep and wide objects, long strings, and
objects shaped almost like what the page's stores and charts hold. Part of the bodies are forged beyond the
values too: an entry naming another component or property, changed prop ids and outputs of any kind, a
pattern's wildcard filled with anything.
The dashboard talks to a real embedded API, as it does under `headdiv serve`; the bodies go to the Flask app
in-process (no socket), so a few thousand take seconds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headdiv.dashboard.page.app import create_dash_app
from headdiv.jobs.kinds import JOB_KINDS
from headdiv.server.dashboard_mount import harden
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

ROUTE = "/_dash-update-component"
EXAMPLES = int(os.environ.get("HEADDIV_FUZZ_EXAMPLES", "2000"))

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**18), max_value=10**18)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(["nan", "inf", "1e999", "x" * 5000, "?tab=" + "a" * 300, "", "0", "ensemble", "theta=45"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
request_keys = st.sampled_from(
    [json.dumps([k.path, {}]) for k in JOB_KINDS.values()] + ['["/nowhere", {}]', "[", '["/x"]', "[1, 2]", "null"]
)
FIELDS = [
    "key",
    "result",
    "partial",
    "headline",
    "id",
    "done",
    "source",
    "model",
    "seed",
    "picked",
    "error",
    "name",
    "data",
    "layout",
    "frames",
    "config",
    "tab",
    "tour",
    "step",
    "layers",
    "type",
    "props",
    "namespace",
    "at",
]
"""The fields of what the page's stores and charts hold: an object made of them gets past the first look."""
shaped = st.recursive(
    st.dictionaries(st.sampled_from(FIELDS), json_values | request_keys, max_size=5),
    lambda inner: st.dictionaries(st.sampled_from(FIELDS), inner | st.lists(inner, max_size=3), max_size=4),
    max_leaves=8,
)
values = json_values | shaped | st.none()
FORGERIES = ("none", "none", "none", "id", "property", "changed", "outputs", "wrap", "wildcard", "drop")


@pytest.fixture(scope="module")
def dash() -> Iterator[tuple[Any, list[dict[str, Any]]]]:
    from headdiv.server.main import create_app

    with ServerThread(create_app(embedded_settings(), mount_dashboard=False)) as api:
        app = create_dash_app(api.url)
        harden(app)
        client = app.server.test_client()
        deps = [d for d in client.get("/_dash-dependencies").get_json() if not d.get("clientside_function")]
        yield client, deps


def _concrete(ident: str) -> Any:
    """A dependency's id as a component would have it: a pattern's wildcards filled with one value."""
    if not ident.startswith("{"):
        return ident, None
    pattern = json.loads(ident)
    wild = next((v[0] for v in pattern.values() if isinstance(v, list)), None)
    return {k: ("x" if isinstance(v, list) else v) for k, v in pattern.items()}, wild


def _entries(specs: list[dict[str, Any]], values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for spec, value in zip(specs, values, strict=True):
        ident, wild = _concrete(spec["id"])
        entry = {"id": ident, "property": spec["property"], "value": value}
        out.append([entry] if wild in ("ALL", "ALLSMALLER") else entry)
    return out


def _prop_id(spec: dict[str, Any]) -> str:
    """An input's id and property as the browser names it in `changedPropIds`."""
    ident = _concrete(spec["id"])[0]
    text = json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else ident
    return f"{text}.{spec['property']}"


def _outputs(dep: dict[str, Any]) -> Any:
    def one(text: str) -> Any:
        text = text.split("@", 1)[0]
        ident, _, prop = text.rpartition(".")
        concrete, wild = _concrete(ident)
        spec = {"id": concrete, "property": prop}
        return [spec] if wild in ("ALL", "ALLSMALLER") else spec

    if dep["output"].startswith(".."):
        return [one(o) for o in dep["output"][2:-2].split("...")]
    return one(dep["output"])


def _forge(body: dict[str, Any], how: str, draw: st.DrawFn) -> None:
    """Forge one part of a well-formed body, beyond its values."""
    entries = [e for key in ("inputs", "state") for e in body[key]]
    if how == "changed":
        body["changedPropIds"] = draw(
            st.lists(st.text(max_size=30) | st.sampled_from(["{bad.data", ".", "state.data", '{"a":1}.x']), max_size=3)
            | json_values
        )
    elif how == "outputs":
        body["outputs"] = draw(json_values | st.just([body["outputs"]]))
    elif how == "drop":
        del body[draw(st.sampled_from(["outputs", "inputs", "state", "changedPropIds"]))]
    elif entries:
        i = draw(st.integers(0, len(entries) - 1))
        entry = entries[i][0] if isinstance(entries[i], list) and entries[i] else entries[i]
        if how == "id":
            entry["id"] = draw(json_values | st.sampled_from(["state", "url", "nothing", {"type": "chart"}]))
        elif how == "property":
            entry["property"] = draw(st.text(max_size=12) | st.sampled_from(["data", "value", "figure"]))
        elif how == "wrap":
            target = body["inputs"] if i < len(body["inputs"]) else body["state"]
            j = i if i < len(body["inputs"]) else i - len(body["inputs"])
            target[j] = entry if isinstance(entries[i], list) else [entry]
        elif how == "wildcard" and isinstance(entry.get("id"), dict):
            key = draw(st.sampled_from(sorted(entry["id"])))
            entry["id"] = {**entry["id"], key: draw(json_values)}


@st.composite
def bodies(draw: st.DrawFn, deps: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A body for one of `deps`: its values drawn, and one part of it forged (or none)."""
    dep = draw(st.sampled_from(deps))
    n = len(dep["inputs"]) + len(dep["state"])
    # a few entries hold anything, the others nothing (as a page's do at first): a body is refused at its
    # first bad value, so more would cost drawing time and reach no further
    anything = draw(st.sets(st.integers(0, n - 1), max_size=3)) if n else set()
    drawn = [draw(values) if i in anything else None for i in range(n)]
    inputs, state = drawn[: len(dep["inputs"])], drawn[len(dep["inputs"]) :]
    body: dict[str, Any] = {
        "output": dep["output"],
        "outputs": _outputs(dep),
        "inputs": _entries(dep["inputs"], inputs),
        "state": _entries(dep["state"], state),
        "changedPropIds": [_prop_id(i) for i in dep["inputs"][:1]],
    }
    _forge(body, draw(st.sampled_from(FORGERIES)), draw)
    return dep["output"], body


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_no_callback_answers_a_5xx_whatever_json_its_inputs_hold(
    dash: tuple[Any, list[dict[str, Any]]], data: st.DataObject
) -> None:
    client, deps = dash
    output, body = data.draw(bodies(deps), label="body")
    answer = client.post(ROUTE, data=json.dumps(body), content_type="application/json")
    assert answer.status_code < 500, (output[:120], body, answer.get_data(as_text=True)[:300])
    if answer.status_code >= 400:
        assert answer.get_json()["message"], answer.get_data(as_text=True)[:300]
