"""Query models of the foundations lessons (the background of the paper's sections 1-3), and their table.

Four lessons, each a pure function of a small validated query (`headdiv.workers.engine.foundations`): why
scores are divided by sqrt(d_k), softmax as a Boltzmann distribution, attention entropy against the
number of heads, and the head budget. Bounds here keep every answer cheap (well under 100 ms on one
core), so the API answers them at once instead of queueing a job. `LESSONS` is the table the API's
routes and the dashboard's lesson panels are generated from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BeforeValidator, ConfigDict, Field, Strict, field_validator, model_validator

from headdiv.schemas.fields import Bool, Float, Int, Seed, StrictModel, only_numbers
from headdiv.schemas.results.lesson_results import BudgetLesson, EntropyLesson, ScalingLesson, SoftmaxLesson
from headdiv.schemas.results.result_parts import ResultModel

MAX_SCALING_WORK = 2_000_000
"""samples * d_k of the scaling lesson: about 20 ms of random numbers on one core."""

MAX_ENTROPY_WORK = 400_000_000
"""Multiply-adds of the entropy lesson (projections plus scores, summed over the H values)."""

MAX_ENTROPY_WEIGHTS = 10_000_000
"""Attention weights the entropy lesson materialises, samples * seq_len^2 * sum(heads): the softmax and
entropy are elementwise over them (about 10 ns each), and one H's weights must fit in memory."""


class ScalingQuery(StrictModel):
    """Dot products of random unit-variance queries and keys of dimension d_k."""

    model_config = ConfigDict(json_schema_extra={"x-rules": [f"samples * d_k <= {MAX_SCALING_WORK}"]})

    d_k: Int = Field(64, ge=1, le=1024, description="Head dimension d_k.")
    samples: Int = Field(4000, ge=100, le=50_000, description="Random (query, key) pairs drawn.")
    seed: Seed = Field(0, description="Seed of the random draws.")
    bins: Int = Field(40, ge=5, le=200, description="Histogram bins.")

    @model_validator(mode="after")
    def _bounded_work(self) -> ScalingQuery:
        if self.samples * self.d_k > MAX_SCALING_WORK:
            raise ValueError(
                f"samples * d_k = {self.samples * self.d_k} exceeds {MAX_SCALING_WORK}; lower samples or d_k"
            )
        return self


class SoftmaxQuery(StrictModel):
    """A score vector and a temperature: the Boltzmann view of softmax."""

    scores: list[Annotated[float, Field(ge=-1e3, le=1e3), Strict()]] = Field(
        default_factory=lambda: [2.0, 1.0, 0.5, 0.0, -1.0],
        min_length=2,
        max_length=64,
        description="Attention scores s_i (negative energies), 2 to 64 finite values in [-1000, 1000].",
    )
    temperature: Float = Field(1.0, ge=1e-3, le=1e3, description="Softmax temperature T > 0.")

    @field_validator("scores")
    @classmethod
    def _scores_bounded(cls, v: list[float]) -> list[float]:
        bad = [i for i, s in enumerate(v) if not -1e3 <= s <= 1e3]
        if bad:
            raise ValueError(f"scores[{bad[0]}] = {v[bad[0]]} is outside [-1000, 1000]")
        return v


class EntropyQuery(StrictModel):
    """Random inputs through random heads: mean and spread of attention entropy per H."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-rules": [
                "every H in heads divides d_model",
                f"samples * seq_len^2 * sum(heads) <= {MAX_ENTROPY_WEIGHTS}",
                f"samples * seq_len * d_model * (2 d_model + seq_len * len(heads)) <= {MAX_ENTROPY_WORK}",
            ]
        }
    )

    d_model: Int = Field(128, ge=2, le=1024, description="Model dimension, split into H heads of d_model/H.")
    seq_len: Int = Field(64, ge=2, le=512, description="Tokens per random sequence.")
    samples: Int = Field(8, ge=1, le=64, description="Random sequences (each with fresh projections).")
    seed: Seed = Field(0, description="Seed of the random draws.")
    heads: list[Annotated[int, Field(ge=1, le=1024), BeforeValidator(only_numbers)]] = Field(
        default_factory=lambda: [1, 2, 4, 8, 16, 32],
        min_length=1,
        max_length=12,
        description="Head counts H to compare; each must divide d_model.",
        json_schema_extra={"uniqueItems": True},
    )
    scaled: Bool = Field(True, description="Divide scores by sqrt(d_k) (True) or not (False).")

    @model_validator(mode="after")
    def _heads_divide(self) -> EntropyQuery:
        bad = [h for h in self.heads if self.d_model % h]
        if bad:
            raise ValueError(f"heads: {bad[0]} does not divide d_model = {self.d_model}")
        if len(set(self.heads)) != len(self.heads):
            raise ValueError("heads: values must be distinct")
        weights = self.samples * self.seq_len**2 * sum(self.heads)
        if weights > MAX_ENTROPY_WEIGHTS:
            raise ValueError(
                f"samples * seq_len^2 * sum(heads) = {weights:.3g} attention weights exceeds {MAX_ENTROPY_WEIGHTS:.3g}; "
                "lower samples, seq_len or the largest H values"
            )
        work = entropy_work(self.d_model, self.seq_len, self.samples, len(self.heads))
        if work > MAX_ENTROPY_WORK:
            raise ValueError(
                f"samples * seq_len * d_model * (2 d_model + seq_len * len(heads)) = {work:.3g} exceeds "
                f"{MAX_ENTROPY_WORK:.3g}; lower samples, seq_len, d_model or the number of H values"
            )
        return self


class BudgetQuery(StrictModel):
    """Sizes of one multi-head attention layer."""

    model_config = ConfigDict(json_schema_extra={"x-rules": ["H divides d_model"]})

    d_model: Int = Field(512, ge=1, le=65_536, description="Model dimension.")
    H: Int = Field(8, ge=1, le=4096, description="Number of heads; must divide d_model.")
    seq_len: Int = Field(1024, ge=1, le=1_048_576, description="Sequence length n.")
    bias: Bool = Field(True, description="Count the biases of the four projections.")
    bytes_per_value: Literal[2, 4, 8] = Field(4, description="Bytes per stored attention weight.")

    @model_validator(mode="after")
    def _heads_divide(self) -> BudgetQuery:
        if self.d_model % self.H:
            raise ValueError(f"H: {self.H} does not divide d_model = {self.d_model}")
        return self


def entropy_work(d_model: int, seq_len: int, samples: int, n_heads_values: int) -> int:
    """Multiply-adds per sample: Q, K projections once (2 n d^2), then scores (n^2 d) for each H value."""
    return samples * seq_len * d_model * (2 * d_model + seq_len * n_heads_values)


@dataclass(frozen=True)
class Lesson:
    name: str
    query: type[StrictModel]
    """Its query model; the engine's `foundations.LESSON_RUNNERS` holds the one function answering it."""
    answer: type[ResultModel]
    """Its answer's model."""
    summary: str


LessonQuery = ScalingQuery | SoftmaxQuery | EntropyQuery | BudgetQuery
"""The query of any lesson."""

LESSONS: dict[str, Lesson] = {
    lesson.name: lesson
    for lesson in (
        Lesson(
            "scaling",
            ScalingQuery,
            ScalingLesson,
            "Unscaled vs scaled dot products, cosine similarity against d_k",
        ),
        Lesson(
            "softmax",
            SoftmaxQuery,
            SoftmaxLesson,
            "Softmax as a Boltzmann distribution at temperature T",
        ),
        Lesson(
            "entropy",
            EntropyQuery,
            EntropyLesson,
            "Attention entropy of random heads against H at fixed d_model",
        ),
        Lesson(
            "budget",
            BudgetQuery,
            BudgetLesson,
            "Parameters, FLOPs and attention memory of one attention layer",
        ),
    )
}
