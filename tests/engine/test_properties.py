"""Property test: any valid (small) scenario gives finite numbers and an exact decomposition."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headdiv.schemas import Scenario
from headdiv.workers.engine.simulation import simulate


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    h = draw(st.integers(1, 5))
    d = draw(st.integers(1, 4))
    geometry = draw(st.sampled_from(["equiangular", "tilted", "shared_dims", "random"]))
    data = {
        "H": h,
        "d_k": d,
        "n": draw(st.integers(2, 40)),
        "geometry": geometry,
        "theta": draw(st.floats(0, 90)),
        "replicates": draw(st.integers(2, 8)),
        "queries": draw(st.integers(1, 5)),
        "target": draw(st.sampled_from(["constant", "linear", "sine", "quadratic"])),
        "signal": draw(st.sampled_from(["shared", "spread"])),
        "noise": draw(st.floats(0, 100)),
        "kernel": draw(st.sampled_from(["gaussian", "softmax"])),
        "bandwidth_rule": draw(st.sampled_from(["paper", "scott", "fixed"])),
        "bandwidth": draw(st.floats(1e-3, 1e3)),
        "temperature": draw(st.floats(1e-2, 1e3)),
        "weights": draw(st.sampled_from(["uniform", "geometric", "fibonacci", "optimal", "maw"])),
        "rho": draw(st.floats(0.01, 1)),
        "beta": draw(st.floats(0, 100)),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }
    if geometry == "tilted":
        data["tilts"] = draw(st.lists(st.floats(0, 90), min_size=h, max_size=h))
    if geometry == "shared_dims":
        data["shared_dims"] = draw(st.integers(0, d))
    if geometry == "random":
        data["p"] = draw(st.integers(d, 12))
    return Scenario(**data)


def finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, list):
        return all(finite(v) for v in value)
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_any_valid_scenario_gives_finite_numbers(s: Scenario) -> None:
    r = simulate(s).model_dump(mode="json")
    assert finite(r)
    scale = max(1.0, abs(r["mse"]))
    assert abs(r["bias2"] + r["variance"] + r["covariance"] - r["mse"]) <= 1e-9 * scale
    assert r["mse"] >= 0 and r["bias2"] >= 0
    # Both are float64 sums over the same float32 estimates; weights far from 1/H amplify rounding.
    amplification = max(1.0, sum(a * a for a in r["alpha"]))
    assert abs(r["mse_direct"] - r["mse"]) <= 1e-6 * scale * amplification
