"""The result of one simulation (one cell): every number of docs/model.md sections 4-6."""

from __future__ import annotations

from pydantic import Field

from headdiv.schemas.results.result_parts import AnglePair, Matrix, ParamScan, ResultModel, Terms
from headdiv.schemas.scenario import Scenario


class HeadTerms(ResultModel):
    """One head on its own: its MSE = bias2 + variance."""

    mse: float
    bias2: float
    variance: float


class SingleHead(HeadTerms):
    """Head 1 alone, with the standard error of its MSE on these draws."""

    mse_se: float


class BigHead(SingleHead):
    """One head of the whole budget's dimension (H x d_k), on the same data."""

    dim: int


class Baselines(ResultModel):
    single_head: SingleHead
    big_head: BigHead


class SchemeResult(Terms):
    """One weighting scheme on this simulation's draws (docs/model.md section 5)."""

    mse_se: float
    alpha: list[float] | None = Field(None, description="Fixed weights, for a scheme that has them.")
    mean_gate: list[float] | None = Field(None, description="Each head's mean gate, for a per-draw scheme.")
    scan: ParamScan | None = Field(None, description="The MSE along the scheme's parameter, where it has one.")


class Slice(ResultModel):
    """The estimators along one line through the inputs, for the picture of what the heads fit."""

    t: list[float]
    truth: list[float]
    heads: list[list[float]]
    ensemble: list[float]


class SimulationResult(Terms):
    """One scenario's Monte Carlo decomposition, its heads, baselines and every weighting scheme."""

    mse_direct: float = Field(description="The ensemble's MSE computed directly from its draws.")
    mse_se: float
    hdi: float | None = Field(description="Null for a single head.")
    effective_heads: float | None = Field(
        description="mean_h C_hh / alpha^T C alpha; null when the ensemble has no variance."
    )
    mean_correlation: float | None = Field(description="The mean correlation of distinct heads; null if none varies.")
    alpha: list[float] = Field(description="The chosen scheme's weights (a per-draw scheme's mean gates).")
    heads: list[HeadTerms]
    covariance_matrix: Matrix
    correlation_matrix: list[list[float | None]] = Field(description="Null where a head has no variance.")
    overlap_matrix: Matrix
    principal_angles_deg: list[AnglePair]
    baselines: Baselines
    weightings: dict[str, SchemeResult] = Field(description="Every registered weighting scheme, by name.")
    slice: Slice
    p: int
    scenario: Scenario
    device: str
    dtype: str
    notes: list[str]
    seconds: float
