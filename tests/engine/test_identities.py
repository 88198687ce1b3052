"""Exact identities of docs/model.md that hold on any draws, and HDI / principal angles against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg

from headdiv.schemas import Scenario
from headdiv.workers.engine import decomposition as dec
from headdiv.workers.engine.diversity import hdi, hdi_report, orthonormal_basis, principal_angles
from headdiv.workers.engine.simulation import simulate

FAST = {"replicates": 12, "queries": 8, "n": 48}


@pytest.mark.parametrize("weights", ["uniform", "geometric", "fibonacci", "optimal", "maw"])
@pytest.mark.parametrize("kernel", ["gaussian", "softmax"])
def test_decomposition_is_exact(weights: str, kernel: str) -> None:
    r = simulate(Scenario(**FAST, weights=weights, kernel=kernel)).model_dump(mode="json")
    assert r["bias2"] + r["variance"] + r["covariance"] == pytest.approx(r["mse"], rel=1e-12)
    assert r["mse_direct"] == pytest.approx(r["mse"], rel=1e-9)
    assert sum(r["alpha"]) == pytest.approx(1.0)
    assert r["weightings"][weights]["mse"] == pytest.approx(r["mse"], rel=1e-12)


@pytest.mark.parametrize("theta", [0.0, 1e-3, 10.0, 45.0, 77.0, 90.0])
def test_equiangular_hdi_and_angles(theta: float) -> None:
    r = simulate(Scenario(**FAST, H=3, d_k=3, theta=theta)).model_dump(mode="json")
    assert r["hdi"] == pytest.approx(1 - math.cos(math.radians(theta)) ** 2, abs=1e-12)
    for pair in r["principal_angles_deg"]:
        np.testing.assert_allclose(pair["angles"], theta, atol=1e-9)


def test_identical_heads_make_one_head() -> None:
    r = simulate(Scenario(**FAST, H=5, theta=0.0)).model_dump(mode="json")
    assert r["hdi"] == pytest.approx(0.0, abs=1e-12)
    assert r["effective_heads"] == pytest.approx(1.0, rel=1e-6)
    assert r["mse"] == pytest.approx(r["heads"][0]["mse"], rel=1e-6)
    assert r["mean_correlation"] == pytest.approx(1.0, abs=1e-6)
    assert r["baselines"]["big_head"]["dim"] == 4


def test_orthogonal_heads_pure_noise_decorrelate() -> None:
    r = simulate(Scenario(replicates=200, queries=16, n=64, H=4, theta=90.0, target="constant")).model_dump(mode="json")
    assert r["hdi"] == 1.0
    assert abs(r["mean_correlation"]) < 0.1
    assert r["effective_heads"] > 3.0
    assert r["baselines"]["big_head"]["dim"] == 16


@pytest.mark.parametrize("k", [0, 1, 3, 4])
def test_shared_dims_hdi(k: int) -> None:
    r = simulate(Scenario(**FAST, geometry="shared_dims", d_k=4, shared_dims=k)).model_dump(mode="json")
    assert r["hdi"] == pytest.approx(1 - k / 4, abs=1e-12)
    angles = sorted(r["principal_angles_deg"][0]["angles"])
    assert angles == pytest.approx([0.0] * k + [90.0] * (4 - k), abs=1e-9)


def test_same_scenario_same_numbers_and_chunking_does_not_matter(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Scenario(**FAST)
    first, second = simulate(s).model_dump(mode="json"), simulate(s).model_dump(mode="json")
    for key in ("mse", "covariance_matrix", "slice", "weightings"):
        assert first[key] == second[key]
    from headdiv.schemas.engine_settings import get_engine_settings

    monkeypatch.setattr(get_engine_settings(), "chunk_bytes", 1)  # one replicate per chunk
    np.testing.assert_allclose(simulate(s).model_dump(mode="json")["mse"], first["mse"], rtol=1e-6)
    assert simulate(Scenario(**FAST, seed=1)).model_dump(mode="json")["mse"] != first["mse"]


def test_hdi_and_angles_match_scipy_for_random_matrices() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        p = int(rng.integers(3, 12))
        mats = [rng.standard_normal((p, int(rng.integers(1, p + 1)))) for _ in range(int(rng.integers(2, 5)))]
        report = hdi_report(mats).model_dump(mode="json")
        expected_s = np.eye(len(mats))
        for pair in report["principal_angles_deg"]:
            i, j = pair["pair"]
            ref = np.sort(np.degrees(scipy.linalg.subspace_angles(mats[i], mats[j])))
            # Where subspaces must intersect (d_i + d_j > p) the true angle is 0 and scipy reports
            # about 1e-6 degrees; ours is closer to 0, so compare at 1e-5 degrees.
            np.testing.assert_allclose(pair["angles"], ref, atol=1e-5)
            cos2 = np.cos(np.radians(ref)) ** 2
            expected_s[i, j] = expected_s[j, i] = cos2.sum() / min(mats[i].shape[1], mats[j].shape[1])
        np.testing.assert_allclose(report["overlap_matrix"], expected_s, atol=1e-10)
        off = expected_s[~np.eye(len(mats), dtype=bool)].mean()
        assert report["hdi"] == pytest.approx(1 - off, abs=1e-10)


def test_tiny_angles_keep_their_precision() -> None:
    """arccos of singular values near 1 would return 0 (or ~1e-8 noise) for a 1e-10 rad angle."""
    rng = np.random.default_rng(0)
    a = np.linalg.qr(rng.standard_normal((6, 2)))[0]
    perp = np.linalg.qr(np.concatenate([a, rng.standard_normal((6, 1))], axis=1))[0][:, 2]
    b = a.copy()
    b[:, 0] = math.cos(1e-10) * a[:, 0] + math.sin(1e-10) * perp
    angles = principal_angles(orthonormal_basis(a), orthonormal_basis(b))
    assert angles[-1] == pytest.approx(1e-10, rel=1e-5)
    assert angles[0] == pytest.approx(0.0, abs=1e-15)


def test_hdi_edge_cases() -> None:
    assert hdi([np.eye(3)[:, :2]]) is None
    with pytest.raises(ValueError, match="rank"):
        hdi_report([np.zeros((3, 2)), np.eye(3)[:, :2]])
    with pytest.raises(ValueError, match="share the ambient dimension"):
        hdi_report([np.eye(3)[:, :1], np.eye(4)[:, :1]])
    assert simulate(Scenario(**FAST, H=1)).model_dump(mode="json")["hdi"] is None


def test_single_estimator_se_is_the_per_replicate_error() -> None:
    rng = np.random.default_rng(3)
    e, truth = rng.standard_normal((30, 7)), rng.standard_normal(7)
    got = dec.single_estimator(e, truth)
    per_rep = [np.mean((e[r] - truth) ** 2) for r in range(30)]
    assert got["mse"] == pytest.approx(np.mean(per_rep), rel=1e-12)
    assert got["mse_se"] == pytest.approx(np.std(per_rep, ddof=1) / math.sqrt(30), rel=1e-12)
    # one head of weight 1 is the same estimator: the ensemble's error and the baseline's agree
    assert dec.direct_mse(e[:, None, :], truth, np.ones(1))[1] == pytest.approx(got["mse_se"], rel=1e-12)


def test_identical_heads_have_one_standard_error() -> None:
    """Ensemble, single head and big head are one estimator here: one MSE, shown to one precision."""
    r = simulate(Scenario(**FAST, H=3, theta=0.0)).model_dump(mode="json")
    single, big = r["baselines"]["single_head"], r["baselines"]["big_head"]
    assert single["mse_se"] == pytest.approx(r["mse_se"], rel=1e-6)
    assert big["mse_se"] == pytest.approx(r["mse_se"], rel=1e-6)
    for name in ("uniform", "geometric", "fibonacci", "optimal", "maw"):
        assert r["weightings"][name]["mse_se"] == pytest.approx(r["mse_se"], rel=1e-6)
