"""The results of the jobs made of simulations (cells): a surface, an architecture, a diversity sweep.

A running job shows the same shape with null where a cell is not done yet.
"""

from __future__ import annotations

from pydantic import Field

from headdiv.schemas.requests import Axis
from headdiv.schemas.results.result_parts import ResultModel, Split
from headdiv.schemas.scenario import Scenario

Grid = list[list[float | None]]
"""grid[i][j] is at y.values[i], x.values[j]; null for a cell not done yet."""


class SurfaceResult(ResultModel):
    """Every surface metric (`headdiv.schemas.metrics.SURFACE_METRICS`) on the grid."""

    x: Axis
    y: Axis
    metrics: dict[str, Grid]
    base: Scenario


class CellTerms(ResultModel):
    """A cell's decomposition (null until it is done)."""

    mse: float | None = None
    bias2: float | None = None
    variance: float | None = None
    covariance: float | None = None
    mse_se: float | None = None


class Candidate(CellTerms):
    """One split of the budget, simulated."""

    H: int
    d_k: int


class TheoryPoint(ResultModel):
    """The fitted objective (7.1) at one split: c0 + c1 bias term + c2 variance term."""

    H: int
    d_k: int
    mse: float | None


class ArchitectureFit(ResultModel):
    """The paper's curve fitted to the simulated splits (docs/model.md section 7)."""

    c0: float
    c1: float
    c2: float
    degenerate: str | None = Field(description="Why the fit has no interior optimum, when it has none.")
    candidates: list[TheoryPoint]
    best: Split | None


class ArchitectureResult(ResultModel):
    """Monte Carlo MSE of every split H x d_k = D, its minimiser, and the fitted theory curve."""

    budget: int
    candidates: list[Candidate]
    best: Split | None
    theory: ArchitectureFit
    base: Scenario


class DiversityPoint(CellTerms):
    """One angle of the sweep."""

    theta: float
    hdi: float | None = None
    mean_correlation: float | None = None
    effective_heads: float | None = None


class DiversityBound(ResultModel):
    """The bound (4.4), MSE <= c0 + K (1 - HDI), fitted as the tightest line above every point."""

    c0: float | None
    K: float | None
    values: list[float | None]


class Rise(ResultModel):
    """The largest rise of MSE with HDI on the sweep, in standard errors of the difference."""

    from_theta: float
    to_theta: float
    z: float


class DiversitySweepResult(ResultModel):
    """MSE against HDI over theta, the fitted bound, and whether MSE falls as HDI rises (Theorem 4.2)."""

    thetas: list[float]
    points: list[DiversityPoint]
    bound: DiversityBound
    holds: bool = Field(description="No point of higher HDI has an MSE significantly above one of lower HDI.")
    rise: Rise | None
    base: Scenario
