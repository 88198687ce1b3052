"""One scenario in, every number of MODEL.md sections 4-6 out (the `simulate` result of issue 3)."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from workers.engine import decomposition as dec
from workers.engine import weights as wts
from workers.engine.device import resolve_device, resolve_dtype
from workers.engine.errors import EngineError
from workers.engine.geometry import build_geometry, hdi_of
from workers.engine.montecarlo import Draws, run_draws
from workers.schemas import Scenario


def _fixed_alphas(s: Scenario, m: dec.Moments) -> dict[str, np.ndarray]:
    head_mse = m.head_bias2 + m.head_variance
    return {
        "uniform": wts.uniform(s.H),
        "geometric": wts.geometric(head_mse, s.rho),
        "fibonacci": wts.fibonacci(head_mse),
        "optimal": wts.optimal(m),
    }


def _maw_terms(draws: Draws) -> dict[str, float]:
    """The gated ensemble's decomposition, treating each gated head g_h E_h as a member of weight 1.

    That keeps bias^2 + variance + covariance equal to the gated ensemble's MSE exactly, with the
    spread of the gates themselves inside the variance and covariance terms.
    """
    contrib = draws.gates * draws.estimates
    h = contrib.shape[1]
    # Each member carries truth / H, so the members' biases add up to the gated ensemble's bias.
    return dec.ensemble_terms(dec.moments(contrib, draws.truth / h), np.ones(h))


def _finite(value: Any, where: str) -> Any:
    """Fail loudly rather than hand NaN to a cache or a chart."""
    if isinstance(value, float) and not math.isfinite(value):
        raise EngineError(f"the simulation produced a non-finite {where}; try a larger bandwidth or temperature")
    if isinstance(value, dict):
        return {k: _finite(v, f"{where}.{k}" if where else k) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v, where) for v in value]
    return value


def simulate(
    scenario: Scenario | dict[str, Any], *, device: str | None = None, dtype: str | None = None
) -> dict[str, Any]:
    """Run the Monte Carlo of `scenario` and return the JSON-ready result (keys listed in issue 3)."""
    started = time.perf_counter()
    s = scenario if isinstance(scenario, Scenario) else Scenario.model_validate(scenario)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    geometry = build_geometry(s)
    draws = run_draws(s, geometry, dev, dt)
    m = dec.moments(draws.estimates, draws.truth)

    alphas = _fixed_alphas(s, m)
    weightings: dict[str, Any] = {name: {"alpha": a.tolist(), **dec.ensemble_terms(m, a)} for name, a in alphas.items()}
    maw = _maw_terms(draws)
    weightings["maw"] = {**maw, "mean_gate": draws.gates.mean(axis=(0, 2)).tolist()}
    rho_mse = [
        dec.ensemble_terms(m, wts.geometric(m.head_bias2 + m.head_variance, float(r)))["mse"] for r in wts.RHO_GRID
    ]
    weightings["best_rho"] = float(wts.RHO_GRID[int(np.argmin(rho_mse))])
    weightings["rho_curve"] = {"rho": wts.RHO_GRID.tolist(), "mse": rho_mse}

    if s.weights == "maw":
        alpha = draws.gates.mean(axis=(0, 2))
        terms = maw
        gated = np.sum(draws.gates * draws.estimates, axis=1)
        per_rep = np.mean((gated - draws.truth) ** 2, axis=1)
        mse_direct, mse_se = float(per_rep.mean()), float(per_rep.std(ddof=1) / math.sqrt(s.replicates))
        slice_ens = np.sum(draws.slice_gates * draws.slice_heads, axis=0)
    else:
        alpha = alphas[s.weights]
        terms = dec.ensemble_terms(m, alpha)
        mse_direct, mse_se = dec.direct_mse(draws.estimates, draws.truth, alpha)
        slice_ens = alpha @ draws.slice_heads

    corr, mean_corr = dec.correlation(m.cbar)
    heads = [
        {"mse": float(b + v), "bias2": float(b), "variance": float(v)}
        for b, v in zip(m.head_bias2, m.head_variance, strict=True)
    ]
    notes = []
    if s.H > 8:
        notes.append("principal angles are listed for the pairs among the first 8 heads; HDI uses all pairs")
    if s.geometry == "random" and s.H * s.d_k > s.p:
        notes.append(f"H*d_k = {s.H * s.d_k} > p = {s.p}: mutually orthogonal heads are impossible here")
    if s.weights == "maw":
        notes.append("MAW weights vary per draw: alpha is the mean gate, and the terms decompose the gated heads")

    result: dict[str, Any] = {
        "mse": terms["mse"],
        "bias2": terms["bias2"],
        "variance": terms["variance"],
        "covariance": terms["covariance"],
        "mse_direct": mse_direct,
        "mse_se": mse_se,
        "hdi": hdi_of(geometry),
        "effective_heads": dec.effective_heads(m, alpha),
        "mean_correlation": mean_corr,
        "alpha": alpha.tolist(),
        "heads": heads,
        "covariance_matrix": m.cbar.tolist(),
        "correlation_matrix": corr,
        "overlap_matrix": geometry.overlap_matrix().tolist(),
        "principal_angles_deg": geometry.principal_angles_deg(),
        "baselines": {
            "single_head": heads[0],
            "big_head": {**dec.single_estimator(draws.big, draws.truth), "dim": draws.big_dim},
        },
        "weightings": weightings,
        "slice": {
            "t": draws.slice_t.tolist(),
            "truth": draws.slice_truth.tolist(),
            "heads": draws.slice_heads.tolist(),
            "ensemble": slice_ens.tolist(),
        },
        "p": geometry.p,
        "scenario": s.canonical(),
        "device": str(dev),
        "dtype": str(dt).removeprefix("torch."),
        "notes": notes,
    }
    result = _finite(result, "")
    result["seconds"] = time.perf_counter() - started
    return result
