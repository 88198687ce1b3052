"""Each result's key numbers (its summary) and its table (its DataFrame), one entry per result model, the
numbers written by the dashboard's one rule (`headdiv.figures.theme.fmt`): an estimate with its
standard error where it has one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from headdiv.figures.theme import fmt, fmt_se
from headdiv.figures.verdict_sentences import covariance_verdict, diversity_verdict, training_verdict
from headdiv.schemas.results.lab_results import CovarianceResult, TrainingResult
from headdiv.schemas.results.report_results import HdiReport, ModelComparison, ModelHeadsReport, TheoryReport
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult, SurfaceResult

Rows = list[tuple[str, str]]
Table = list[dict[str, Any]]


def _simulation(r: SimulationResult) -> Rows:
    s = r.scenario
    return [
        ("scenario", f"H={s.H}, d_k={s.d_k}, n={s.n}, θ={fmt(getattr(s, 'theta', None))}°, geometry={s.geometry}"),
        ("MSE ± s.e.", fmt_se(r.mse, r.mse_se)),
        ("bias²", fmt(r.bias2)),
        ("variance", fmt(r.variance)),
        ("covariance", fmt(r.covariance)),
        ("HDI", fmt(r.hdi)),
        ("effective heads", fmt(r.effective_heads)),
        ("mean correlation", fmt(r.mean_correlation)),
        ("one big head's MSE", fmt_se(r.baselines.big_head.mse, r.baselines.big_head.mse_se)),
    ]


def _surface(r: SurfaceResult) -> Rows:
    grid = r.metrics.get("mse", [])
    cells = [(v, i, j) for i, row in enumerate(grid) for j, v in enumerate(row) if v is not None]
    rows: Rows = [("grid", f"{r.x.param} × {r.y.param}: {len(r.x.values)} × {len(r.y.values)}")]
    if cells:
        v, i, j = min(cells)
        rows.append(("lowest MSE", f"{fmt(v)} at {r.x.param}={fmt(r.x.values[j])}, {r.y.param}={fmt(r.y.values[i])}"))
    return rows


def _architecture(r: ArchitectureResult) -> Rows:
    best = next((c for c in r.candidates if r.best and (c.H, c.d_k) == (r.best.H, r.best.d_k)), None)
    rows: Rows = [("budget D = H × d_k", str(r.budget)), ("splits simulated", str(len(r.candidates)))]
    if best is not None:
        rows.append(("best split", f"{best.H}×{best.d_k}: MSE {fmt_se(best.mse, best.mse_se)}"))
    fit = r.theory
    rows.append(("theory's best", f"{fit.best.H}×{fit.best.d_k}" if fit.best else f"none ({fit.degenerate})"))
    return rows


def _sweep(r: DiversitySweepResult) -> Rows:
    return [("angles", ", ".join(fmt(p.theta) for p in r.points)), ("verdict", diversity_verdict(r))]


def _covariance(r: CovarianceResult) -> Rows:
    return [("angles", ", ".join(fmt(t) for t in r.thetas)), ("verdict", covariance_verdict(r))]


def _training(r: TrainingResult) -> Rows:
    last = len(r.steps) - 1
    return [
        ("steps", f"{r.steps[-1]} of {r.total_steps}" if r.steps else "none"),
        ("final MSE ± s.e.", fmt_se(r.mse[last], r.mse_se[last]) if r.steps else "—"),
        ("final HDI", fmt(r.hdi[last]) if r.steps else "—"),
        ("verdict", training_verdict(r)),
    ]


def _hdi(r: HdiReport) -> Rows:
    return [("HDI", fmt(r.hdi)), ("heads", str(len(r.overlap_matrix)))]


def _theory(r: TheoryReport) -> Rows:
    return [
        ("n, budget", f"{r.n}, {r.budget}"),
        ("c₁, c₂", f"{fmt(r.c1)}, {fmt(r.c2)}"),
        ("best split", f"{r.best.H}×{r.best.d_k}"),
    ]


def _comparison(r: ModelComparison) -> Rows:
    from headdiv.figures.model_charts import compare_sentence

    return [*_model(r.a)[:1], *_model(r.b)[:1], ("comparison", compare_sentence(r.a, r.b))]


def _model(r: ModelHeadsReport) -> Rows:
    rows: Rows = [("model", f"{r.model or 'file'}: {len(r.layers)} layers, {r.num_heads} heads of d_k={r.d_k}")]
    rows += [(f"layer {x.layer}", f"key HDI {fmt(x.key_hdi)} (random {fmt(x.random_hdi)})") for x in r.layers]
    return rows


SUMMARIES: dict[type[ResultModel], Callable[[Any], Rows]] = {
    SimulationResult: _simulation,
    SurfaceResult: _surface,
    ArchitectureResult: _architecture,
    DiversitySweepResult: _sweep,
    CovarianceResult: _covariance,
    TrainingResult: _training,
    HdiReport: _hdi,
    TheoryReport: _theory,
    ModelHeadsReport: _model,
    ModelComparison: _comparison,
}
"""Result model -> its key numbers (a test checks every kind and report has an entry)."""


def summary_rows(result: ResultModel) -> Rows:
    rows = SUMMARIES.get(type(result))
    if rows is None:
        raise KeyError(f"no summary for {type(result).__name__}")
    return rows(result)


RESULT_TABLES: dict[type[ResultModel], Callable[[Any], Table]] = {
    SimulationResult: lambda r: [{"head": i + 1, **h.model_dump()} for i, h in enumerate(r.heads)],
    SurfaceResult: lambda r: [
        {r.x.param: x, r.y.param: y, **{m: grid[i][j] for m, grid in r.metrics.items()}}
        for i, y in enumerate(r.y.values)
        for j, x in enumerate(r.x.values)
    ],
    ArchitectureResult: lambda r: [c.model_dump() for c in r.candidates],
    DiversitySweepResult: lambda r: [p.model_dump() for p in r.points],
    CovarianceResult: lambda r: [p.model_dump() for p in r.points],
    TrainingResult: lambda r: [
        {"step": s, "loss": r.loss[i], "mse": r.mse[i], "mse_se": r.mse_se[i], "hdi": r.hdi[i]}
        for i, s in enumerate(r.steps)
    ],
    HdiReport: lambda r: [a.model_dump() for a in r.principal_angles_deg],
    TheoryReport: lambda r: [c.model_dump() for c in r.candidates],
    ModelHeadsReport: lambda r: [
        {"layer": x.layer, "key_hdi": x.key_hdi, "query_hdi": x.query_hdi, "random_hdi": x.random_hdi} for x in r.layers
    ],
    ModelComparison: lambda r: r.rows(),
}
"""Result model -> its rows (one dict per row) for `Result.to_frame()`."""


def table_of(result: ResultModel) -> Table:
    rows = RESULT_TABLES.get(type(result))
    if rows is None:
        raise KeyError(f"no table for {type(result).__name__}")
    return rows(result)
