"""Every server-side Dash callback, driven with arbitrary JSON in every input and state: the answer is a
drawing (200/204) or a one-line refusal (400), never a 5xx. The values are what a script could send, not
only what a browser would: wrong types, huge and negative numbers, deep and wide objects, long strings.
The dashboard talks to a real embedded API, as it does under `headdiv serve`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headdiv.dashboard.page.app import create_dash_app
from headdiv.server.dashboard_mount import harden
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

ROUTE = "/_dash-update-component"
EXAMPLES = int(__import__("os").environ.get("HEADDIV_FUZZ_EXAMPLES", "2000"))

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


def _outputs(dep: dict[str, Any]) -> Any:
    def one(text: str) -> Any:
        text = text.split("@", 1)[0]
        ident, _, prop = text.rpartition(".")
        concrete, wild = _concrete(ident)
        spec = {"id": concrete, "property": prop}
        return [spec] if wild in ("ALL", "ALLSMALLER") else spec

    if dep["output"].startswith(".."):
        return [one(o) for o in dep["output"].strip(".").split("...")]
    return one(dep["output"])


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
    dep = data.draw(st.sampled_from(deps))
    inputs = data.draw(st.lists(json_values, min_size=len(dep["inputs"]), max_size=len(dep["inputs"])))
    state = data.draw(st.lists(json_values, min_size=len(dep["state"]), max_size=len(dep["state"])))
    changed = [f"{i['id']}.{i['property']}" for i in dep["inputs"][:1]]
    body = {
        "output": dep["output"],
        "outputs": _outputs(dep),
        "inputs": _entries(dep["inputs"], inputs),
        "state": _entries(dep["state"], state),
        "changedPropIds": changed,
    }
    answer = client.post(ROUTE, data=json.dumps(body), content_type="application/json")
    assert answer.status_code < 500, (dep["output"][:120], body, answer.get_data(as_text=True)[:300])
