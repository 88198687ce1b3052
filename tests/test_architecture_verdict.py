"""The Architecture view's verdict on its fitted theory (docs/model.md section 7): it names a best split only
where the curve trades a falling bias term against a rising variance term, and otherwise says why not in words
from the numbers: which term is ~0 at the splits, and what that leaves of the curve. Each conclusion is fed a
case where it is false."""

from __future__ import annotations

import math
from typing import Any

import pytest

from headdiv.figures.sweep_charts import architecture_mse
from headdiv.figures.verdict_sentences import NEGLIGIBLE_SHARE, architecture_verdict, read_fit
from headdiv.schemas import Scenario
from headdiv.schemas.results.sweep_results import ArchitectureResult
from headdiv.workers.engine import theory as engine

N, BUDGET = 256, 32
D_KS = [1, 2, 4, 8, 16, 32]
PRESET_MSE = [0.3131, 0.2734, 0.4012, 0.4136, 0.6289, 0.9204]
"""The Monte Carlo MSEs of the "Many small heads or few big ones?" preset (D = 32, n = 256, 100 replicates)."""


def curve(c0: float, c1: float, c2: float, d_ks: list[int], n: int = N, budget: int = BUDGET) -> list[float | None]:
    """The objective at each split, as the engine draws it: nothing where d_k^(d_k/2+1) overflows."""
    out: list[float | None] = []
    for d in d_ks:
        log_v = (d / 2 + 1) * math.log(d) - math.log(n * budget)
        out.append(None if log_v >= 700 else c0 + c1 * d**-2.0 + c2 * math.exp(log_v))
    return out


def result(
    c: tuple[float, float, float],
    mse: list[float | None] | None = None,
    *,
    d_ks: list[int] = D_KS,
    budget: int = BUDGET,
    degenerate: str | None = None,
) -> ArchitectureResult:
    """A result shaped as the engine gives it: the fitted curve at each split, the Monte Carlo's best, and the
    engine's own theory best (its minimiser when the engine calls the fit non-degenerate)."""
    drawn = curve(*c, d_ks, budget=budget)
    measured = mse if mse is not None else [1.0 if v is None else v for v in drawn]
    done = [m for m in measured if m is not None]
    low = min(range(len(drawn)), key=lambda i: math.inf if drawn[i] is None else drawn[i])
    split = lambda i: {"H": budget // d_ks[i], "d_k": d_ks[i]}  # noqa: E731
    cands: list[dict[str, Any]] = [
        {**split(i), "mse": m, "mse_se": None if m is None else 0.002, "bias2": m, "variance": 0.0, "covariance": 0.0}
        for i, m in enumerate(measured)
    ]
    return ArchitectureResult.model_validate(
        {
            "budget": budget,
            "candidates": cands,
            "best": split(measured.index(min(done))) if done else None,
            "theory": {
                "c0": c[0],
                "c1": c[1],
                "c2": c[2],
                "degenerate": degenerate,
                "candidates": [{**split(i), "mse": v} for i, v in enumerate(drawn)],
                "best": None if degenerate else split(low),
            },
            "base": Scenario(n=N).model_dump(),
        }
    )


def rings(fig: Any) -> list[str]:
    return [t.name for t in fig.data if (t.name or "").startswith("theory's best")]


def test_the_preset_says_why_its_theory_names_no_best_split() -> None:
    """The fit the preset shows: c1 = 0 and c2 ~1e-22, a flat line but for the last split."""
    fit = engine.fit_architecture(D_KS, N, BUDGET, PRESET_MSE)
    assert fit.degenerate is not None and fit.c1 == 0 and fit.c2 < 1e-20
    r = result((fit.c0, fit.c1, fit.c2), list(PRESET_MSE), degenerate=fit.degenerate)
    text = architecture_verdict(r)
    assert text.startswith("The theory names no best split")
    assert "bias term c₁dₖ⁻² is ~0 at every split" in text
    assert "variance term c₂dₖ^(dₖ/2+1)/(nD) is ~0 at every split but 1×32" in text
    assert f"flat at c₀ = {fit.c0:.3f}" in text and "except at 1×32, which the variance term fits alone" in text
    assert "under 1% of the smallest Monte Carlo MSE, 0.273" in text  # the scale the ~0 is judged against
    assert "The Monte Carlo's best split is 16×2." in text
    assert rings(architecture_mse(r)) == []


def test_a_trade_off_names_its_best_split_and_rings_it() -> None:
    d_ks, budget = [1, 2, 4, 8], 8
    c = (0.2, 0.5, 0.1)  # the bias term falls across every split, the variance term rises at 2×4 and 1×8
    fit = engine.fit_architecture(d_ks, N, budget, [v or 0.0 for v in curve(*c, d_ks, budget=budget)])
    assert fit.degenerate is None  # the engine agrees: both terms shape the fit
    r = result((fit.c0, fit.c1, fit.c2), d_ks=d_ks, budget=budget)
    reading = read_fit(r)
    assert reading is not None and reading.names_best and reading.lowest == "2×4"
    text = architecture_verdict(r)
    assert text.startswith("The fitted theory names a best split, 2×4") and "no best split" not in text
    assert rings(architecture_mse(r)) == ["theory's best: 2×4"]


@pytest.mark.parametrize(
    ("c", "says", "lowest"),
    [
        ((0.2, 0.0, 0.01), "the curve only rises with dₖ", "32×1"),  # no bias term: smaller heads never lose
        ((0.2, 0.5, 0.0), "the curve only falls with dₖ", "1×32"),  # no variance term: bigger heads never lose
        ((0.2, 0.01, 40.0), "one term outweighs the other at every split", "32×1"),  # both, no trade-off
    ],
)
def test_a_curve_lowest_at_an_end_names_no_best_split_and_says_why(
    c: tuple[float, float, float], says: str, lowest: str
) -> None:
    r = result(c)
    reading = read_fit(r)
    assert reading is not None and not reading.names_best and reading.lowest == lowest
    text = architecture_verdict(r)
    assert text.startswith("The theory names no best split") and says in text
    assert f"lowest point, {lowest}, is an end of the range" in text
    assert "names a best split" not in text
    # the engine's minimiser is that end: the chart rings no optimum the verdict denies
    assert r.theory.best is not None and rings(architecture_mse(r)) == []


def test_a_term_that_never_reaches_one_percent_of_the_mse_is_called_zero() -> None:
    """The threshold is the engine's own, so the verdict and the engine's `degenerate` judge alike."""
    assert NEGLIGIBLE_SHARE == engine.NEGLIGIBLE_SHARE
    flat = read_fit(result((0.3, 0.002, 0.0)))  # c1 at 32×1 is 0.002 < 1% of 0.3 (0.003): ~0 everywhere
    assert flat is not None and flat.bias_at == [] and flat.variance_at == []
    assert "flat at c₀ = 0.3" in architecture_verdict(result((0.3, 0.002, 0.0)))
    present = read_fit(result((0.3, 0.02, 0.0)))  # ten times more: it shapes 32×1 and 16×2
    assert present is not None and present.bias_at == ["32×1", "16×2"]


def test_too_few_splits_to_fit_three_constants() -> None:
    r = result((0.2, 0.5, 0.01), d_ks=[1, 2], budget=2, degenerate="2 split(s) can be fitted, fewer than the 4")
    text = architecture_verdict(r)
    assert "2 splits are too few to fit its three constants" in text and "names a best" not in text


def test_nothing_is_said_before_every_split_is_measured() -> None:
    partial = result((0.2, 0.5, 0.01), [0.7, 0.3, None, None, None, None])
    assert read_fit(partial) is None and architecture_verdict(partial) == ""


def test_a_curve_that_overflows_at_the_big_heads_is_read_all_the_same() -> None:
    d_ks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    r = result((0.2, 0.5, 0.01), d_ks=d_ks, budget=512)
    assert r.theory.candidates[-1].mse is None  # the engine draws no point where d_k^(d_k/2+1) overflows
    reading = read_fit(r)
    assert reading is not None and "1×512" in reading.variance_at and reading.names_best
    assert architecture_verdict(r).startswith(f"The fitted theory names a best split, {reading.lowest}")
