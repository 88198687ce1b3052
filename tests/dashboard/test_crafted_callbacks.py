"""Crafted but well-formed Dash callback requests: any value a browser could send for a control, and JSON
nested past Python's stack, get a readable notice or a short 400, never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest

from headdiv.dashboard.page.app import create_dash_app
from headdiv.server.dashboard_mount import harden

ROUTE = "/_dash-update-component"
CRAFTED: list[Any] = [1e6, 1e308, -1e308, "nan", "inf", "1e999", [], {}, [[[]]], True, "x" * 5000, -1, 0.5]


@pytest.fixture(scope="module")
def dash_client() -> Any:
    app = create_dash_app("http://127.0.0.1:9")  # no API behind it: nothing here may need one
    harden(app)
    return app.server.test_client()


def _callback_reading(client: Any, control: str) -> dict[str, Any]:
    deps = client.get("/_dash-dependencies").get_json()
    for dep in deps:
        if any(i["id"] == control and i["property"] == "value" for i in dep["inputs"]):
            return dep
    raise AssertionError(f"no callback reads {control}.value")


def _body(dep: dict[str, Any], control: str, value: Any) -> dict[str, Any]:
    def spec(s: str) -> dict[str, str]:
        ident, _, prop = s.rpartition(".")
        return {"id": ident, "property": prop}

    outputs = dep["output"].strip(".").split("...")
    return {
        "output": dep["output"],
        "outputs": [spec(o) for o in outputs] if dep["output"].startswith("..") else spec(dep["output"]),
        "inputs": [{**i, "value": value if i["id"] == control else None} for i in dep["inputs"]],
        "state": [{**s, "value": None} for s in dep["state"]],
        "changedPropIds": [f"{control}.value"],
    }


@pytest.mark.parametrize("control", ["sc-n", "sc-d_k", "sc-theta", "sc-H", "sc-noise"])
def test_any_value_of_a_control_gets_an_answer_not_a_500(dash_client: Any, control: str) -> None:
    dep = _callback_reading(dash_client, control)
    for value in CRAFTED:
        body = _body(dep, control, value)
        r = dash_client.post(ROUTE, data=json.dumps(body), content_type="application/json")
        assert r.status_code in (200, 204, 400), (control, value, r.status_code, r.get_data(as_text=True)[:300])


def test_json_nested_past_the_stack_is_a_short_400(dash_client: Any) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    r = dash_client.post(ROUTE, data=deep, content_type="application/json")
    assert r.status_code == 400 and "nested too deeply" in r.get_data(as_text=True)
