"""Bad input and abuse: every case is a 422 naming the field (or 413/404/405), never a 500."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings

JSON = {"content-type": "application/json"}

BAD_SCENARIOS = [
    ('{"noise": NaN}', "noise"),
    ('{"theta": Infinity}', "theta"),
    ('{"bandwidth": -Infinity}', "bandwidth"),
    ('{"n": 1' + "0" * 40 + "}", "n"),
    ('{"n": ' + "9" * 5000 + "}", "body"),  # past Python's int parsing limit
    ('{"noise": 1e999}', "noise"),
    ('{"foo": 1}', "foo"),
    ('{"H": "four"}', "H"),
    ('{"H": true}', "H"),
    ('{"H": 2.5}', "H"),
    ('{"H": 0}', "H"),
    ('{"geometry": "hexagonal"}', "geometry"),
    ('{"geometry": "tilted", "H": 2, "tilts": [10]}', "tilts"),
    ('{"geometry": "shared_dims", "d_k": 2, "shared_dims": 3}', "shared_dims"),
    ('{"replicates": 5000, "queries": 1024, "n": 65536}', "work budget"),
    ("[1, 2]", "body"),
    ('"scenario"', "body"),
    ("{", "body"),
    ("[" * 50_000 + "]" * 50_000, "body"),  # deeper than the JSON decoder's recursion limit
    ('{"tilts": ' + "[" * 800 + "]" * 800 + "}", "tilts"),  # deep but decodable
    ('{"base": ' * 20_000 + "1" + "}" * 20_000, "body"),
]


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


@pytest.mark.parametrize(("body", "field"), BAD_SCENARIOS, ids=[f"case{i}" for i in range(len(BAD_SCENARIOS))])
def test_bad_scenarios_are_422_naming_the_field(api: TestClient, body: str, field: str) -> None:
    r = api.post("/api/v1/simulations", content=body, headers=JSON)
    assert r.status_code == 422, r.text[:300]
    data = r.json()
    assert data["detail"] and all({"loc", "msg", "type"} <= set(d) for d in data["detail"])
    assert field in data["message"] or any(field in map(str, d["loc"]) for d in data["detail"]), data


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/surfaces", {"x": {"param": "H", "values": [1, 2]}, "y": {"param": "H", "values": [1]}}, "y.param"),
        ("/api/v1/surfaces", {"x": {"param": "H", "values": [1.5]}, "y": {"param": "n", "values": [64]}}, "values"),
        ("/api/v1/surfaces", {"x": {"param": "mse", "values": [1]}, "y": {"param": "n", "values": [64]}}, "param"),
        (
            "/api/v1/surfaces",
            {
                "base": {"replicates": 5000, "n": 65536},
                "x": {"param": "H", "values": [64]},
                "y": {"param": "n", "values": [65536]},
            },
            "work budget",
        ),
        ("/api/v1/architectures", {"budget": 0}, "budget"),
        ("/api/v1/architectures", {}, "budget"),
        ("/api/v1/sweeps/diversity", {"thetas": [10, 100]}, "thetas"),
        ("/api/v1/sweeps/diversity", {"base": {"H": 1}}, "base.H"),
        ("/api/v1/hdi", {"matrices": [[[1, 0], [0, 1]], [[1, 0, 0]]]}, "matrices"),
        ("/api/v1/hdi", {"matrices": []}, "matrices"),
    ],
)
def test_bad_bodies_of_other_endpoints(api: TestClient, path: str, body: dict[str, object], field: str) -> None:
    r = api.post(path, json=body)
    assert r.status_code == 422, r.text[:300]
    assert field in r.text


def test_bad_query_parameters(api: TestClient) -> None:
    for query in ("wait=61", "wait=-1", "wait=nan", "wait=abc"):
        r = api.post(f"/api/v1/simulations?{query}", json={})
        assert r.status_code == 422 and "wait" in r.json()["message"], r.text
    for query in ("n=1", "budget=0", "c1=-1", "c2=inf", "zz=1", "n=abc"):
        r = api.get(f"/api/v1/theory/architecture?{query}")
        assert r.status_code == 422, (query, r.text)
        assert query.split("=")[0] in r.json()["message"]


def test_body_over_the_limit_is_413_by_length_and_by_stream() -> None:
    with TestClient(create_app(embedded_settings(max_body_bytes=2000), mount_dashboard=False)) as c:
        big = '{"seed": 1, "pad": "' + "x" * 3000 + '"}'
        r = c.post("/api/v1/simulations", content=big, headers=JSON)
        assert r.status_code == 413 and "at most 2000 bytes" in r.json()["detail"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: only the streamed count can catch it
            for _ in range(10):
                yield b" " * 500

        r = c.post("/api/v1/simulations", content=chunks(), headers=JSON)
        assert r.status_code == 413 and "at most 2000 bytes" in r.json()["detail"]
        ok = c.post("/api/v1/simulations", content='{"foo": 1}', headers=JSON)
        assert ok.status_code == 422  # a small body still reaches validation


def test_unknown_api_paths_are_json_404_and_wrong_methods_405(api: TestClient) -> None:
    for path in ("/api/v1/nothing", "/api/v2/health", "/api"):
        r = api.get(path)
        assert r.status_code == 404 and r.headers["content-type"] == "application/json", path
        assert "no API endpoint" in r.json()["detail"]
    r = api.get("/api/v1/simulations")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    r = api.put("/api/v1/jobs/" + "a" * 64)
    assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == {"GET", "DELETE"}


def test_job_ids_are_checked(api: TestClient) -> None:
    assert api.get("/api/v1/jobs/not-a-hash").status_code == 422
    r = api.get("/api/v1/jobs/" + "0" * 64)
    assert r.status_code == 404 and r.json()["detail"].startswith("no job")
    assert api.delete("/api/v1/jobs/" + "0" * 64).status_code == 404


def test_cheap_endpoints_answer_at_once(api: TestClient) -> None:
    r = api.get("/api/v1/theory/architecture", params={"n": 1000, "budget": 32})
    assert r.status_code == 200
    body = r.json()
    assert body["n"] == 1000 and body["budget"] == 32
    assert {(c["H"], c["d_k"]) for c in body["candidates"]} == {(32 // d, d) for d in (1, 2, 4, 8, 16, 32)}
    r = api.post("/api/v1/hdi", json={"matrices": [[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]})
    assert r.status_code == 200
    assert r.json()["hdi"] == pytest.approx(0.5)  # one shared direction of two: overlap 1/2


def test_dashboard_is_served_at_root_and_api_paths_stay_json() -> None:
    with TestClient(create_app(embedded_settings())) as c:
        page = c.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "_dash-renderer" in page.text or "dash_renderer" in page.text  # the real Dash app, not a placeholder
        missing = c.get("/api/v1/does-not-exist")
        assert missing.status_code == 404 and missing.headers["content-type"] == "application/json"
        assert c.get("/api/v1/health").json()["status"] == "ok"
