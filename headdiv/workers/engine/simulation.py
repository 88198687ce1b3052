"""One scenario in, every number of docs/model.md sections 4-6 out: the result of a simulation."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from headdiv.schemas import Scenario
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.errors import JobCancelled
from headdiv.schemas.fields import canonical
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.weightings import WEIGHTINGS
from headdiv.workers.engine import decomposition as dec
from headdiv.workers.engine.batch_moments import BatchMoments, CellSums
from headdiv.workers.engine.device import out_of_memory_as_error, resolve_device, resolve_dtype
from headdiv.workers.engine.draws import BatchDraws
from headdiv.workers.engine.geometry import HeadLayout, build_geometry, hdi_of
from headdiv.workers.engine.montecarlo import run_draws
from headdiv.workers.engine.result_building import result_of

Direct = dict[str, tuple[float, float]]
"""Per scheme: its MSE computed directly from the combined draws, and that MSE's standard error."""

SINGLE_HEAD = "single head"
"""The row of `fixed_alphas` that is head 1 alone (the single-head baseline's standard error)."""


def fixed_alphas(s: Scenario, m: dec.Moments) -> dict[str, np.ndarray]:
    """Every fixed scheme's weights on these moments, and head 1 alone: the ensembles whose direct MSE
    `BatchMoments.direct` computes."""
    alphas = {w.name: w.of(s).alpha(m) for w in WEIGHTINGS if not w.per_draw}
    alphas[SINGLE_HEAD] = np.eye(s.H)[0]
    return alphas


def _weightings(
    s: Scenario, sums: CellSums, alphas: dict[str, np.ndarray], fixed: Direct
) -> tuple[dict[str, Any], Direct]:
    """Every registered scheme's weights, decomposition, MSE standard error on these draws (so its MSE is
    shown to the precision the draws support) and parameter scan, and every scheme's direct MSE (the chosen
    scheme's is the result's own).

    A gated scheme's terms treat each gated head g_h E_h as a member of weight 1 (carrying truth / H, so the
    members' biases add up to the gated ensemble's bias): bias^2 + variance + covariance is then the gated
    ensemble's MSE exactly, with the spread of the gates themselves inside the variance and covariance.
    """
    m = sums.moments
    out: dict[str, Any] = {}
    direct: Direct = {}
    for w in WEIGHTINGS:
        scheme = w.of(s)
        if w.per_draw:
            gated = sums.gated[w.name]
            direct[w.name] = gated.direct
            out[w.name] = {
                **gated.moments.terms(np.ones(s.H)),
                "mse_se": direct[w.name][1],
                "mean_gate": gated.mean_gate.tolist(),
            }
        else:
            direct[w.name] = fixed[w.name]
            alpha = alphas[w.name]
            out[w.name] = {"alpha": alpha.tolist(), **m.terms(alpha), "mse_se": direct[w.name][1]}
        out[w.name]["scan"] = scheme.scan(m)
    return out, direct


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
    return repr(sorted((k, v) for k, v in canonical(s).items() if k not in POST_ONLY))


def plan_batches(
    scenarios: list[Scenario], first_work: float, work: float, estimates: int, works: list[float] | None = None
) -> list[list[int]]:
    """Indices of `scenarios` in batches of equal `nw_shape()`, in order of first appearance.

    A batch stays within `work` work units (the first one within `first_work`, so a first result comes
    soon) and `estimates` kept estimates; a single scenario always makes a batch of its own if larger.
    `works` are the scenarios' work units when the caller has them already.
    """
    works = works or [s.work for s in scenarios]
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
            if current and (used_work + works[i] > cap or used_estimates + kept > estimates):
                batches.append(current)
                current, used_work, used_estimates = [], 0.0, 0
            current.append(i)
            used_work += works[i]
            used_estimates += kept
        batches.append(current)
    return batches


@dataclass
class _Reduced:
    """A batch's decomposition sums on the host: each cell's sums, fixed weights and their direct MSE."""

    sums: list[CellSums]
    alphas: list[dict[str, np.ndarray]]
    fixed: list[Direct]


def _reduce(draws: BatchDraws, cells: list[tuple[Scenario, HeadLayout]], of_cell: list[int]) -> _Reduced:
    """The two passes of `BatchMoments`: moments, then the direct MSE of the weights chosen from them."""
    reduced = BatchMoments(draws)
    sums = reduced.sums()
    alphas = [fixed_alphas(s, sums[k].moments) for (s, _), k in zip(cells, of_cell, strict=True)]
    names = list(alphas[0])
    mse = reduced.direct(np.stack([[a[name] for name in names] for a in alphas]), of_cell)
    fixed = [{name: (float(v[0]), float(v[1])) for name, v in zip(names, row, strict=True)} for row in mse]
    return _Reduced(sums, alphas, fixed)


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
    works = [s.work for s in scenarios]
    total = sum(works) or 1.0
    done = 0.0
    later = settings.cuda_batch_work if dev.type == "cuda" else settings.batch_work

    def check() -> None:
        """Between cells too, not only between NW blocks: building a batch's heads and decomposing its cells
        take a second on a big surface, time in which a background run must yield to a person's job."""
        if should_cancel and should_cancel():
            raise JobCancelled(f"cancelled after {done / total:.0%} of the run")

    for batch in plan_batches(scenarios, settings.first_batch_work, later, settings.max_estimates, works):
        started = time.perf_counter()
        cells = []
        for i in batch:
            check()
            cells.append((scenarios[i], build_geometry(scenarios[i])))
        work = sum(works[i] for i in batch)
        keys = [draw_key(s) for s, _ in cells]
        distinct: dict[str, int] = {}
        first: list[tuple[Scenario, HeadLayout]] = []
        for key, cell in zip(keys, cells, strict=True):
            if key not in distinct:
                distinct[key] = len(first)
                first.append(cell)
        of_cell = [distinct[k] for k in keys]

        def within(fraction: float, before: float = done, work: float = work) -> None:
            if progress:  # rounded: the batches' work sums in another order than the total, yet ends at 1
                progress(min(1.0, round((before + fraction * work) / total, 12)))

        with out_of_memory_as_error(dev):
            draws = run_draws(first, dev, dt, should_cancel=should_cancel, progress=within)
            reduced = _reduce(draws, cells, of_cell)
            del draws
        seconds = (time.perf_counter() - started) / len(cells)
        for j, (i, (s, geometry)) in enumerate(zip(batch, cells, strict=True)):
            check()
            sums = reduced.sums[of_cell[j]]
            yield i, _result(s, geometry, sums, reduced.alphas[j], reduced.fixed[j], dev, dt, seconds)
        done += work


def _result(
    s: Scenario,
    geometry: HeadLayout,
    sums: CellSums,
    alphas: dict[str, np.ndarray],
    fixed: Direct,
    dev: torch.device,
    dt: torch.dtype,
    seconds: float,
) -> SimulationResult:
    """Every number of docs/model.md sections 4-6 from one scenario's sums (float64 NumPy). `alphas` are
    `fixed_alphas` of this scenario and `fixed` their ensembles' direct MSE on its draws."""
    started = time.perf_counter()
    m = sums.moments
    weightings, direct = _weightings(s, sums, alphas, fixed)
    terms = {k: weightings[s.weights][k] for k in ("mse", "bias2", "variance", "covariance")}
    mse_direct, mse_se = direct[s.weights]
    if s.weights in alphas:
        alpha = alphas[s.weights]
        slice_ens = alpha @ sums.slice_heads
    else:  # a per-draw gate: the ensemble is the gated sum of the heads
        alpha = sums.gated[s.weights].mean_gate
        slice_ens = np.sum(sums.slice_gates[s.weights] * sums.slice_heads, axis=0)

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
            "single_head": {**heads[0], "mse_se": fixed[SINGLE_HEAD][1]},
            "big_head": {**sums.big, "dim": sums.big_dim},
        },
        "weightings": weightings,
        "slice": {
            "t": sums.slice_t.tolist(),
            "truth": sums.slice_truth.tolist(),
            "heads": sums.slice_heads.tolist(),
            "ensemble": slice_ens.tolist(),
        },
        "p": geometry.p,
        "scenario": s,  # the validated instance: validating the result does not validate it again
        "device": str(dev),
        "dtype": str(dt).removeprefix("torch."),
        "notes": notes,
    }
    result["seconds"] = seconds + time.perf_counter() - started
    return result_of(SimulationResult, result)  # a non-finite number fails here, never reaches a cache
