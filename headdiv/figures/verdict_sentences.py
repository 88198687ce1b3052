"""The sentences the page states as conclusions, each computed from the numbers its chart draws, with their
Monte Carlo error (the tests behind them are `headdiv.schemas.verdicts`). Shared by the dashboard's views,
the Python API's summaries and the offline exports; pure functions of a result, no Dash."""

from __future__ import annotations

import math
from dataclasses import dataclass

from headdiv.figures.theme import fmt, fmt_se
from headdiv.i18n import N_, _
from headdiv.schemas.results.lab_results import CovarianceResult, TrainingResult
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult
from headdiv.schemas.verdicts import SIGNIFICANT_Z, worst_rise

HDI_MOVES = 0.01
"""A change of a training run's HDI smaller than this is called no change (HDI is exact: no Monte Carlo
error)."""
NEGLIGIBLE_SHARE = 0.01
"""A term of the fitted theory under this share of the smallest Monte Carlo MSE is called ~0 at a split: the
engine's own threshold for a degenerate fit (`workers.engine.theory.NEGLIGIBLE_SHARE`, a test keeps them equal)."""
BIAS_TERM = N_("bias term c₁dₖ⁻²")
VARIANCE_TERM = N_("variance term c₂dₖ^(dₖ/2+1)/(nD)")


def diversity_verdict(result: DiversitySweepResult) -> str:
    """What the sweep says of Theorem 4.2, tested here on the numbers the chart draws (each angle's MSE with
    its standard error, and the bound drawn beside it): does the MSE ever rise with HDI by more than two
    standard errors, and where most; the tightest bound of the theorem's form, with its constants."""
    points = result.points
    done = [p for p in points if p.mse is not None and p.hdi is not None]
    if len(done) < len(points) or not points:  # a partial result: the verdict waits for every angle
        return _("Sweeping: {done} of {total} angles done.").format(done=len(done), total=len(points))
    hdi = [p.hdi for p in done if p.hdi is not None]
    mse = [p.mse for p in done if p.mse is not None]
    se = [p.mse_se or 0.0 for p in done]
    c0, k = result.bound.c0, result.bound.K
    form = "c₀ + K (H−1)/H (1 − HDI)"
    consts = _(" with c₀ = {c0}, K = {k}").format(c0=fmt(c0), k=fmt(k)) if c0 is not None and k is not None else ""
    rise = worst_rise(hdi, mse, se)
    if rise is None:
        return _(
            "Holds: across the {angles} angles the MSE never rises with HDI by more than "
            "{z} standard errors, and the bound {form}{consts} lies on or above the MSE at every "
            "angle: more diversity, lower MSE, as Theorem 4.2 says."
        ).format(angles=len(done), z=f"{SIGNIFICANT_Z:g}", form=form, consts=consts)
    lo, hi = done[rise.lower], done[rise.higher]
    flat = (
        _(" The tightest bound of the theorem's form is then flat (K = 0): diversity buys nothing.") if k == 0 else ""
    )
    return _(
        "Fails: at θ = {theta_high}° (HDI {hdi_high}) the MSE, {mse_high}, "
        "is above its value at θ = {theta_low}° (HDI {hdi_low}), "
        "{mse_low}, by {z} standard errors: more diversity, higher MSE."
        "{flat} Here diversity costs bias that the theorem assumes away (docs/model.md §8.2)."
    ).format(
        theta_high=fmt(hi.theta),
        hdi_high=fmt(hi.hdi),
        mse_high=fmt_se(hi.mse, hi.mse_se),
        theta_low=fmt(lo.theta),
        hdi_low=fmt(lo.hdi),
        mse_low=fmt_se(lo.mse, lo.mse_se),
        z=fmt(rise.z),
        flat=flat,
    )


def covariance_verdict(result: CovarianceResult) -> str:
    """What the largest angle shows: the lemma's bound, the measured covariance, and the shared noise."""
    mean = result.mean_pair
    if not result.thetas or not mean.measured:
        return ""
    theta = result.thetas[-1]
    measured, se = mean.measured[-1], mean.measured_se[-1]
    shared, bound = mean.shared_noise[-1], mean.bound[-1]
    text = _(
        "At θ = {theta}° the heads' mean covariance is {measured}; the shared noise "
        "σ²E[Σ w w′] alone is {shared} (σ²/n = {level}); Lemma 4.1 bounds it by "
        "{bound}."
    ).format(
        theta=fmt(theta),
        measured=fmt_se(measured, se),
        shared=fmt(shared),
        level=fmt(result.sigma2_over_n),
        bound=fmt(bound),
    )
    if theta == 90 and measured > bound + 2 * se:
        text += _(" The bound says orthogonal heads do not covary; they do, through the noise they share.")
    if not result.complete:
        text += _(" (partial: the remaining angles are still running)")
    return text


def training_verdict(result: TrainingResult) -> str:
    """One sentence on what the run shows, tested on the numbers its charts draw: did HDI rise, fall or stay
    (by more than 0.01), did the held-out MSE move by more than two standard errors of the change, and what
    moved the heads: gradient descent alone (λ = 0) or with the diversity penalty pushing them apart."""
    hdi, mse, se, steps = result.hdi, result.mse, result.mse_se, result.steps
    if len(steps) < 2 or hdi[0] is None or hdi[-1] is None:
        return _("Not enough recorded steps to say what this run answers yet.")
    dh, dm = hdi[-1] - hdi[0], mse[-1] - mse[0]
    moved = (
        _("Over {steps} steps the HDI rose from {start} to {end}, {follow}{why}")
        if dh > HDI_MOVES
        else _("Over {steps} steps the HDI fell from {start} to {end}, {follow}{why}")
        if dh < -HDI_MOVES
        else _("Over {steps} steps the HDI stayed put from {start} to {end}, {follow}{why}")
    )
    spread = math.hypot(se[0], se[-1])
    first, last = fmt_se(mse[0], se[0]), fmt_se(mse[-1], se[-1])
    if abs(dm) > SIGNIFICANT_Z * spread:
        follow = (
            _("and the held-out MSE fell from {first} to {last}")
            if dm < 0
            else _("yet the held-out MSE rose from {first} to {last}")
        ).format(first=first, last=last)
    else:
        follow = _("and the held-out MSE stayed within its Monte Carlo error ({first} to {last})").format(
            first=first, last=last
        )
    why = "."
    if dh > HDI_MOVES:
        penalty = result.penalty_weight
        why = (
            _(" — gradient descent alone made the heads more diverse.")
            if penalty == 0
            else _(" — with the diversity penalty λ = {penalty} pushing the heads apart.").format(penalty=fmt(penalty))
        )
    return moved.format(steps=steps[-1], start=fmt(hdi[0]), end=fmt(hdi[-1]), follow=follow, why=why)


@dataclass(frozen=True)
class FitReading:
    """What the fitted theory curve of an architecture result does across its splits (docs/model.md section 7),
    read from the numbers the chart draws: where each fitted term is more than ~0, and where the curve is lowest."""

    labels: list[str]
    bias_at: list[str]
    """The splits where the bias term c1 d_k^-2 is not ~0."""
    variance_at: list[str]
    """The splits where the variance term c2 d_k^(d_k/2+1)/(nD) is not ~0."""
    tolerance: float
    lowest: str
    """The split where the theory curve is lowest (the first of a tie)."""
    interior: bool
    """Whether the curve's lowest point lies between the ends of the range, below both ends by more than ~0."""

    @property
    def fittable(self) -> bool:
        """Three constants need four splits or more to be fitted rather than interpolated."""
        return len(self.labels) >= 4

    @property
    def names_best(self) -> bool:
        """A best split is a trade-off: both terms shape the curve, and its minimum is not an end of the range."""
        return self.fittable and len(self.bias_at) >= 2 and len(self.variance_at) >= 2 and self.interior


def _variance_term(c2: float, d_k: int, n: int, budget: int) -> float:
    if c2 <= 0:
        return 0.0
    log = math.log(c2) + (d_k / 2 + 1) * math.log(d_k) - math.log(n * budget)
    return math.exp(min(log, 700.0))  # beyond e^700 it is "not ~0" all the same


def read_fit(result: ArchitectureResult) -> FitReading | None:
    """The reading of a finished result's fitted theory (None while a split or the curve is missing). Where the
    curve is not drawn, its variance term overflows (d_k^(d_k/2+1) past 1e300): there it is infinite."""
    cands, theory = result.candidates, result.theory
    drawn = {(t.H, t.d_k): t.mse for t in theory.candidates}
    mses = [c.mse for c in cands]
    if not cands or any(m is None for m in mses) or any((c.H, c.d_k) not in drawn for c in cands):
        return None
    values = [math.inf if v is None or not math.isfinite(v) else float(v) for v in (drawn[c.H, c.d_k] for c in cands)]
    if not any(math.isfinite(v) for v in values):
        return None
    n, budget = result.base.n, result.budget
    labels = [f"{c.H}×{c.d_k}" for c in cands]
    tolerance = NEGLIGIBLE_SHARE * max(min(abs(m) for m in mses if m is not None), 1e-300)
    bias = [theory.c1 * c.d_k**-2.0 for c in cands]
    variance = [_variance_term(theory.c2, c.d_k, n, budget) for c in cands]
    low = min(range(len(values)), key=values.__getitem__)
    interior = 0 < low < len(values) - 1 and values[low] < min(values[0], values[-1]) - tolerance
    return FitReading(
        labels=labels,
        bias_at=[lab for lab, b in zip(labels, bias, strict=True) if b >= tolerance],
        variance_at=[lab for lab, v in zip(labels, variance, strict=True) if v >= tolerance],
        tolerance=tolerance,
        lowest=labels[low],
        interior=interior,
    )


def _reach(term: str, at: list[str], across: str) -> str:
    """Where a fitted term is more than ~0: nowhere, at one split only, or across the splits (`across`, a
    sentence marked `N_` with the field `{term}`)."""
    said = _(term)
    if not at:
        return _("its {term} is ~0 at every split").format(term=said)
    if len(at) == 1:
        return _("its {term} is ~0 at every split but {split}").format(term=said, split=at[0])
    return _(across).format(term=said)


def architecture_verdict(result: ArchitectureResult) -> str:
    """Whether the fitted theory names a best split, and when it does not, why, in words: which term of
    c0 + c1 d_k^-2 + c2 d_k^(d_k/2+1)/(nD) is ~0 (under 1% of the smallest Monte Carlo MSE) at the splits, and
    what that leaves of the curve (flat, only rising, only falling, or lowest at an end). Empty until every
    split is measured."""
    r = read_fit(result)
    if r is None:
        return ""
    t = result.theory
    consts = f"c₁ = {fmt(t.c1)}, c₂ = {fmt(t.c2)}"
    mc = (
        _(" The Monte Carlo's best split is {split}.").format(split=f"{result.best.H}×{result.best.d_k}")
        if result.best
        else ""
    )
    if r.names_best:
        return _(
            "The fitted theory names a best split, {split}: its curve is lowest there, between the ends of the "
            "range, where the falling {bias_term} meets the rising {variance_term} ({consts}).{mc}"
        ).format(split=r.lowest, bias_term=_(BIAS_TERM), variance_term=_(VARIANCE_TERM), consts=consts, mc=mc)
    if not r.fittable:
        return _(
            "The theory names no best split: {count} splits are too few to fit its three constants "
            "c₀, c₁, c₂ (four are needed); the curve passes through the points.{mc}"
        ).format(count=len(r.labels), mc=mc)
    bias = _reach(BIAS_TERM, r.bias_at, N_("its {term} falls across the splits"))
    variance = _reach(VARIANCE_TERM, r.variance_at, N_("its {term} rises across the splits"))
    alone = [
        _(fits).format(split=at[0])
        for fits, at in (
            (N_("{split}, which the bias term fits alone"), r.bias_at),
            (N_("{split}, which the variance term fits alone"), r.variance_at),
        )
        if len(at) == 1
    ]
    spikes = _(" except at {splits}").format(splits=_(" and at ").join(alone)) if alone else ""
    if len(r.bias_at) < 2 and len(r.variance_at) < 2:
        shape = _(
            "the theory curve is flat at c₀ = {c0}{spikes}: no trade-off between the terms places a minimum"
        ).format(c0=fmt(t.c0), spikes=spikes)
    elif len(r.bias_at) < 2:
        shape = _("the curve only rises with dₖ{spikes}: its lowest point, {lowest}, is an end of the range").format(
            spikes=spikes, lowest=r.lowest
        )
    elif len(r.variance_at) < 2:
        shape = _("the curve only falls with dₖ{spikes}: its lowest point, {lowest}, is an end of the range").format(
            spikes=spikes, lowest=r.lowest
        )
    else:
        shape = _(
            "one term outweighs the other at every split: the curve's lowest point, {lowest}, is an end of the "
            "range, not a trade-off between them"
        ).format(lowest=r.lowest)
    return _(
        "The theory names no best split: at n = {n} {bias} and {variance} ({consts}; ~0 meaning under "
        "{share} of the smallest Monte Carlo MSE, {smallest}), so {shape}.{mc}"
    ).format(
        n=result.base.n,
        bias=bias,
        variance=variance,
        consts=consts,
        share=f"{NEGLIGIBLE_SHARE:.0%}",
        smallest=fmt(r.tolerance / NEGLIGIBLE_SHARE),
        shape=shape,
        mc=mc,
    )
