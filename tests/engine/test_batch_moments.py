"""The batched decomposition on the device (`batch_moments`) against `decomposition`'s NumPy form, cell by
cell: the same moments, gated terms, baselines and direct MSE with its standard error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from headdiv.schemas import Scenario
from headdiv.workers.engine import decomposition as dec
from headdiv.workers.engine.batch_moments import BatchMoments
from headdiv.workers.engine.device import resolve_device
from headdiv.workers.engine.draws import BatchDraws
from headdiv.workers.engine.simulation import simulate_many

C, R, H, Q, S = 3, 40, 4, 6, 5


def batch(dtype: torch.dtype = torch.float32) -> BatchDraws:
    """Random draws of C cells, with a large common offset (the moments must not lose it to cancellation)
    and gates that sum to one over the heads."""
    dev = resolve_device(None)
    g = torch.Generator().manual_seed(7)
    est = 5.0 + torch.randn(C, R, H, Q, generator=g, dtype=dtype)
    est[1, :, 1] = est[1, :, 0]  # two identical heads: a singular covariance
    gate = torch.rand(C, R, H, Q, generator=g, dtype=dtype)
    gate /= gate.sum(dim=2, keepdim=True)
    return BatchDraws(
        estimates=est.to(dev),
        gates={"maw": gate.to(dev)},
        big=(5.0 + torch.randn(C, R, Q, generator=g, dtype=dtype)).to(dev),
        truth=torch.randn(C, Q, generator=g, dtype=torch.float64).to(dev),
        slice_t=torch.linspace(-1, 1, S, dtype=dtype).to(dev),
        slice_truth=torch.randn(C, S, generator=g, dtype=torch.float64).to(dev),
        slice_heads=torch.randn(C, H, S, generator=g, dtype=dtype).to(dev),
        slice_gates={"maw": torch.rand(C, H, S, generator=g, dtype=dtype).to(dev)},
        big_dims=[8, 9, 10],
    )


def close(a: object, b: object) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-11, atol=1e-13)


def test_every_cells_sums_are_those_of_the_numpy_decomposition() -> None:
    draws = batch()
    sums = BatchMoments(draws).sums()
    for c, (host, got) in enumerate(zip(draws.on_host(), sums, strict=True)):
        m = dec.moments(host.estimates, host.truth)
        close(got.moments.bias, m.bias)
        close(got.moments.cbar, m.cbar)
        contrib = host.gates["maw"] * host.estimates
        gm = dec.moments(contrib, host.truth / H)
        close(got.gated["maw"].moments.bias, gm.bias)
        close(got.gated["maw"].moments.cbar, gm.cbar)
        per_rep = dec.per_replicate_mse(contrib.sum(axis=1), host.truth)
        close(got.gated["maw"].direct, (per_rep.mean(), dec.replicate_se(per_rep)))
        close(got.gated["maw"].mean_gate, host.gates["maw"].mean(axis=(0, 2)))
        big = dec.single_estimator(host.big, host.truth)
        assert got.big.keys() == big.keys()
        close([got.big[k] for k in big], [big[k] for k in big])
        close(got.slice_heads, host.slice_heads)
        close(got.slice_gates["maw"], host.slice_gates["maw"])
        close(got.slice_truth, host.slice_truth)
        assert got.big_dim == draws.big_dims[c]


def test_the_direct_mse_of_any_weights_is_that_of_the_numpy_decomposition() -> None:
    draws = batch(torch.float64)
    rng = np.random.default_rng(3)
    cells = [2, 0, 2, 1]  # rows may read any cell, several rows the same one
    alphas = rng.normal(size=(len(cells), 3, H))  # weights of any sign, not summing to one
    got = BatchMoments(draws).direct(alphas, cells)
    assert got.shape == (len(cells), 3, 2)
    host = draws.on_host()
    for i, c in enumerate(cells):
        for k in range(3):
            close(got[i, k], dec.direct_mse(host[c].estimates, host[c].truth, alphas[i, k]))


def test_scenarios_that_differ_only_in_their_weights_get_their_own_direct_mse() -> None:
    """Two cells share one draw (rho is not a draw's field) yet combine it differently: each gets the direct
    MSE of its own weights, and equals the same scenario simulated alone."""
    base = {"replicates": 12, "queries": 6, "n": 40, "H": 3, "d_k": 2, "weights": "geometric", "theta": 40.0}
    cells = [Scenario.model_validate({**base, "rho": rho}) for rho in (0.2, 0.9)]
    together = dict(simulate_many(cells))
    assert together[0].mse_direct != pytest.approx(together[1].mse_direct, rel=1e-6)
    for i, s in enumerate(cells):
        alone = dict(simulate_many([s]))[0]
        assert together[i].mse_direct == pytest.approx(alone.mse_direct, rel=1e-12)
        assert together[i].mse_se == pytest.approx(alone.mse_se, rel=1e-12)
        assert together[i].weightings["geometric"].alpha == pytest.approx(alone.weightings["geometric"].alpha)
