"""Parts that several results share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

Matrix = list[list[float]]
"""A square matrix over heads, row by row."""


class ResultModel(BaseModel):
    """A result: exactly the fields declared (a field the engine forgets or invents is a bug, caught where
    the result is made), finite numbers only (NaN never reaches a cache or a chart), frozen once built."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Terms(ResultModel):
    """An estimator's MSE and its split (docs/model.md section 4): mse = bias2 + variance + covariance."""

    mse: float
    bias2: float
    variance: float
    covariance: float


class AnglePair(ResultModel):
    """The principal angles between two heads' subspaces, in degrees, smallest first."""

    pair: tuple[int, int] = Field(description="The two heads, 0-based.")
    angles: list[float]


class Split(ResultModel):
    """A split of the budget D = H x d_k."""

    H: int
    d_k: int


class ParamScan(ResultModel):
    """A weighting scheme's MSE along a grid of its parameter, computed from the same error moments."""

    param: str = Field(description="The scheme's parameter that is scanned (e.g. rho).")
    values: list[float]
    mse: list[float]
    best: float = Field(description="The value of the grid with the smallest MSE.")
