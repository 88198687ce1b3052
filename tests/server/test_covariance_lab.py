"""The covariance lab (the paper's open problem 2, Lemma 4.1): the split of the measured covariance, what
orthogonal heads share, the bound's constants, and the job through the API (cache, partial results, 422)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from headdiv.schemas import CovarianceRequest
from headdiv.server.main import create_app
from headdiv.workers.engine.covariance import lipschitz, run_covariance
from headdiv.workers.engine.simulation import simulate
from tests.server.conftest import MODES, embedded_settings, service
from tests.server.helpers import RUN_SEED, poll

ENDED = ("finished", "failed", "canceled")
TINY = {"H": 3, "d_k": 2, "n": 48, "queries": 8, "noise": 1.0}


def lab(thetas: list[float], **base: object) -> dict:
    request = CovarianceRequest.model_validate({"thetas": thetas, "base": {**TINY, **base}})
    return run_covariance(request, device="cpu", dtype="float64").model_dump(mode="json")


def test_the_split_adds_up_to_the_measured_covariance_exactly() -> None:
    result = lab([0, 60, 90], target="sine", replicates=30)
    for m in result["matrices"]:
        measured, shared, signal = (np.array(m[k]) for k in ("measured", "shared_noise", "signal"))
        assert np.array_equal(signal, measured - shared)
        np.testing.assert_allclose(signal + shared, measured, rtol=1e-12, atol=1e-15)


def test_measured_covariance_is_the_simulations_own() -> None:
    """The lab's measured covariance is the engine's C_bar (docs/model.md section 4) of the same scenario."""
    result = lab([30], target="sine", replicates=20, seed=5)
    sim = simulate(
        {**TINY, "geometry": "equiangular", "theta": 30, "target": "sine", "replicates": 20, "seed": 5},
        device="cpu",
        dtype="float64",
    ).model_dump(mode="json")
    np.testing.assert_allclose(result["matrices"][0]["measured"], sim["covariance_matrix"], rtol=1e-8, atol=1e-12)


def test_orthogonal_heads_share_the_noise_and_nothing_else_for_a_constant_target() -> None:
    """Lemma 4.1 says C = 0 at 90°; with noise the heads still average the same y_i: C ≈ σ² E[Σ w w'] ≈ σ²/n."""
    result = lab([90], target="constant", replicates=400, seed=11)
    m = result["matrices"][0]
    H = TINY["H"]
    for h in range(H):
        for g in range(h + 1, H):
            shared, measured = m["shared_noise"][h][g], m["measured"][h][g]
            assert shared > 0
            error = math.hypot(m["measured_se"][h][g], m["shared_noise_se"][h][g])
            assert abs(measured - shared) <= 3 * error, (measured, shared, error)
            assert m["bound"][h][g] == 0.0  # the lemma's bound: L = 0 for a constant target
    assert result["sigma2_over_n"] == pytest.approx(1.0 / TINY["n"])
    assert result["mean_pair"]["shared_noise"][0] == pytest.approx(1.0 / TINY["n"], rel=0.3)


def test_the_bound_uses_the_documented_constants() -> None:
    assert [lipschitz(t) for t in ("constant", "linear", "sine", "quadratic")] == pytest.approx([0, 1, 2, 6], abs=1e-3)
    result = lab([0, 90], target="linear", replicates=4)
    c = result["constants"]
    assert c["L"] == pytest.approx(1.0) and c["n"] == TINY["n"] and c["d_k"] == TINY["d_k"]
    at0, at90 = result["mean_pair"]["bound"]
    assert at0 > 0 and at90 == pytest.approx(0.0, abs=1e-12)  # ||G||_F^2 = sum cos^2 = 0 for orthogonal heads


def test_partial_results_and_cancel_reach_the_hooks() -> None:
    request = CovarianceRequest.model_validate({"thetas": [0, 45, 90], "base": {**TINY, "replicates": 4}})
    seen: list[dict] = []
    run_covariance(request, device="cpu", partial=lambda r: seen.append(r.model_dump()))
    assert [len(p["thetas"]) for p in seen] == [1, 2] and not seen[0]["complete"]
    from headdiv.schemas.errors import JobCancelled

    with pytest.raises(JobCancelled):
        run_covariance(request, device="cpu", should_cancel=lambda: True)


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


def test_api_runs_caches_and_refuses(api: TestClient) -> None:
    body = {"thetas": [0, 90], "base": {**TINY, "replicates": 8, "seed": RUN_SEED}}
    r = api.post("/api/v1/labs/covariance", json=body)
    assert r.status_code in (200, 202), r.text
    done = poll(api, r.json()["job_id"], ("finished", "failed", "canceled"), 120)
    assert done["status"] == "finished", done
    assert done["result"]["thetas"] == [0, 90] and len(done["result"]["pairs"]) == 3
    again = api.post("/api/v1/labs/covariance?wait=0", json=body).json()
    assert again["cached"] is True and again["job_id"] == r.json()["job_id"]
    bad = api.post("/api/v1/labs/covariance", json={"base": {"H": 1}})
    assert bad.status_code == 422 and bad.json()["message"].startswith("base.H")
    bad = api.post("/api/v1/labs/covariance", json={"thetas": [100]})
    assert bad.status_code == 422 and "thetas" in bad.json()["message"]


def test_cli_runs_the_lab(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from headdiv import cli

    body = {"thetas": [90], "base": {**TINY, "replicates": 6}}
    assert cli.main(["covariance", json.dumps(body)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["thetas"] == [90] and out["complete"] is True


@pytest.mark.parametrize("scaled", MODES)
def test_partial_result_then_cancel_in_both_set_ups(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A long lab publishes its angles as they finish (`partial`), and DELETE stops it between angles."""
    body = {
        "thetas": [float(t) for t in range(0, 91, 6)],
        "base": {"H": 8, "n": 1024, "replicates": 100, "queries": 64, "seed": RUN_SEED + scaled},
    }
    with service(scaled, request, tmp_path) as client:
        job_id = client.post("/api/v1/labs/covariance", json=body).json()["job_id"]
        seen = poll(client, job_id, lambda b: bool(b.get("partial")) or b["status"] in ENDED, 300)
        assert seen["status"] == "running", seen["status"]
        partial = seen["partial"]
        assert partial["complete"] is False and 1 <= len(partial["thetas"]) < len(body["thetas"])
        assert client.delete(f"/api/v1/jobs/{job_id}").status_code in (200, 202)
        ended = poll(client, job_id, ENDED, 120)
    assert ended["status"] == "canceled", ended
