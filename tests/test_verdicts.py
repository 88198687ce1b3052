"""Every conclusion the page states is tested on the numbers its chart draws, with their Monte Carlo error;
each test here feeds it a case where the conclusion is false as well as one where it is true."""

from __future__ import annotations

import random

import pytest

from headdiv.figures.verdict_sentences import diversity_verdict, training_verdict
from headdiv.schemas import DiversitySweepRequest, Scenario
from headdiv.schemas.results.lab_results import CovarianceMatrices, CovarianceResult, TrainingResult
from headdiv.schemas.results.sweep_results import DiversityBound, DiversityPoint, DiversitySweepResult
from headdiv.schemas.verdicts import worst_rise
from headdiv.workers.engine.theory import fit_diversity_bound
from headdiv.workers.runner import run_job


def sweep(mse: list[float], se: float = 0.01, bound: tuple[float, float] = (0.1, 0.5)) -> DiversitySweepResult:
    """The numbers the verdict reads (and its chart draws), nothing else."""
    thetas = [90.0 * k / (len(mse) - 1) for k in range(len(mse))]
    points = [DiversityPoint(theta=t, hdi=t / 90, mse=m, mse_se=se) for t, m in zip(thetas, mse, strict=True)]
    return DiversitySweepResult.model_construct(points=points, bound=DiversityBound(c0=bound[0], K=bound[1], values=[]))


def test_the_bound_drawn_is_a_bound_it_never_dips_below_a_measured_mse() -> None:
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(2, 12)
        hdi = sorted(rng.random() for _ in range(n))
        mse = [rng.uniform(0.01, 1.0) for _ in range(n)]
        c0, k, values = fit_diversity_bound(hdi, mse, heads=rng.randint(2, 16))
        assert c0 >= 0 and k >= 0 and all(v >= m for v, m in zip(values, mse, strict=True))
    # exactly of the bound's form: the bound is the line itself
    c0, k, values = fit_diversity_bound([0.0, 0.5, 1.0], [0.5, 0.3, 0.1], heads=2)
    assert (c0, k) == pytest.approx((0.1, 0.8)) and values == pytest.approx([0.5, 0.3, 0.1])


def test_diversity_holds_only_when_no_angle_of_more_diversity_has_a_higher_mse() -> None:
    assert worst_rise([0, 0.5, 1], [0.5, 0.4, 0.3], [0.01] * 3) is None
    assert worst_rise([0, 0.5, 1], [0.5, 0.51, 0.3], [0.01] * 3) is None  # a rise within its error
    rise = worst_rise([0, 0.5, 1], [0.3, 0.4, 0.5], [0.01] * 3)
    assert rise is not None and (rise.lower, rise.higher) == (0, 2) and rise.z == pytest.approx(0.2 / 0.01414, rel=1e-3)

    holds = diversity_verdict(sweep([0.5, 0.4, 0.3]))
    assert holds.startswith("Holds") and "never rises with HDI by more than 2 standard errors" in holds
    fails = diversity_verdict(sweep([0.3, 0.4, 0.5], bound=(0.5, 0.0)))
    assert fails.startswith("Fails") and "θ = 90°" in fails and "θ = 0°" in fails and "flat (K = 0)" in fails
    assert diversity_verdict(sweep([0.3, 0.4, 0.5], se=0.2)).startswith("Holds")  # the rise is within the noise


def test_a_noise_only_sweep_holds_with_its_bound_above_every_angle() -> None:
    """The issue's case: H = 8 and a constant target, where a least-squares 'bound' fell below the MSE."""
    base = Scenario(H=8, replicates=60, queries=16, n=64, target="constant")
    out = run_job("diversity_sweep", DiversitySweepRequest(base=base, thetas=[0, 30, 60, 90]))
    assert isinstance(out, DiversitySweepResult)
    mse = [p.mse for p in out.points]
    assert all(b >= m for b, m in zip(out.bound.values, mse, strict=True))  # type: ignore[operator]
    assert out.holds is True and out.rise is None
    assert diversity_verdict(out).startswith("Holds")


def training(hdi: list[float], mse: list[float], *, penalty: float, se: float = 0.001) -> TrainingResult:
    """The numbers the verdict reads (and its chart draws), nothing else."""
    return TrainingResult.model_construct(
        steps=list(range(0, 10 * len(hdi), 10)), hdi=hdi, mse=mse, mse_se=[se] * len(mse), penalty_weight=penalty
    )


def test_training_credits_gradient_descent_alone_only_without_a_penalty() -> None:
    alone = training_verdict(training([0.2, 0.5], [0.30, 0.25], penalty=0.0))
    assert "gradient descent alone made the heads more diverse" in alone and "the held-out MSE fell" in alone
    pushed = training_verdict(training([0.2, 0.5], [0.30, 0.25], penalty=1.0))
    assert "gradient descent alone" not in pushed and "penalty λ = 1" in pushed
    still = training_verdict(training([0.0, 0.0], [0.30, 0.30], penalty=0.0))
    assert "stayed put" in still and "gradient descent alone" not in still
    noisy = training_verdict(training([0.2, 0.5], [0.30, 0.299], penalty=0.0, se=0.01))
    assert "within its Monte Carlo error" in noisy and "fell" not in noisy


def test_a_degenerate_architecture_fit_names_every_term_that_vanishes() -> None:
    from headdiv.workers.engine.theory import fit_architecture

    d_ks, n, budget = [1, 2, 4, 8, 16], 500, 16
    flat = fit_architecture(d_ks, n, budget, [0.3] * 5)  # the floor alone: neither term moves the MSE
    assert flat.degenerate is not None and flat.degenerate.startswith("neither the bias term (c1, at no split)")
    bias_only = fit_architecture(d_ks, n, budget, [0.4 + 0.3 / d**2 for d in d_ks])
    assert bias_only.degenerate is not None and bias_only.degenerate.startswith("the variance term (c2)")


def test_the_covariance_heatmap_is_scaled_by_the_pairs_not_the_variances() -> None:
    from headdiv.figures.covariance_charts import pair_heatmap

    measured = [[0.1, 0.003, -0.002], [0.003, 0.12, 0.001], [-0.002, 0.001, 0.09]]
    lab = CovarianceResult.model_construct(
        matrices=[CovarianceMatrices.model_construct(measured=measured)], thetas=[45]
    )
    trace = pair_heatmap(lab).data[0]
    assert trace.zmax == pytest.approx(0.003) and trace.zmin == pytest.approx(-0.003)
    assert [trace.z[h][h] for h in range(3)] == [None, None, None] and trace.text[0][0] == "variance 0.1"
