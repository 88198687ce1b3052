"""The engine against the plain-loop float64 NumPy reference, for every kernel, geometry, target,
signal and weighting (each value appears in at least one small scenario)."""

from __future__ import annotations

import numpy as np
import pytest

from headdiv.schemas import Scenario
from headdiv.workers.engine.diversity import hdi_report
from headdiv.workers.engine.simulation import simulate
from tests.engine import reference

SMALL = {"H": 3, "d_k": 2, "n": 12, "replicates": 5, "queries": 3, "noise": 0.7}
CASES = [
    {"kernel": "gaussian", "geometry": "equiangular", "target": "sine", "signal": "shared", "weights": "uniform"},
    {
        "kernel": "softmax",
        "geometry": "equiangular",
        "target": "linear",
        "signal": "spread",
        "weights": "geometric",
        "theta": 30.0,
        "temperature": 0.7,
    },
    {
        "kernel": "gaussian",
        "geometry": "tilted",
        "tilts": [10.0, 40.0, 80.0],
        "target": "quadratic",
        "signal": "spread",
        "weights": "fibonacci",
        "bandwidth_rule": "paper",
    },
    {
        "kernel": "softmax",
        "geometry": "shared_dims",
        "shared_dims": 1,
        "d_k": 3,
        "target": "constant",
        "signal": "shared",
        "weights": "optimal",
    },
    {
        "kernel": "gaussian",
        "geometry": "random",
        "p": 7,
        "target": "sine",
        "signal": "shared",
        "weights": "maw",
        "bandwidth_rule": "fixed",
        "bandwidth": 0.8,
        "beta": 1.5,
    },
    {
        "kernel": "gaussian",
        "geometry": "shared_dims",
        "shared_dims": 2,
        "d_k": 3,
        "target": "linear",
        "signal": "spread",
        "weights": "maw",
        "beta": 0.0,
    },
    {
        "kernel": "softmax",
        "geometry": "random",
        "p": 5,
        "H": 4,
        "target": "quadratic",
        "signal": "spread",
        "weights": "uniform",
    },
    {
        "kernel": "gaussian",
        "geometry": "equiangular",
        "target": "sine",
        "signal": "shared",
        "weights": "uniform",
        "dependence": "ar1",
        "phi": 0.8,
    },
    {
        "kernel": "softmax",
        "geometry": "random",
        "p": 6,
        "target": "linear",
        "signal": "shared",
        "weights": "optimal",
        "dependence": "ar1",
        "phi": 0.5,
    },
    # identical heads and a big head of dimension d_k: computed once by the engine, one by one here
    {"kernel": "gaussian", "geometry": "equiangular", "theta": 0.0, "target": "sine", "weights": "maw"},
    {"kernel": "softmax", "geometry": "tilted", "tilts": [0.0, 0.0, 50.0], "target": "linear", "weights": "maw"},
    {"kernel": "gaussian", "geometry": "equiangular", "H": 1, "target": "quadratic", "weights": "uniform"},
]


def close(a: object, b: object) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(c[k]) for k in ("kernel", "geometry", "weights")))
def test_engine_matches_numpy_reference(case: dict) -> None:
    s = Scenario(**{**SMALL, **case})
    got = simulate(s, dtype="float64").model_dump(mode="json")
    ref = reference.simulate(s)

    assert got["p"] == ref["p"]
    for h, head in enumerate(ref["heads"]):
        for key in ("mse", "bias2", "variance"):
            close(got["heads"][h][key], head[key])
    close(got["covariance_matrix"], ref["covariance_matrix"])
    close(got["correlation_matrix"], ref["correlation_matrix"])
    close(got["mean_correlation"], ref["mean_correlation"])
    for name in ("uniform", "geometric", "fibonacci", "optimal"):
        w, r = got["weightings"][name], ref["weightings"][name]
        close(w["alpha"], r["alpha"])
        for key in ("mse", "bias2", "variance", "covariance"):
            close(w[key], r[key])
    close(got["weightings"]["maw"]["mse"], ref["weightings"]["maw"]["mse"])
    close(got["weightings"]["maw"]["bias2"], ref["weightings"]["maw"]["bias2"])
    for name in ("uniform", "geometric", "fibonacci", "optimal", "maw"):
        close(got["weightings"][name]["mse_se"], ref["weightings"][name]["se"])

    chosen = ref["weightings"][s.weights]
    close(got["mse"], chosen["mse"])
    close(got["mse_direct"], chosen["mse"])
    close(got["mse_se"], chosen["se"])
    close(got["bias2"], chosen["bias2"])
    close(got["effective_heads"], ref["effective_heads"])
    close(got["baselines"]["big_head"]["mse"], ref["big_head"]["mse"])
    close(got["baselines"]["big_head"]["mse_se"], ref["big_head"]["se"])
    assert got["baselines"]["big_head"]["dim"] == ref["big_head"]["dim"]
    single = dict(got["baselines"]["single_head"])
    close(single.pop("mse_se"), ref["heads"][0]["se"])
    assert single == got["heads"][0]

    expected = hdi_report(ref["W"]).model_dump(mode="json")
    close(got["hdi"], expected["hdi"])
    close(got["overlap_matrix"], expected["overlap_matrix"])
    for mine, theirs in zip(got["principal_angles_deg"], expected["principal_angles_deg"], strict=False):
        assert mine["pair"] == theirs["pair"]
        np.testing.assert_allclose(mine["angles"], theirs["angles"], atol=1e-6)


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"d_k": 64, "H": 2, "n": 256, "bandwidth_rule": "paper"},
        {"kernel": "softmax", "d_k": 32, "temperature": 0.1},
    ],
)
def test_float32_default_agrees_with_float64(extra: dict) -> None:
    """Both dtypes see the same draws; float32 (with centred keys) keeps ~6 significant digits."""
    s = Scenario(**{**SMALL, **extra})
    lo, hi = (
        simulate(s).model_dump(mode="json"),
        simulate(s, dtype="float64").model_dump(mode="json"),
    )
    assert lo["dtype"] == "float32" and hi["dtype"] == "float64"
    np.testing.assert_allclose(lo["mse"], hi["mse"], rtol=1e-5)
    np.testing.assert_allclose(lo["slice"]["ensemble"], hi["slice"]["ensemble"], rtol=1e-4, atol=1e-4)


def test_ar1_with_phi_zero_reproduces_iid_exactly() -> None:
    """φ = 0 chains nothing: the same seed gives the i.i.d. scenario's numbers, bit for bit."""
    iid = simulate(Scenario(**SMALL)).model_dump(mode="json")
    ar1 = simulate(Scenario(**SMALL, dependence="ar1", phi=0.0)).model_dump(mode="json")
    assert ar1["scenario"]["dependence"] == "ar1" and "dependence" not in iid["scenario"]
    for key in ("mse", "bias2", "variance", "covariance", "covariance_matrix", "slice"):
        assert ar1[key] == iid[key]


def test_ar1_chain_is_stationary_with_lag_correlation_phi() -> None:
    import torch

    from headdiv.workers.engine.sampling import training_sets

    x, _ = training_sets(3, 0, 64, 200, 3, device=torch.device("cpu"), dtype=torch.float64, phi=0.6)
    assert abs(float(x.var()) - 1.0) < 0.03
    lag1 = float((x[:, 1:] * x[:, :-1]).mean())
    lag2 = float((x[:, 2:] * x[:, :-2]).mean())
    assert abs(lag1 - 0.6) < 0.03 and abs(lag2 - 0.36) < 0.03
