"""One scenario in, every number of docs/model.md sections 4-6 out: the result of a simulation."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from headdiv.workers.engine import decomposition as dec
from headdiv.workers.engine.device import out_of_memory_as_error, resolve_device, resolve_dtype
from headdiv.workers.engine.geometry import HeadLayout, build_geometry, hdi_of
from headdiv.workers.engine.montecarlo import Draws, run_draws
from headdiv.workers.engine.results import result_of
from headdiv.workers.errors import JobCancelled
from headdiv.workers.schemas import Scenario
from headdiv.workers.schemas.results.simulation import SimulationResult
from headdiv.workers.schemas.weightings import WEIGHTINGS
from headdiv.workers.settings import get_engine_settings


def _gated_terms(draws: Draws, scheme: str) -> dict[str, float]:
    """A gated ensemble's decomposition, treating each gated head g_h E_h as a member of weight 1.

    That keeps bias^2 + variance + covariance equal to the gated ensemble's MSE exactly, with the
    spread of the gates themselves inside the variance and covariance terms.
    """
    contrib = draws.gates[scheme] * draws.estimates
    h = contrib.shape[1]
    # Each member carries truth / H, so the members' biases add up to the gated ensemble's bias.
    return dec.moments(contrib, draws.truth / h).terms(np.ones(h))


def _gated_mse(draws: Draws, scheme: str) -> tuple[float, float]:
    """A gated ensemble's direct MSE and its standard error, from the gated sum of the heads."""
    per_rep = dec.per_replicate_mse(np.sum(draws.gates[scheme] * draws.estimates, axis=1), draws.truth)
    return float(per_rep.mean()), dec.replicate_se(per_rep)


Direct = dict[str, tuple[float, float]]
"""Per scheme: its MSE computed directly from the combined draws, and that MSE's standard error."""


def _weightings(s: Scenario, m: dec.Moments, draws: Draws) -> tuple[dict[str, Any], dict[str, np.ndarray], Direct]:
    """Every registered scheme's weights, decomposition, MSE standard error on these draws (so its MSE
    is shown to the precision the draws support) and parameter scan, the fixed schemes' alphas, and every
    scheme's direct MSE (the chosen scheme's is the result's own, computed once here)."""
    out: dict[str, Any] = {}
    alphas: dict[str, np.ndarray] = {}
    direct: Direct = {}
    for w in WEIGHTINGS:
        scheme = w.of(s)
        if w.per_draw:
            direct[w.name] = _gated_mse(draws, w.name)
            out[w.name] = {
                **_gated_terms(draws, w.name),
                "mse_se": direct[w.name][1],
                "mean_gate": draws.gates[w.name].mean(axis=(0, 2)).tolist(),
            }
        else:
            alphas[w.name] = alpha = scheme.alpha(m)
            direct[w.name] = dec.direct_mse(draws.estimates, draws.truth, alpha)
            out[w.name] = {"alpha": alpha.tolist(), **m.terms(alpha), "mse_se": direct[w.name][1]}
        out[w.name]["scan"] = scheme.scan(m)
    return out, alphas, direct


def simulate(
    scenario: Scenario | dict[str, Any], *, device: str | None = None, dtype: str | None = None
) -> SimulationResult:
    """Run the Monte Carlo of `scenario` and return its result."""
    s = scenario if isinstance(scenario, Scenario) else Scenario.model_validate(scenario)
    return next(simulate_many([s], device=device, dtype=dtype))[1]


POST_ONLY: frozenset[str] = frozenset(
    {"weights"} | {name for w in WEIGHTINGS if not w.per_draw for name in w.model_fields}
)
"""Scenario fields that change only how fixed weights combine the draws, never the draws themselves."""


def draw_key(s: Scenario) -> str:
    """Scenarios with equal keys have identical draws: simulate them once."""
    return repr(sorted((k, v) for k, v in s.canonical().items() if k not in POST_ONLY))


def plan_batches(scenarios: list[Scenario], first_work: float, work: float, estimates: int) -> list[list[int]]:
    """Indices of `scenarios` in batches of equal `nw_shape()`, in order of first appearance.

    A batch stays within `work` work units (the first one within `first_work`, so a first result comes
    soon) and `estimates` kept estimates; a single scenario always makes a batch of its own if larger.
    """
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, s in enumerate(scenarios):
        groups.setdefault(s.nw_shape(), []).append(i)
    batches: list[list[int]] = []
    for members in groups.values():
        current: list[int] = []
        used_work, used_estimates = 0.0, 0
        for i in members:
            s = scenarios[i]
            cap = first_work if not batches else work
            kept = s.replicates * s.H * s.queries
            if current and (used_work + s.work > cap or used_estimates + kept > estimates):
                batches.append(current)
                current, used_work, used_estimates = [], 0.0, 0
            current.append(i)
            used_work += s.work
            used_estimates += kept
        batches.append(current)
    return batches


def simulate_many(
    scenarios: list[Scenario],
    *,
    device: str | None = None,
    dtype: str | None = None,
    should_cancel: Callable[[], bool] | None = None,
    progress: Callable[[float], None] | None = None,
) -> Iterator[tuple[int, SimulationResult]]:
    """Simulate every scenario, batching those that share the NW step's shapes; yields (index, result) as
    each batch finishes. `progress` receives the fraction of the total work done (inside batches too)."""
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    settings = get_engine_settings()
    total = sum(s.work for s in scenarios) or 1.0
    done = 0.0
    later = settings.cuda_batch_work if dev.type == "cuda" else settings.batch_work

    def check() -> None:
        """Between cells too, not only between NW blocks: building a batch's heads and decomposing its cells
        take a second on a big surface, time in which a background run must yield to a person's job."""
        if should_cancel and should_cancel():
            raise JobCancelled(f"cancelled after {done / total:.0%} of the run")

    for batch in plan_batches(scenarios, settings.first_batch_work, later, settings.max_estimates):
        started = time.perf_counter()
        cells = []
        for i in batch:
            check()
            cells.append((scenarios[i], build_geometry(scenarios[i])))
        work = sum(s.work for s, _ in cells)
        distinct: dict[str, int] = {}
        for s, _ in cells:
            distinct.setdefault(draw_key(s), len(distinct))
        first = {key: next(c for c in cells if draw_key(c[0]) == key) for key in distinct}

        def within(fraction: float, before: float = done, work: float = work) -> None:
            if progress:  # rounded: the batches' work sums in another order than the total, yet ends at 1
                progress(min(1.0, round((before + fraction * work) / total, 12)))

        with out_of_memory_as_error(dev):
            draws = run_draws(list(first.values()), dev, dt, should_cancel=should_cancel, progress=within)
        seconds = (time.perf_counter() - started) / len(cells)
        for i, (s, geometry) in zip(batch, cells, strict=True):
            check()
            yield i, _result(s, geometry, draws[distinct[draw_key(s)]], dev, dt, seconds)
        done += work


def _result(
    s: Scenario, geometry: HeadLayout, draws: Draws, dev: torch.device, dt: torch.dtype, seconds: float
) -> SimulationResult:
    """Every number of docs/model.md sections 4-6 from one scenario's draws (float64 NumPy)."""
    started = time.perf_counter()
    m = dec.moments(draws.estimates, draws.truth)
    weightings, alphas, direct = _weightings(s, m, draws)
    terms = {k: weightings[s.weights][k] for k in ("mse", "bias2", "variance", "covariance")}
    mse_direct, mse_se = direct[s.weights]
    if s.weights in alphas:
        alpha = alphas[s.weights]
        slice_ens = alpha @ draws.slice_heads
    else:  # a per-draw gate: the ensemble is the gated sum of the heads
        alpha = draws.gates[s.weights].mean(axis=(0, 2))
        slice_ens = np.sum(draws.slice_gates[s.weights] * draws.slice_heads, axis=0)

    corr, mean_corr = dec.correlation(m.cbar)
    heads = [
        {"mse": float(b + v), "bias2": float(b), "variance": float(v)}
        for b, v in zip(m.head_bias2, m.head_variance, strict=True)
    ]
    notes = []
    if s.H > 8:
        notes.append("principal angles are listed for the pairs among the first 8 heads; HDI uses all pairs")
    for choice in s.choices():
        notes += choice.notes(s)

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
            # head 1 as it is in `heads`, with the standard error its MSE has on these draws
            "single_head": {
                **heads[0],
                "mse_se": dec.replicate_se(dec.per_replicate_mse(draws.estimates[:, 0], draws.truth)),
            },
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
    result["seconds"] = seconds + time.perf_counter() - started
    return result_of(SimulationResult, result)  # a non-finite number fails here, never reaches a cache
