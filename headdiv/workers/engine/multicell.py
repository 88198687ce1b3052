"""A multi-cell job's result from its cells: pure assembly from each cell's summary (`CELL_SUMMARY`).

Every function takes the validated request and one summary per cell of `request.scenarios()`, in
order, `None` for a cell not computed yet: the same function gives the finished result and the
partial one a running job shows (shaped alike, with null for missing cells; what is derived from
several cells - the best split, the fitted curves, whether the bound holds - uses the cells done so
far). The inputs of each cell are read from the request, never from its result. NumPy and SciPy
only, so the API can assemble a partial result without loading torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from headdiv.schemas import ArchitectureRequest, DiversitySweepRequest, SurfaceRequest, TheoryQuery
from headdiv.schemas.metrics import SURFACE_METRICS, CellSummary
from headdiv.schemas.requests import CellsRequest
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult, SurfaceResult
from headdiv.schemas.verdicts import worst_rise
from headdiv.workers.engine.entries import Entry, entry_for
from headdiv.workers.engine.result_building import result_of
from headdiv.workers.engine.theory import architecture_theory, fit_architecture, fit_diversity_bound


def _records(
    request: ArchitectureRequest | DiversitySweepRequest,
    cells: list[CellSummary | None],
    inputs: tuple[str, ...],
    keys: tuple[str, ...],
) -> list[dict[str, Any]]:
    """One record per cell: the scenario fields `inputs` that vary, then the cell's numbers `keys` (null if missing)."""
    return [
        {**{k: getattr(s, k) for k in inputs}, **{k: (c or {}).get(k) for k in keys}}
        for s, c in zip(request.scenarios(), cells, strict=True)
    ]


def surface(request: SurfaceRequest, cells: list[CellSummary | None]) -> SurfaceResult:
    """Every metric on the grid: metrics[name][i][j] is at y.values[i], x.values[j]."""
    nx = len(request.x.values)
    metrics = {
        name: [[(cells[i * nx + j] or {}).get(name) for j in range(nx)] for i in range(len(request.y.values))]
        for name in SURFACE_METRICS
    }
    return result_of(SurfaceResult, {"x": request.x, "y": request.y, "metrics": metrics, "base": request.base})


def architecture(request: ArchitectureRequest, cells: list[CellSummary | None]) -> ArchitectureResult:
    """Monte Carlo MSE of every split H x d_k = D, its minimiser, and the paper's curve fitted to it."""
    candidates = _records(request, cells, ("H", "d_k"), ("mse", "bias2", "variance", "covariance", "mse_se"))
    done = [c for c in candidates if c["mse"] is not None]
    best = min(done, key=lambda c: c["mse"]) if done else None
    n = request.base.n
    fit = fit_architecture([c["d_k"] for c in done], n, request.budget, [c["mse"] for c in done])
    curve = architecture_theory(TheoryQuery(n=n, budget=request.budget, c1=fit.c1, c2=fit.c2))
    simulated = {c["d_k"] for c in done}
    theory_candidates = [
        {"H": c.H, "d_k": c.d_k, "mse": None if c.mse is None else fit.c0 + c.mse}
        for c in curve.candidates
        if c.d_k in simulated
    ]
    finite = [c for c in theory_candidates if c["mse"] is not None]
    # a degenerate fit's minimum is an end of the range, not an optimum: none is claimed
    theory_best = min(finite, key=lambda c: cast(float, c["mse"])) if finite and fit.degenerate is None else None
    return result_of(
        ArchitectureResult,
        {
            "budget": request.budget,
            "candidates": candidates,
            "best": {"H": best["H"], "d_k": best["d_k"]} if best else None,
            "theory": {
                "c0": fit.c0,
                "c1": fit.c1,
                "c2": fit.c2,
                "degenerate": fit.degenerate,
                "candidates": theory_candidates,
                "best": {"H": theory_best["H"], "d_k": theory_best["d_k"]} if theory_best else None,
            },
            "base": request.base,
        },
    )


def diversity_sweep(request: DiversitySweepRequest, cells: list[CellSummary | None]) -> DiversitySweepResult:
    """MSE against HDI over theta, with the bound (4.4) fitted, and whether MSE falls as HDI rises."""
    keys = ("hdi", "mse", "bias2", "variance", "covariance", "mse_se", "mean_correlation", "effective_heads")
    points = _records(request, cells, ("theta",), keys)
    done = [p for p in points if p["mse"] is not None]
    hdis = [float(p["hdi"]) for p in done]
    mses = [float(p["mse"]) for p in done]
    se = [float(p["mse_se"]) for p in done]
    c0 = k = None
    values: list[float | None] = [None] * len(points)
    if done:
        c0, k, fitted = fit_diversity_bound(hdis, mses, request.base.H)
        at = iter(fitted)
        values = [next(at) if p["mse"] is not None else None for p in points]
    # Theorem 4.2 holds on this sweep if no point of higher HDI has an MSE above a point of lower
    # HDI by more than two standard errors of their difference (every pair, so a slow trend counts).
    rise = worst_rise(hdis, mses, se)
    return result_of(
        DiversitySweepResult,
        {
            "thetas": [p["theta"] for p in points],
            "points": points,
            "bound": {"c0": c0, "K": k, "values": values},
            "holds": rise is None,
            "rise": None
            if rise is None
            else {"from_theta": done[rise.lower]["theta"], "to_theta": done[rise.higher]["theta"], "z": rise.z},
            "base": request.base,
        },
    )


RequestT = TypeVar("RequestT", bound=CellsRequest)
ResultT = TypeVar("ResultT", bound=ResultModel)
Assembler = Callable[[RequestT, list[CellSummary | None]], ResultT]


AssemblerEntry = Entry[RequestT, ResultT, Assembler[RequestT, ResultT]]


def assembler_entry(
    request: type[RequestT], result: type[ResultT], assemble: Assembler[RequestT, ResultT]
) -> AssemblerEntry[RequestT, ResultT]:
    """A multi-cell request model, its result model and the function that assembles the one for the other
    (mypy checks the three)."""
    return Entry(request, result, assemble)


ASSEMBLERS: tuple[AssemblerEntry[Any, Any], ...] = (
    assembler_entry(SurfaceRequest, SurfaceResult, surface),
    assembler_entry(ArchitectureRequest, ArchitectureResult, architecture),
    assembler_entry(DiversitySweepRequest, DiversitySweepResult, diversity_sweep),
)


def assembler_for(request: RequestT) -> Assembler[RequestT, ResultModel]:
    """The assembler of `request`'s kind (a KeyError names a request model with none: a bug, not input)."""
    return cast(Assembler[RequestT, ResultModel], entry_for(ASSEMBLERS, request, "assembler").compute)
