"""Dependent tokens (the paper's open problem 3): the `dependence` / `phi` keys everywhere a key is read.

The engine side (φ = 0 reproduces i.i.d. bit for bit, the float64 reference agrees) is in
tests/engine/test_reference.py; here: the keys leave every i.i.d. job id as it was, and a bad φ is refused
by the API (422 naming the field), the CLI (status 2) and the dashboard's URL (a notice, the default).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from headdiv import cli
from headdiv.dashboard.page.url_state import UrlRegistry, scenario_params
from headdiv.jobs import ids
from headdiv.jobs.ids import job_id
from headdiv.schemas import Scenario, SurfaceRequest
from headdiv.schemas.fields import canonical
from headdiv.schemas.requests import SWEEP_PARAMS
from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings

# Job ids of i.i.d. requests as they were before `dependence` existed, at engine version "1" (the test pins
# the version: a new engine rightly changes every id, but the payload of an i.i.d. request must not).
BEFORE_ENGINE = "1"
BEFORE = {
    "default": "cf80e6ee5da078a8c3b3e4086332e857d7c4d94e731dc544fc624891414d7aec",
    "softmax": "1cc717cb59ae05e9523493dabc2459547ea0269d3ee0e1363c2ba8548c54e65e",
    "surface": "a1a0bfba71aa05d49fe5782e76379fc7bb3112dd607f6a18f7b851f9e871becb",
}


def test_iid_job_ids_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ids, "ENGINE_VERSION", BEFORE_ENGINE)
    assert job_id("simulation", canonical(Scenario())) == BEFORE["default"]
    assert job_id("simulation", canonical(Scenario(dependence="iid"))) == BEFORE["default"]
    softmax = Scenario(H=8, noise=1.0, kernel="softmax")
    assert job_id("simulation", canonical(softmax)) == BEFORE["softmax"]
    surface = SurfaceRequest.model_validate(
        {"x": {"param": "theta", "values": [0, 90]}, "y": {"param": "H", "values": [2]}}
    )
    assert job_id("surface", canonical(surface)) == BEFORE["surface"]
    assert "phi" not in canonical(Scenario()) and "dependence" not in canonical(Scenario())


def test_ar1_is_a_different_job_and_phi_a_surface_axis() -> None:
    ar1 = Scenario(dependence="ar1", phi=0.5)
    assert canonical(ar1)["phi"] == 0.5 and canonical(ar1)["dependence"] == "ar1"
    assert job_id("simulation", canonical(ar1)) != BEFORE["default"]
    assert "phi" in SWEEP_PARAMS
    surface = SurfaceRequest.model_validate(
        {
            "base": {"dependence": "ar1", "replicates": 20},
            "x": {"param": "phi", "values": [0, 0.5, 0.9]},
            "y": {"param": "noise", "values": [0.5]},
        }
    )
    assert [s.phi for s in surface.scenarios()] == [0, 0.5, 0.9]


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


@pytest.mark.parametrize(
    "body",
    [
        {"dependence": "ar1", "phi": 0.99},
        {"dependence": "ar1", "phi": -0.1},
        {"dependence": "ar1", "phi": "0.5"},
        {"phi": 0.5},  # phi without ar1 would be silently ignored: refused instead
    ],
)
def test_bad_phi_is_422_naming_the_field(api: TestClient, body: dict) -> None:
    r = api.post("/api/v1/simulations?wait=0", json=body)
    assert r.status_code == 422, r.text[:300]
    assert r.json()["message"].startswith("phi:"), r.json()


def test_bad_dependence_is_422_naming_the_field(api: TestClient) -> None:
    r = api.post("/api/v1/simulations?wait=0", json={"dependence": "markov"})
    assert r.status_code == 422
    assert "dependence" in r.json()["message"]


def test_a_phi_surface_over_iid_tokens_names_the_cell(api: TestClient) -> None:
    body = {"x": {"param": "phi", "values": [0, 0.5]}, "y": {"param": "H", "values": [2]}}
    r = api.post("/api/v1/surfaces?wait=0", json=body)
    assert r.status_code == 422
    assert "phi" in r.json()["message"] and "ar1" in r.json()["message"]


def test_cli_refuses_bad_phi(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = cli.main(["simulate", '{"dependence": "ar1", "phi": 1.5}'])
    except SystemExit as exc:
        status = int(exc.code or 0)
    assert status == 2
    assert "phi" in capsys.readouterr().err


def test_url_reads_dependence_and_phi() -> None:
    registry = UrlRegistry(scenario_params())
    state = registry.parse("?dependence=ar1&phi=0.6")
    assert state["dependence"] == "ar1" and state["phi"] == 0.6 and not state.notices
    assert registry.serialize(state.values) == "?dependence=ar1&phi=0.6"
    label = registry["phi"].label  # notices name the control as the reader sees it
    clamped = registry.parse("?dependence=ar1&phi=2")
    assert clamped["phi"] != 2 and any(label in n for n in clamped.notices)
    orphan = registry.parse("?phi=0.5")
    assert orphan["phi"] == 0 and any(n.startswith(f"{label}:") for n in orphan.notices)
