"""Long computations made of many simulations: surfaces, architectures, diversity sweeps.

Each runs its scenarios one by one, reports progress after each, and checks for cancellation
between them (a simulation itself is short, so that is often enough to feel immediate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from workers.engine.errors import JobCancelled
from workers.engine.simulate import simulate
from workers.engine.theory import architecture_theory, fit_architecture, fit_diversity_bound
from workers.schemas import ArchitectureRequest, DiversitySweepRequest, Scenario, SurfaceRequest, TheoryQuery

Progress = Callable[[float], None] | None
ShouldCancel = Callable[[], bool] | None

SURFACE_METRICS = ("mse", "bias2", "variance", "covariance", "mse_se", "hdi", "effective_heads")


def _each(
    scenarios: list[Scenario],
    progress: Progress,
    should_cancel: ShouldCancel,
    device: str | None,
    dtype: str | None,
) -> Iterator[dict[str, Any]]:
    total = len(scenarios)
    if progress:
        progress(0.0)
    for i, s in enumerate(scenarios):
        if should_cancel and should_cancel():
            raise JobCancelled(f"cancelled after {i} of {total} runs")
        yield simulate(s, device=device, dtype=dtype)
        if progress:
            progress((i + 1) / total)


def run_surface(
    request: SurfaceRequest,
    *,
    progress: Progress = None,
    should_cancel: ShouldCancel = None,
    device: str | None = None,
    dtype: str | None = None,
) -> dict[str, Any]:
    """Every metric on the grid: metrics[name][i][j] is at y.values[i], x.values[j]."""
    results = list(_each(request.scenarios(), progress, should_cancel, device, dtype))
    nx = len(request.x.values)
    metrics = {
        name: [[results[i * nx + j][name] for j in range(nx)] for i in range(len(request.y.values))]
        for name in SURFACE_METRICS
    }
    return {
        "x": request.x.model_dump(),
        "y": request.y.model_dump(),
        "metrics": metrics,
        "base": request.base.canonical(),
    }


def run_architecture(
    request: ArchitectureRequest,
    *,
    progress: Progress = None,
    should_cancel: ShouldCancel = None,
    device: str | None = None,
    dtype: str | None = None,
) -> dict[str, Any]:
    """Monte Carlo MSE of every split H x d_k = D, its minimiser, and the paper's curve fitted to it."""
    keys = ("mse", "bias2", "variance", "covariance", "mse_se")
    candidates = [
        {"H": r["scenario"]["H"], "d_k": r["scenario"]["d_k"], **{k: r[k] for k in keys}}
        for r in _each(request.scenarios(), progress, should_cancel, device, dtype)
    ]
    best = min(candidates, key=lambda c: c["mse"])
    n = request.base.n
    c1, c2 = fit_architecture([c["d_k"] for c in candidates], n, request.budget, [c["mse"] for c in candidates])
    curve = architecture_theory(TheoryQuery(n=n, budget=request.budget, c1=c1, c2=c2))
    simulated = {c["d_k"] for c in candidates}
    theory_candidates = [c for c in curve["candidates"] if c["d_k"] in simulated]
    finite = [c for c in theory_candidates if c["mse"] is not None]
    theory_best = min(finite, key=lambda c: c["mse"]) if finite else None
    return {
        "budget": request.budget,
        "candidates": candidates,
        "best": {"H": best["H"], "d_k": best["d_k"]},
        "theory": {
            "c1": c1,
            "c2": c2,
            "candidates": theory_candidates,
            "best": {"H": theory_best["H"], "d_k": theory_best["d_k"]} if theory_best else None,
        },
        "base": request.base.canonical(),
    }


def run_diversity_sweep(
    request: DiversitySweepRequest,
    *,
    progress: Progress = None,
    should_cancel: ShouldCancel = None,
    device: str | None = None,
    dtype: str | None = None,
) -> dict[str, Any]:
    """MSE against HDI over theta, with the bound (4.4) fitted, and whether MSE falls as HDI rises."""
    keys = ("hdi", "mse", "bias2", "variance", "covariance", "mse_se", "mean_correlation", "effective_heads")
    points = [
        {"theta": r["scenario"]["theta"], **{k: r[k] for k in keys}}
        for r in _each(request.scenarios(), progress, should_cancel, device, dtype)
    ]
    hdis = [float(p["hdi"]) for p in points]
    mses = [float(p["mse"]) for p in points]
    c0, k, values = fit_diversity_bound(hdis, mses, request.base.H)
    # Theorem 4.2 holds on this sweep if no point of higher HDI has an MSE above a point of lower
    # HDI by more than two standard errors of their difference (every pair, so a slow trend counts).
    se = [float(p["mse_se"]) for p in points]
    holds = all(
        mses[j] <= mses[i] + 2 * (se[i] ** 2 + se[j] ** 2) ** 0.5
        for i in range(len(points))
        for j in range(len(points))
        if hdis[j] > hdis[i]
    )
    return {
        "thetas": [p["theta"] for p in points],
        "points": points,
        "bound": {"c0": c0, "K": k, "values": values},
        "holds": holds,
        "base": request.base.canonical(),
    }
