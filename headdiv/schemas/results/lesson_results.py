"""The answers of the Foundations lessons (docs/model.md section 1): scaling, softmax, entropy, budget."""

from __future__ import annotations

from pydantic import Field

from headdiv.schemas.results.result_parts import ResultModel


class Histogram(ResultModel):
    edges: list[float]
    centers: list[float]
    counts: list[int]
    density: list[float]
    normal_pdf: list[float] | None = Field(None, description="The normal density the lesson compares it with.")


class DotProducts(ResultModel):
    """Dot products of random unit-variance vectors, with the variance theory predicts."""

    variance: float
    theory_variance: float
    mean: float
    histogram: Histogram


class CosineCurve(ResultModel):
    """Cosine similarity's spread against d_k, with its theory 1 / sqrt(d_k) and the 5-95% band."""

    d_k: list[int]
    mean: list[float]
    std: list[float]
    theory_std: list[float]
    q05: list[float]
    q95: list[float]


class Cosine(ResultModel):
    variance: float
    theory_variance: float
    histogram: Histogram
    curve: CosineCurve


class ScalingLesson(ResultModel):
    """Why attention divides scores by sqrt(d_k): unscaled vs scaled dot products, and cosine similarity."""

    d_k: int
    samples: int
    seed: int
    unscaled: DotProducts
    scaled: DotProducts
    cosine: Cosine


class SoftmaxLimits(ResultModel):
    uniform: list[float]
    argmax: list[float]


class TemperatureCurve(ResultModel):
    temperature: list[float]
    entropy: list[float]
    max_weight: list[float]


class SoftmaxLesson(ResultModel):
    """Softmax as Boltzmann weights at a temperature, their entropy, and both temperature limits."""

    scores: list[float]
    temperature: float
    weights: list[float]
    entropy: float
    max_entropy: float
    argmax_entropy: float
    max_weight: float
    log_partition: float
    mean_energy: float
    free_energy: float
    limits: SoftmaxLimits
    curve: TemperatureCurve


class HeadsEntropy(ResultModel):
    """Attention entropy of random heads at one H (nats), over samples and heads."""

    H: int
    d_k: int
    mean: float
    std: float
    min: float
    max: float
    q10: float
    q90: float
    head_entropies: list[float]


class EntropyLesson(ResultModel):
    """Attention entropy of random heads for each H at a fixed d_model."""

    d_model: int
    seq_len: int
    samples: int
    seed: int
    scaled: bool
    max_entropy: float
    points: list[HeadsEntropy]


class Flops(ResultModel):
    projections: int
    scores: int
    softmax: int
    weighted_sum: int
    total: int


class BudgetRow(ResultModel):
    """One layer's parameters, floating-point operations and attention memory."""

    d_model: int
    H: int
    d_k: int
    seq_len: int
    params: int
    params_per_head: int
    flops: int
    flops_breakdown: Flops
    attention_bytes: int


class BudgetLesson(ResultModel):
    """What H changes in a layer's cost at a fixed d_model, and what the sequence length does."""

    chosen: BudgetRow
    params_formula: str
    by_length: list[BudgetRow]
    by_heads: list[BudgetRow]
