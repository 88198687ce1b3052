"""Each registered choice does what its entry says (docs/model.md sections 1-3 and 5): geometries place
heads at the promised angles, targets, kernels and bandwidth rules compute their formulas, weighting
schemes give weights that sum to one. A new entry's test belongs here."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from pydantic import ValidationError

from headdiv.schemas import Scenario
from headdiv.schemas.bandwidths import bandwidth
from headdiv.schemas.kernels import KERNELS
from headdiv.schemas.targets import TARGETS
from headdiv.schemas.weightings import WEIGHTINGS, AttentionSums
from headdiv.workers.engine.decomposition import moments
from headdiv.workers.engine.geometry import build_geometry


def angles(s: Scenario) -> list[list[float]]:
    return [pair["angles"] for pair in build_geometry(s).principal_angles_deg()]


@pytest.mark.parametrize("theta", [0.0, 30.0, 72.5, 90.0])
def test_equiangular_heads_meet_at_theta(theta: float) -> None:
    for pair in angles(Scenario(H=4, d_k=3, theta=theta)):
        assert pair == pytest.approx([theta] * 3, abs=1e-9)


def test_tilted_heads_meet_at_the_angle_their_tilts_give() -> None:
    tilts = [10.0, 40.0, 80.0]
    got = angles(Scenario(H=3, d_k=2, geometry="tilted", tilts=tilts))
    for (h, g), pair in zip([(0, 1), (0, 2), (1, 2)], got, strict=True):
        cos = math.cos(math.radians(tilts[h])) * math.cos(math.radians(tilts[g]))
        assert pair == pytest.approx([math.degrees(math.acos(cos))] * 2, abs=1e-9)
    with pytest.raises(ValidationError, match="tilts: has 2 entries but H = 3"):
        Scenario(H=3, geometry="tilted", tilts=[1, 2])


def test_shared_dims_heads_share_k_directions_and_nothing_else() -> None:
    for pair in angles(Scenario(H=3, d_k=4, geometry="shared_dims", shared_dims=1)):
        assert pair == pytest.approx([0.0, 90.0, 90.0, 90.0], abs=1e-9)
    with pytest.raises(ValidationError, match="shared_dims: 5 exceeds d_k = 4"):
        Scenario(d_k=4, geometry="shared_dims", shared_dims=5)


def test_random_heads_are_orthonormal_in_p_dimensions() -> None:
    g = build_geometry(Scenario(H=3, d_k=4, geometry="random", p=12, seed=7))
    assert g.p == 12
    for w in g.dense():
        assert w.T @ w == pytest.approx(np.eye(4), abs=1e-12)
    with pytest.raises(ValidationError, match="p: a 3-dimensional space cannot hold"):
        Scenario(d_k=4, geometry="random", p=3)


def test_targets_compute_their_formulas() -> None:
    t = torch.tensor([-1.5, 0.0, 0.25, 2.0], dtype=torch.float64)
    expected = {
        "constant": 0 * t.numpy(),
        "linear": t.numpy(),
        "sine": np.sin(2 * t.numpy()),
        "quadratic": t.numpy() ** 2,
    }
    assert set(TARGETS.names) == set(expected)
    for target in TARGETS:
        assert np.array_equal(target().f(t).numpy(), expected[target.name]), target.name
    assert not torch.signbit(TARGETS["constant"]().f(-t)).any()  # zeros, not -0.0


def test_bandwidth_rules_and_kernel_scales() -> None:
    s = Scenario(n=256)
    assert bandwidth(s.model_copy(update={"bandwidth_rule": "paper"}), 4) == 0.5
    assert bandwidth(s, 4) == pytest.approx(256 ** (-1 / 8))
    assert bandwidth(Scenario(bandwidth_rule="fixed", bandwidth=0.3), 9) == 0.3
    gaussian = KERNELS["gaussian"].of(s)
    assert gaussian.logit_scale(s, 4) == pytest.approx(1 / bandwidth(s, 4) ** 2) and gaussian.distance
    soft = Scenario(kernel="softmax", temperature=2.0)
    softmax = KERNELS["softmax"].of(soft)
    assert softmax.logit_scale(soft, 4) == 0.25 and not softmax.distance


def test_every_fixed_scheme_gives_weights_that_sum_to_one() -> None:
    rng = np.random.default_rng(0)
    estimates = rng.normal(size=(50, 4, 6)) * np.array([1.0, 2.0, 0.5, 1.5])[None, :, None]
    m = moments(estimates, np.zeros(6))
    s = Scenario(H=4, rho=0.5)
    for w in WEIGHTINGS:
        if w.per_draw:
            continue
        alpha = w.of(s).alpha(m)
        assert alpha.shape == (4,) and alpha.sum() == pytest.approx(1.0), w.name
    order = np.argsort(m.head_mse)
    assert WEIGHTINGS["geometric"].of(s).alpha(m)[order] == pytest.approx(np.array([8, 4, 2, 1]) / 15)
    assert WEIGHTINGS["uniform"].of(s).alpha(m) == pytest.approx([0.25] * 4)


def test_every_gate_is_a_distribution_over_heads() -> None:
    g = torch.Generator().manual_seed(1)
    z = 1 + 9 * torch.rand(5, 3, 7, generator=g, dtype=torch.float64)  # Z >= 1: the largest e is exp(0)
    sums = AttentionSums(z=z, s2=z * torch.rand(5, 3, 7, generator=g, dtype=torch.float64), sz=-z, n=32)
    for w in WEIGHTINGS:
        if not w.per_draw:
            continue
        gates = w.of(Scenario()).gate(sums)
        assert gates.shape == z.shape and torch.allclose(gates.sum(dim=-2), torch.ones(5, 7, dtype=torch.float64))
