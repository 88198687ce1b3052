"""The training lab's engine: autograd against finite differences, the QR retraction, the symmetric start,
the penalty, and the held-out evaluation against the Monte Carlo's own numbers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from headdiv.schemas.cost import PARTS
from headdiv.schemas.errors import JobCancelled
from headdiv.schemas.training_request import INITS, OPTIMIZERS, TrainingRequest
from headdiv.workers.engine.sampling import QUERIES, RANDOM_GEOMETRY, TRAINING
from headdiv.workers.engine.simulation import simulate
from headdiv.workers.engine.training import (
    INIT_HEADS,
    OPTIMIZER_CLASSES,
    RECORDED,
    TRAINING_QUERIES,
    diversity_penalty,
    ensemble_loss,
    head_estimates,
    orthonormal_bases,
    run_training,
)

TINY = {"H": 3, "d_k": 2, "n": 24, "queries": 6, "replicates": 8, "noise": 0.3, "seed": 3}


def request(**overrides: Any) -> TrainingRequest:
    body: dict[str, Any] = {"base": TINY, "steps": 6, "record_every": 3, "batch": 2, "lr": 0.05}
    return TrainingRequest.model_validate({**body, **overrides})


def test_every_option_has_one_implementation() -> None:
    assert set(INIT_HEADS) == set(INITS) and set(OPTIMIZER_CLASSES) == set(OPTIMIZERS)
    assert TRAINING_QUERIES not in (TRAINING, QUERIES, RANDOM_GEOMETRY)


@pytest.mark.parametrize("kernel", ["gaussian", "softmax"])
@pytest.mark.parametrize("separate", [False, True])
def test_autograd_gradient_matches_finite_differences(kernel: str, separate: bool) -> None:
    """torch.autograd.gradcheck compares the analytic gradient of loss + λ·penalty with central finite
    differences, in float64, for W_Q, W_K and the weights' logits."""
    gen = torch.Generator().manual_seed(0)
    h, p, d, n, q, b = 2, 5, 2, 7, 3, 2
    x = torch.randn(b, n, p, generator=gen, dtype=torch.float64)
    y = torch.randn(b, n, generator=gen, dtype=torch.float64)
    xq = torch.randn(q, p, generator=gen, dtype=torch.float64)
    truth = torch.randn(q, generator=gen, dtype=torch.float64)
    wq = torch.randn(h, p, d, generator=gen, dtype=torch.float64, requires_grad=True)
    wk = torch.randn(h, p, d, generator=gen, dtype=torch.float64, requires_grad=True)
    logits = torch.randn(h, generator=gen, dtype=torch.float64, requires_grad=True)
    distance = kernel == "gaussian"

    def loss(wq: torch.Tensor, wk: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        keys = wk if separate else wq
        est = head_estimates(wq, keys, x, y, xq, 0.7, distance)
        return ensemble_loss(est, torch.softmax(logits, 0), truth) + 0.3 * diversity_penalty(keys)

    assert torch.autograd.gradcheck(loss, (wq, wk, logits), eps=1e-6, atol=1e-6, rtol=1e-5)


def test_penalty_is_the_overlap_sum() -> None:
    """Σ_{h<h'} ||Q_hᵀQ_h'||² / d_k: equiangular heads at θ have overlap cos²θ per pair."""
    w = torch.as_tensor(INIT_HEADS["equiangular"](request(base={**TINY, "theta": 60}).base))
    assert float(diversity_penalty(w)) == pytest.approx(3 * np.cos(np.radians(60)) ** 2, rel=1e-9)
    assert float(diversity_penalty(2.5 * w)) == pytest.approx(float(diversity_penalty(w)), rel=1e-9)


@pytest.mark.parametrize("init", list(INITS))
def test_inits_are_orthonormal_heads(init: str) -> None:
    w = INIT_HEADS[init](request().base)
    assert w.shape == (3, 8, 2)
    for head in w:
        np.testing.assert_allclose(head.T @ head, np.eye(2), atol=1e-12)


def test_orthonormal_training_keeps_wtw_identity() -> None:
    result = run_training(request(steps=8, lr=0.3, optimizer="sgd"), dtype="float64").model_dump(mode="json")
    for head in np.asarray(result["final_heads"]):
        np.testing.assert_allclose(head.T @ head, np.eye(2), atol=1e-10)
    assert all(n == pytest.approx([np.sqrt(2)] * 3, rel=1e-9) for n in result["norms"])


def test_free_training_leaves_the_norms_free() -> None:
    result = run_training(request(steps=8, lr=0.3, orthonormal=False), dtype="float64").model_dump(mode="json")
    assert result["norms"][-1] != pytest.approx(result["norms"][0], rel=1e-6)


def test_result_arrays_are_aligned_on_steps() -> None:
    result = run_training(request(steps=7, record_every=3), dtype="float64").model_dump(mode="json")
    assert result["steps"] == [0, 3, 6, 7]
    for key in RECORDED:
        assert len(result[key]) == 4, key
    for i in range(4):
        assert result["mse"][i] == pytest.approx(
            result["bias2"][i] + result["variance"][i] + result["covariance"][i], rel=1e-12
        )
    assert len(result["angles"][0]) == 3 and len(result["overlap"][0]) == 3
    for i in range(4):  # the recorded penalty P is the overlaps' sum over pairs, λ or not
        s = np.asarray(result["overlap"][i])
        assert result["penalty"][i] == pytest.approx(float(np.triu(s, 1).sum()), rel=1e-9)


def test_step_zero_is_the_monte_carlo_of_the_base() -> None:
    """Held-out draws are the base scenario's own: equiangular heads at its θ give the simulation's numbers."""
    req = request(init="equiangular", base={**TINY, "theta": 40})
    trained = run_training(req, dtype="float64").model_dump(mode="json")
    sim = simulate(req.base, dtype="float64").model_dump(mode="json")
    for key in ("mse", "bias2", "variance", "covariance", "hdi", "effective_heads"):
        assert trained[key][0] == pytest.approx(sim[key], rel=1e-7, abs=1e-12), key


def test_identical_heads_stay_identical_without_a_penalty() -> None:
    """The symmetric start is a fixed point of gradient descent: every head gets the same gradient."""
    result = run_training(request(init="identical", steps=6, lr=0.2), dtype="float64").model_dump(mode="json")
    assert result["hdi"] == pytest.approx([0.0] * len(result["hdi"]), abs=1e-9)


def test_a_diversity_penalty_raises_hdi() -> None:
    result = run_training(
        request(init="random", steps=30, lr=0.1, penalty=5.0, record_every=30), dtype="float64"
    ).model_dump(mode="json")
    assert result["hdi"][-1] > result["hdi"][0] + 0.05
    assert result["hdi"][-1] > 0.9


def test_learned_weights_stay_on_the_simplex() -> None:
    result = run_training(request(learn_weights=True, steps=6, lr=0.5), dtype="float64").model_dump(mode="json")
    assert sum(result["alpha"][-1]) == pytest.approx(1.0)
    assert result["alpha"][-1] != pytest.approx([1 / 3] * 3, abs=1e-6)


def test_partial_hears_each_record_and_cancel_stops() -> None:
    seen: list[list[int]] = []
    run_training(request(), dtype="float64", partial=lambda r: seen.append(list(r.steps)))
    assert seen == [[0], [0, 3], [0, 3, 6]]
    calls = iter(range(1000))
    with pytest.raises(JobCancelled):
        run_training(request(steps=50, record_every=50), should_cancel=lambda: next(calls) > 3)


def test_progress_counts_the_steps_and_records_as_the_work_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress is the fraction of the request's work done: its steps' and records' work units add up to
    the whole but for the run's fixed cost, so it climbs to the end without a jump to 1 (and a record's
    held-out chunks each report their share)."""
    import headdiv.workers.engine.training as training

    monkeypatch.setattr(training, "PROGRESS_EVERY_S", 0.0)
    req = request(steps=8, record_every=2, base={**TINY, "replicates": 40})
    monkeypatch.setattr(training, "EVAL_SCORES", req.base.H * req.base.queries * req.base.n * 10)  # 4 chunks
    seen: list[float] = []
    run_training(req, dtype="float64", progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert seen[-2] == pytest.approx(1.0 - PARTS["run"].weight / req.work, abs=1e-9)  # all but the fixed cost
    assert len(seen) > req.steps + 4 * req.records  # each step, and each chunk of each record


def test_orthonormal_bases_span_the_columns() -> None:
    w = torch.randn(2, 6, 3, dtype=torch.float64)
    q = orthonormal_bases(w)
    for i in range(2):
        np.testing.assert_allclose((q[i] @ q[i].T @ w[i]).numpy(), w[i].numpy(), atol=1e-10)
