"""The sentences the page states as conclusions, each computed from the numbers its chart draws, with their
Monte Carlo error (the tests behind them are `headdiv.schemas.verdicts`). Shared by the dashboard's views,
the Python API's summaries and the offline exports; pure functions of a result, no Dash."""

from __future__ import annotations

import math

from headdiv.figures.theme import fmt, fmt_se
from headdiv.schemas.results.labs import CovarianceResult, TrainingResult
from headdiv.schemas.results.sweeps import DiversitySweepResult
from headdiv.schemas.verdicts import SIGNIFICANT_Z, worst_rise

HDI_MOVES = 0.01
"""A change of a training run's HDI smaller than this is called no change (HDI is exact: no Monte Carlo
error)."""


def diversity_verdict(result: DiversitySweepResult) -> str:
    """What the sweep says of Theorem 4.2, tested here on the numbers the chart draws (each angle's MSE with
    its standard error, and the bound drawn beside it): does the MSE ever rise with HDI by more than two
    standard errors, and where most; the tightest bound of the theorem's form, with its constants."""
    points = result.points
    done = [p for p in points if p.mse is not None and p.hdi is not None]
    if len(done) < len(points) or not points:  # a partial result: the verdict waits for every angle
        return f"Sweeping: {len(done)} of {len(points)} angles done."
    hdi = [p.hdi for p in done if p.hdi is not None]
    mse = [p.mse for p in done if p.mse is not None]
    se = [p.mse_se or 0.0 for p in done]
    c0, k = result.bound.c0, result.bound.K
    form = "c₀ + K (H−1)/H (1 − HDI)"
    consts = f" with c₀ = {fmt(c0)}, K = {fmt(k)}" if c0 is not None and k is not None else ""
    rise = worst_rise(hdi, mse, se)
    if rise is None:
        return (
            f"Holds: across the {len(done)} angles the MSE never rises with HDI by more than "
            f"{SIGNIFICANT_Z:g} standard errors, and the bound {form}{consts} lies on or above the MSE at every "
            "angle: more diversity, lower MSE, as Theorem 4.2 says."
        )
    lo, hi = done[rise.lower], done[rise.higher]
    flat = " The tightest bound of the theorem's form is then flat (K = 0): diversity buys nothing." if k == 0 else ""
    return (
        f"Fails: at θ = {fmt(hi.theta)}° (HDI {fmt(hi.hdi)}) the MSE, {fmt_se(hi.mse, hi.mse_se)}, "
        f"is above its value at θ = {fmt(lo.theta)}° (HDI {fmt(lo.hdi)}), "
        f"{fmt_se(lo.mse, lo.mse_se)}, by {fmt(rise.z)} standard errors: more diversity, higher MSE."
        f"{flat} Here diversity costs bias that the theorem assumes away (docs/model.md §8.2)."
    )


def covariance_verdict(result: CovarianceResult) -> str:
    """What the largest angle shows: the lemma's bound, the measured covariance, and the shared noise."""
    mean = result.mean_pair
    if not result.thetas or not mean.measured:
        return ""
    theta = result.thetas[-1]
    measured, se = mean.measured[-1], mean.measured_se[-1]
    shared, bound = mean.shared_noise[-1], mean.bound[-1]
    text = (
        f"At θ = {fmt(theta)}° the heads' mean covariance is {fmt_se(measured, se)}; the shared noise "
        f"σ²E[Σ w w′] alone is {fmt(shared)} (σ²/n = {fmt(result.sigma2_over_n)}); Lemma 4.1 bounds it by "
        f"{fmt(bound)}."
    )
    if theta == 90 and measured > bound + 2 * se:
        text += " The bound says orthogonal heads do not covary; they do, through the noise they share."
    if not result.complete:
        text += " (partial: the remaining angles are still running)"
    return text


def training_verdict(result: TrainingResult) -> str:
    """One sentence on what the run shows, tested on the numbers its charts draw: did HDI rise, fall or stay
    (by more than 0.01), did the held-out MSE move by more than two standard errors of the change, and what
    moved the heads: gradient descent alone (λ = 0) or with the diversity penalty pushing them apart."""
    hdi, mse, se, steps = result.hdi, result.mse, result.mse_se, result.steps
    if len(steps) < 2 or hdi[0] is None or hdi[-1] is None:
        return "Not enough recorded steps to say what this run answers yet."
    dh, dm = hdi[-1] - hdi[0], mse[-1] - mse[0]
    moved = "rose" if dh > HDI_MOVES else "fell" if dh < -HDI_MOVES else "stayed put"
    spread = math.hypot(se[0], se[-1])
    if abs(dm) > SIGNIFICANT_Z * spread:
        follow = ("and the held-out MSE fell" if dm < 0 else "yet the held-out MSE rose") + (
            f" from {fmt_se(mse[0], se[0])} to {fmt_se(mse[-1], se[-1])}"
        )
    else:
        follow = f"and the held-out MSE stayed within its Monte Carlo error ({fmt_se(mse[0], se[0])} to {fmt_se(mse[-1], se[-1])})"
    why = "."
    if dh > HDI_MOVES:
        penalty = result.penalty_weight
        why = (
            " — gradient descent alone made the heads more diverse."
            if penalty == 0
            else f" — with the diversity penalty λ = {fmt(penalty)} pushing the heads apart."
        )
    return f"Over {steps[-1]} steps the HDI {moved} from {fmt(hdi[0])} to {fmt(hdi[-1])}, {follow}{why}"
