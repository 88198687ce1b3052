"""Strict input: JSON's own types only, unknown keys and query parameters refused, query text read as numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings

JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


def _blamed(body: dict[str, Any], field: str) -> bool:
    return any(".".join(map(str, d["loc"][1:])) == field for d in body["detail"])


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/simulations", {"H": "4"}, "H"),
        ("/api/v1/simulations", {"noise": "0.5"}, "noise"),
        ("/api/v1/simulations", {"geometry": "tilted", "tilts": ["10", 20, 30, 40]}, "tilts.0"),
        ("/api/v1/surfaces", {"x": {"param": "H", "values": ["1"]}, "y": {"param": "n", "values": [64]}}, "x.values.0"),
        ("/api/v1/architectures", {"budget": "16"}, "budget"),
        ("/api/v1/sweeps/diversity", {"thetas": [0, "45"]}, "thetas.1"),
        ("/api/v1/hdi", {"matrices": [[["1"]]]}, "matrices.0.0.0"),
        ("/api/v1/foundations/budget", {"d_model": "64"}, "d_model"),
        ("/api/v1/foundations/budget", {"bias": 0}, "bias"),
        ("/api/v1/foundations/entropy", {"scaled": 1}, "scaled"),
        ("/api/v1/foundations/softmax", {"scores": ["1", 2]}, "scores.0"),
    ],
)
def test_json_types_are_strict(api: TestClient, path: str, body: dict[str, Any], field: str) -> None:
    r = api.post(path, json=body)
    assert r.status_code == 422, r.text[:300]
    assert _blamed(r.json(), field), r.text[:300]


def test_numbers_stay_numbers_whatever_their_json_form(api: TestClient) -> None:
    # an integer is a valid float, and a whole float a valid integer (JSON Schema counts 4.0 as one)
    r = api.post("/api/v1/foundations/budget", json={"d_model": 64.0, "H": 4, "seq_len": 16})
    assert r.status_code == 200, r.text
    assert r.json()["chosen"]["d_model"] == 64
    r = api.post("/api/v1/foundations/softmax", json={"scores": [1, 2, 3], "temperature": 2})
    assert r.status_code == 200, r.text


def _operations(api: TestClient) -> list[tuple[str, str]]:
    spec = api.app.openapi()  # type: ignore[attr-defined]
    return sorted((method.upper(), path) for path, ops in spec["paths"].items() for method in ops)


def _concrete(path: str) -> str:
    return path.replace("{job_id}", "0" * 64).replace("{name}", "all-MiniLM-L6-v2")


def test_unknown_body_keys_are_refused_by_every_json_route(api: TestClient) -> None:
    spec = api.app.openapi()  # type: ignore[attr-defined]
    checked = 0
    for path, ops in spec["paths"].items():
        post = ops.get("post", {})
        if "application/json" not in post.get("requestBody", {}).get("content", {}):
            continue
        r = api.post(_concrete(path), json={"bias_": 0})
        assert r.status_code == 422, (path, r.text[:300])
        assert any(d["loc"][-1] == "bias_" and d["type"] == "extra_forbidden" for d in r.json()["detail"]), path
        checked += 1
    assert checked >= 9  # four job kinds, /hdi, four lessons


def test_unknown_query_parameters_are_refused_by_every_route(api: TestClient) -> None:
    for method, path in _operations(api):
        r = api.request(method, _concrete(path), params={"wiat": "1"})
        assert r.status_code == 422, (method, path, r.status_code, r.text[:300])
        assert any(d["loc"] == ["query", "wiat"] for d in r.json()["detail"]), (method, path, r.text[:300])


def test_unknown_form_fields_are_refused(api: TestClient) -> None:
    files = {"file": ("m.safetensors", b"not a model", "application/octet-stream")}
    r = api.post(
        "/api/v1/models/hdi", files=files, data={"num_heads": "4", "bias": "0"}, headers={"X-Headdiv-Upload": "1"}
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "bias"]


def test_query_strings_are_read_as_the_numbers_and_booleans_they_spell(api: TestClient) -> None:
    r = api.get("/api/v1/foundations/budget", params={"bytes_per_value": 2, "d_model": 64, "H": 4, "seq_len": 8})
    assert r.status_code == 200, r.text
    two = r.json()["chosen"]["attention_bytes"]
    r = api.get("/api/v1/foundations/budget", params={"bytes_per_value": 8, "d_model": 64, "H": 4, "seq_len": 8})
    assert r.json()["chosen"]["attention_bytes"] == 4 * two
    with_bias = api.get("/api/v1/foundations/budget", params={"bias": "true"}).json()["chosen"]["params"]
    without = api.get("/api/v1/foundations/budget", params={"bias": "false"}).json()["chosen"]["params"]
    assert with_bias > without
    r = api.get("/api/v1/foundations/entropy", params=[("heads", "1"), ("heads", "2"), ("scaled", "0")])
    assert r.status_code == 200, r.text
    r = api.get("/api/v1/foundations/softmax", params=[("scores", "1.5"), ("scores", "-2e-1"), ("temperature", "0.5")])
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("query", "field"),
    [("H=%D9%A2", "H"), ("bytes_per_value=3", "bytes_per_value"), ("bias=maybe", "bias"), ("d_model=2.5", "d_model")],
)
def test_query_text_that_is_not_a_plain_number_is_refused(api: TestClient, query: str, field: str) -> None:
    r = api.get(f"/api/v1/foundations/budget?{query}")
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(f"{field}: "), r.text


def test_a_number_with_too_many_digits_is_named_plainly(api: TestClient) -> None:
    r = api.post("/api/v1/simulations", content='{"n": ' + "9" * 5000 + "}", headers=JSON)
    assert r.status_code == 422
    message = r.json()["message"]
    assert "more than 4300 digits" in message and "sys." not in r.text, message


def test_request_schemas_refuse_unknown_keys_and_say_so(api: TestClient) -> None:
    """Every object of every JSON request body is `additionalProperties: false` in the published schema."""
    spec = api.app.openapi()  # type: ignore[attr-defined]
    schemas = spec["components"]["schemas"]
    seen: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[-1]
                if name not in seen:
                    seen.add(name)
                    visit(schemas[name])
            if node.get("type") == "object" and "properties" in node:
                assert node.get("additionalProperties") is False, node.get("title")
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    for ops in spec["paths"].values():
        for op in ops.values():
            visit(op.get("requestBody", {}).get("content", {}).get("application/json", {}))
    assert {"Scenario", "SurfaceRequest", "HDIRequest", "BudgetQuery"} <= seen


def test_every_bound_is_written_in_json_schema_terms(api: TestClient) -> None:
    """`minimum`/`maximum`, never pydantic's raw `ge`/`le` (which no client or validator reads)."""
    text = json.dumps(api.app.openapi())  # type: ignore[attr-defined]
    for raw in ('"ge":', '"le":', '"gt":', '"lt":'):
        assert raw not in text, raw


def test_rules_between_fields_are_published_with_the_schema(api: TestClient) -> None:
    schemas = api.app.openapi()["components"]["schemas"]  # type: ignore[attr-defined]
    for name in ("Scenario", "SurfaceRequest", "ArchitectureRequest", "DiversitySweepRequest", "HDIRequest"):
        rules = schemas[name].get("x-rules")
        assert isinstance(rules, list) and rules, name
    assert any("y.param differs from x.param" in r for r in schemas["SurfaceRequest"]["x-rules"])
    thetas = schemas["DiversitySweepRequest"]["properties"]["thetas"]["items"]
    assert (thetas["minimum"], thetas["maximum"]) == (0, 90)  # a rule JSON Schema can state is a real bound
    assert schemas["EntropyQuery"]["properties"]["heads"]["uniqueItems"] is True
