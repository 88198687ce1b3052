"""Closed-form curves of docs/model.md section 7 (the paper's section 6) and their fits to simulations.

The objective c1 d_k^-2 + c2 d_k^(d_k/2 + 1) / (n D) overflows float64 for d_k near 256, so it is
evaluated in logs; a term too large to represent is +inf, which simply never wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog, nnls

from headdiv.schemas import TheoryQuery
from headdiv.schemas.results.report_results import TheoryReport
from headdiv.workers.engine.result_building import result_of

N_GRID = sorted({round(float(v)) for v in np.logspace(1, 9, 33)})
BUDGET_GRID = [2**k for k in range(0, 15)]
STATED_RATE_D = 1
"""Smoothness d in the paper's stated rate (log n)^(2/(4+d)); drawn only as a reference (docs/model.md section 8.4)."""


def divisors(budget: int) -> list[int]:
    return [d for d in range(1, budget + 1) if budget % d == 0]


def _variance_column(d_k: int, n: float, budget: int) -> float:
    log_v = (d_k / 2 + 1) * math.log(d_k) - math.log(n) - math.log(budget)
    return math.exp(log_v) if log_v < 700 else math.inf


def objective(d_k: int, n: float, budget: int, c1: float, c2: float) -> float:
    """The paper's MSE(d_k) under H d_k = D with orthogonal heads."""
    v = _variance_column(d_k, n, budget)
    var_term = 0.0 if c2 == 0 else c2 * v
    return c1 / d_k**2 + var_term


def best_split(n: float, budget: int, c1: float, c2: float) -> tuple[int, int, float]:
    """(H*, d_k*, MSE) minimising the objective over the divisors d_k of the budget."""
    values = [(objective(d, n, budget, c1, c2), d) for d in divisors(budget)]
    mse, d_k = min(values)
    return budget // d_k, d_k, mse


def _jsonable(x: float) -> float | None:
    return x if math.isfinite(x) else None


def architecture_theory(query: TheoryQuery) -> TheoryReport:
    """Objective at every split of the budget, its minimiser, and the d_k*(n), H*(D) curves."""
    n, budget, c1, c2 = query.n, query.budget, query.c1, query.c2
    candidates = [
        {"H": budget // d, "d_k": d, "mse": _jsonable(objective(d, n, budget, c1, c2))} for d in divisors(budget)
    ]
    h_best, d_best, _ = best_split(n, budget, c1, c2)
    ns = sorted(set(N_GRID) | {n})
    budgets = sorted(set(BUDGET_GRID) | {budget})
    return result_of(
        TheoryReport,
        {
            "n": n,
            "budget": budget,
            "c1": c1,
            "c2": c2,
            "candidates": candidates,
            "best": {"H": h_best, "d_k": d_best},
            "dk_star_vs_n": {
                "n": ns,
                "d_k": [best_split(v, budget, c1, c2)[1] for v in ns],
                "stated_rate": [math.log(v) ** (2 / (4 + STATED_RATE_D)) for v in ns],
                "stated_rate_d": STATED_RATE_D,
            },
            "h_star_vs_budget": {"budget": budgets, "H": [best_split(n, b, c1, c2)[0] for b in budgets]},
        },
    )


NEGLIGIBLE_SHARE = 0.01
"""A fitted term smaller than this share of the smallest simulated MSE does not shape the curve there."""


@dataclass(frozen=True)
class ArchitectureFit:
    """MSE(d_k) = c0 + c1 d_k^-2 + c2 d_k^(d_k/2+1)/(nD) fitted to simulated MSEs (docs/model.md section 7).

    c0 is the floor no split removes (the bias the projections leave, the noise); `degenerate` says why
    the fit cannot place an optimum (None when it can): with fewer splits than constants, or with the
    bias or the variance term vanishing, the fitted curve is monotone and its minimum is only an end of
    the range.
    """

    c0: float
    c1: float
    c2: float
    degenerate: str | None


def fit_architecture(d_ks: list[int], n: int, budget: int, mse: list[float]) -> ArchitectureFit:
    """c0, c1, c2 >= 0 fitting the objective plus a constant to simulated MSEs by non-negative least squares.

    Columns are scaled to unit norm first (the variance column spans hundreds of orders of magnitude);
    candidates whose variance column overflows are left out of the fit.
    """
    rows = [(d, m) for d, m in zip(d_ks, mse, strict=True) if math.isfinite(_variance_column(d, n, budget))]
    reason: str | None = None
    if len(rows) < 4:
        reason = f"{len(rows)} split(s) can be fitted, fewer than the 4 that three constants need"
        if not rows:
            return ArchitectureFit(0.0, 0.0, 0.0, reason)
    a = np.array([[1.0, d**-2.0, _variance_column(d, n, budget)] for d, _ in rows])
    b = np.array([m for _, m in rows])
    scale = np.linalg.norm(a, axis=0)
    scale[scale == 0] = 1.0
    coef, _ = nnls(a / scale, b)
    c0, c1, c2 = (float(c) for c in coef / scale)
    if len(rows) >= 4:
        # a term shapes the curve where it is at least NEGLIGIBLE_SHARE of the smallest MSE; one that does
        # at fewer than two splits is absent, or fitted to a single point (a spike, not a trade-off)
        floor = max(float(np.min(np.abs(b))), 1e-300)
        bias_at = int(np.sum(c1 * a[:, 1] >= NEGLIGIBLE_SHARE * floor))
        var_at = int(np.sum(c2 * a[:, 2] >= NEGLIGIBLE_SHARE * floor))
        where = {0: "at no split", 1: "at one split only"}
        if bias_at < 2 and var_at < 2:
            reason = (
                f"neither the bias term (c1, {where[bias_at]}) nor the variance term (c2, {where[var_at]}) shapes "
                "the fit: the fitted curve is the floor c0, flat across the splits, with no trade-off to optimise"
            )
        elif bias_at < 2:
            reason = f"the bias term (c1) shapes the fit {where[bias_at]}: no trade-off to optimise"
        elif var_at < 2:
            reason = f"the variance term (c2) shapes the fit {where[var_at]}: no trade-off to optimise"
        else:
            reason = None
    return ArchitectureFit(c0, c1, c2, reason)


def fit_diversity_bound(hdi: list[float], mse: list[float], heads: int) -> tuple[float, float, list[float]]:
    """Constants of the bound (4.4), MSE <= B^2 + V/H + K (H-1)/H (1 - HDI): the tightest such bound over
    the sweep, a line in x = (H-1)/H (1 - HDI) with c0, K >= 0 lying on or above every MSE.

    With H fixed along a theta sweep, B^2 + V/H is one constant c0; K multiplies the only term that
    moves with HDI. A least-squares fit would cut through the points, and so could never be a bound; this
    is the smallest line above them all (a linear programme: least area under it). Returns (c0, K, the
    bound at each point).
    """
    x = np.array([(heads - 1) / heads * (1 - h) for h in hdi])
    y = np.asarray(mse, dtype=np.float64)
    if not len(y):
        return 0.0, 0.0, []
    a = np.column_stack([np.ones_like(x), x])
    found = linprog(a.sum(axis=0), A_ub=-a, b_ub=-y, bounds=[(0, None), (0, None)], method="highs")
    c0, k = (float(v) for v in found.x) if found.success else (float(y.max()), 0.0)
    values = np.maximum(c0 + k * x, y)  # the solver's tolerance never leaves a point above its bound
    return c0, k, values.tolist()
