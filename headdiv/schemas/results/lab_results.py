"""The results of the labs computed by their own engine runner: the covariance lemma, training."""

from __future__ import annotations

from pydantic import Field

from headdiv.schemas.results.result_parts import AnglePair, Matrix, ResultModel
from headdiv.schemas.scenario import Scenario


class CovarianceSplit(ResultModel):
    """One pair of heads at one angle: the measured covariance, its shared-noise and signal parts, the bound."""

    measured: float
    measured_se: float
    shared_noise: float
    shared_noise_se: float
    signal: float
    bound: float


class CovariancePoint(CovarianceSplit):
    theta: float
    pair: str = Field(description="The two heads, 1-based, e.g. '1-2'.")
    hdi: float


class CovarianceSeries(ResultModel):
    """One quantity of the split along the angles."""

    measured: list[float]
    measured_se: list[float]
    shared_noise: list[float]
    shared_noise_se: list[float]
    signal: list[float]
    bound: list[float]


class PairSeries(CovarianceSeries):
    pair: tuple[int, int] = Field(description="The two heads, 0-based.")


class CovarianceMatrices(ResultModel):
    """Every pair's split at one angle, as H x H matrices."""

    measured: Matrix
    measured_se: Matrix
    shared_noise: Matrix
    shared_noise_se: Matrix
    signal: Matrix
    bound: Matrix


class LemmaConstants(ResultModel):
    """The constants of Lemma 4.1's bound as the lab evaluates them."""

    L: float
    h: float
    n: int
    d_k: int
    G: str
    p_K: str
    proportionality: float


class CovarianceResult(ResultModel):
    """Lemma 4.1 measured: each pair's covariance split into shared noise and signal, against the bound."""

    thetas: list[float]
    points: list[CovariancePoint]
    hdi: list[float]
    pairs: list[PairSeries]
    mean_pair: CovarianceSeries
    matrices: list[CovarianceMatrices]
    sigma2_over_n: float
    constants: LemmaConstants
    base: Scenario
    complete: bool = Field(description="False while a running job has not reached every angle.")


class TrainingResult(ResultModel):
    """Heads trained by gradient descent, recorded at `steps` (every list is aligned on it)."""

    steps: list[int]
    loss: list[float]
    penalty: list[float]
    mse: list[float]
    mse_se: list[float]
    bias2: list[float]
    variance: list[float]
    covariance: list[float]
    effective_heads: list[float | None]
    hdi: list[float | None] = Field(description="Null where a head lost rank, so its subspace is undefined.")
    overlap: list[Matrix | None]
    angles: list[list[AnglePair] | None]
    norms: list[list[float]]
    alpha: list[list[float]]
    p: int
    H: int
    d_k: int
    seed: int
    total_steps: int
    penalty_weight: float
    init: str
    notes: list[str]
    final_heads: list[Matrix] | None = Field(None, description="The trained key heads (p x d_k each), once done.")
