"""The training lab as a job: the API in both set-ups (result aligned on steps, partial results while it runs,
cache, cancel), bad options as 422 naming the field, and `headdiv train`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from headdiv import cli
from tests.server.conftest import MODES, service
from tests.server.helpers import RUN_SEED, poll, small

ENDED = ("finished", "failed", "canceled")


def training(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"base": small(H=3, d_k=2), "steps": 6, "record_every": 3, "batch": 2}
    return {**body, **overrides}


def slow_training(seed: int) -> dict[str, Any]:
    """Many steps on a mid-sized scenario: seconds to minutes here, long enough to watch and cancel."""
    base = {"H": 4, "d_k": 4, "n": 1024, "queries": 128, "replicates": 8, "seed": seed}
    return {"base": base, "steps": 2000, "record_every": 5, "batch": 8}


@pytest.mark.parametrize("scaled", MODES)
def test_training_runs_and_is_cached(scaled: bool, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    with service(scaled, request, tmp_path) as client:
        r = client.post("/api/v1/trainings?wait=60", json=training())
        assert r.status_code in (200, 202), r.text
        body = r.json() if r.json()["status"] == "finished" else poll(client, r.json()["job_id"], ENDED, 120)
        assert body["status"] == "finished", body
        result = body["result"]
        assert result["steps"] == [0, 3, 6]
        for key in ("loss", "mse", "bias2", "variance", "covariance", "hdi", "angles", "effective_heads", "norms"):
            assert len(result[key]) == 3, key
        again = client.post("/api/v1/trainings?wait=5", json=training())
        assert again.json()["cached"] is True and again.json()["result"]["mse"] == result["mse"]


@pytest.mark.parametrize("scaled", MODES)
def test_a_running_training_shows_its_recorded_prefix_and_cancels(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    with service(scaled, request, tmp_path) as client:
        job_id = client.post("/api/v1/trainings", json=slow_training(RUN_SEED + scaled)).json()["job_id"]
        running = poll(
            client, job_id, lambda b: b["status"] in ENDED or len((b["partial"] or {}).get("steps", [])) >= 2, 120
        )
        assert running["status"] == "running", running
        partial = running["partial"]
        assert partial["steps"][:2] == [0, 5] and len(partial["mse"]) == len(partial["steps"])
        r = client.delete(f"/api/v1/jobs/{job_id}")
        assert r.status_code in (200, 202), r.text
        body = poll(client, job_id, ENDED, 60)
    assert body["status"] == "canceled" and body["error"]["type"] == "canceled", body
    assert body["progress"] < 0.5


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"optimizer": "lbfgs"}, "optimizer"),
        ({"init": "spiral"}, "init"),
        ({"lr": 0}, "lr"),
        ({"steps": 0}, "steps"),
        ({"penalty": -1}, "penalty"),
        ({"orthonormal": 1}, "orthonormal"),
        ({"record_every": 50, "steps": 10}, "record_every"),
        ({"base": {"H": 1}}, "base.H"),
        ({"base": {"geometry": "random", "p": 30}, "init": "identical"}, "init"),
        ({"steps": 20000, "batch": 256, "base": {"n": 4096}}, "batch"),
        ({"steps": 20000, "batch": 32, "base": {"n": 1024, "queries": 128}}, "work budget"),
        ({"colour": "red"}, "colour"),
        (
            {"steps": 20000, "record_every": 1, "base": {"H": 64, "d_k": 1, "n": 32, "queries": 4, "replicates": 2}},
            "record_every",
        ),
    ],
)
def test_bad_training_options_are_422_naming_the_field(client: TestClient, body: dict[str, Any], field: str) -> None:
    r = client.post("/api/v1/trainings", json=body)
    assert r.status_code == 422, r.text[:300]
    assert field in r.json()["message"], r.text[:300]


def test_cli_train_prints_the_recorded_steps(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["train", json.dumps(training()), "--device", "cpu", "--dtype", "float64"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    result = json.loads(captured.out)
    assert result["steps"] == [0, 3, 6] and len(result["hdi"]) == 3
    assert "train: " in captured.err
