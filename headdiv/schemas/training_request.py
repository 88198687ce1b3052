"""The training lab's request: learn the heads' projections by gradient descent (the paper's open problem 1,
section 9.2: does training find orthogonal heads?).

The options are closed tables (`INITS`, `OPTIMIZERS`): the request's `Literal` choices, the dashboard's
options and the docs are read from them, and the engine keeps one implementation per name (a test holds
the two in step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, model_validator

from headdiv.schemas.cost import dominant, summed, work_of
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.fields import Bool, Float, Int, StrictModel
from headdiv.schemas.scenario import Scenario

INITS: dict[str, str] = {
    "identical": "every head the same subspace (equiangular at θ = 0): a symmetric start",
    "equiangular": "equiangular heads at the base scenario's θ",
    "random": "seeded random orthonormal heads in R^p",
    "orthogonal": "mutually orthogonal heads (equiangular at θ = 90°, private blocks only)",
}
"""Where the heads start; the block inits need the base's p = (H + 1) d_k."""
OPTIMIZERS: dict[str, str] = {
    "sgd": "plain gradient descent on the batch loss",
    "adam": "Adam (torch defaults apart from the learning rate)",
}
if TYPE_CHECKING:
    InitName = str
    OptimizerName = str
else:
    InitName = Literal[tuple(INITS)]
    OptimizerName = Literal[tuple(OPTIMIZERS)]

MAX_STEP_SCORES = 1 << 24
"""Attention weights one step holds for autograd (batch * H * queries * n): about 128 MB in float64."""
MAX_RECORDED_NUMBERS = 1 << 20
"""Numbers the recorded overlaps and angles may hold in all (records * (H² + 28 d_k)): a result of a few MB."""
LISTED_ANGLE_PAIRS = 28
"""Pairs whose principal angles are recorded (those among the first 8 heads, as a simulation lists them)."""
BACKWARD_FACTOR = 3.0
"""A training step costs about three forward passes (forward, then backward through the same scores)."""


def _default_base() -> Scenario:
    return Scenario.model_validate({"replicates": 50})


class TrainingRequest(StrictModel):
    """Gradient descent on the heads' projections W_h: loss, held-out MSE split and HDI over the steps."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"steps": 200, "lr": 0.05, "init": "random", "base": {"replicates": 50}}],
            "x-rules": [
                "base.H >= 2",
                "init 'identical', 'equiangular' and 'orthogonal' need a block geometry in base (p = (H+1) d_k)",
                "record_every <= steps",
                f"records * (H² + 28 d_k) <= {MAX_RECORDED_NUMBERS} recorded numbers",
                f"batch*H*queries*n <= {MAX_STEP_SCORES} attention weights per step",
                "work: the steps' and records' work units (docs/api.md) <= HEADDIV_MAX_JOB_WORK (4e11)",
            ],
        }
    )

    base: Scenario = Field(
        default_factory=_default_base,
        description="The scenario: data, target, kernel, heads' sizes; its replicates are the held-out draws.",
    )
    steps: Int = Field(200, ge=1, le=20000, title="steps", description="Gradient steps.")
    lr: Float = Field(0.02, gt=0, le=10, title="learning rate", description="Step size of the optimizer.")
    optimizer: OptimizerName = Field("adam", title="optimizer", description="sgd or adam.")
    init: InitName = Field("random", title="initial heads", description="Where the heads start.")
    penalty: Float = Field(
        0.0,
        ge=0,
        le=1000,
        title="diversity penalty λ",
        description="λ in λ Σ_{h<h'} ||Q_hᵀ Q_h'||_F² / d_k added to the loss (Q_h: orthonormal basis of W_h).",
    )
    orthonormal: Bool = Field(
        True, title="orthonormal heads", description="Retract W_h to orthonormal columns (QR) after each step."
    )
    learn_weights: Bool = Field(
        False, title="learn head weights α", description="Train α = softmax(logits) too; otherwise α is uniform."
    )
    separate_qk: Bool = Field(
        False,
        title="separate W_Q, W_K",
        description="Learn queries' and keys' projections apart (HDI is then that of the keys' W_K).",
    )
    batch: Int = Field(4, ge=1, le=256, title="batch", description="Training sets per step.")
    record_every: Int = Field(10, ge=1, le=20000, title="record every", description="Steps between records.")

    @model_validator(mode="after")
    def _rules(self) -> TrainingRequest:
        b = self.base
        if b.H < 2:
            raise ValueError("base.H: the training lab needs at least two heads")
        if self.init != "random" and b.ambient_dim != (b.H + 1) * b.d_k:
            raise ValueError(
                f"init: {self.init!r} places heads in blocks, which needs p = (H+1) d_k = {(b.H + 1) * b.d_k}; "
                f"base has p = {b.ambient_dim} (use init 'random' or a block geometry)"
            )
        if self.record_every > self.steps:
            raise ValueError(f"record_every: {self.record_every} is more than steps = {self.steps}")
        recorded = self.records * (b.H * b.H + LISTED_ANGLE_PAIRS * b.d_k)
        if recorded > MAX_RECORDED_NUMBERS:
            raise ValueError(
                f"record_every: {self.records} records of the overlaps and angles hold {recorded} numbers, over "
                f"{MAX_RECORDED_NUMBERS}; record less often"
            )
        scores = self.batch * b.H * b.queries * b.n
        if scores > MAX_STEP_SCORES:
            raise ValueError(
                f"batch: one step holds batch*H*queries*n = {scores} attention weights, over {MAX_STEP_SCORES}; "
                "lower batch, base.queries or base.n"
            )
        budget = get_engine_settings().max_job_work
        if self.work > budget:
            raise ValueError(
                f"work budget: this training needs {self.work:.3g} work units, over {budget:.3g}; most of it is "
                f"{dominant(self.cost_counts()).label}: lower steps, batch, base.replicates or raise record_every"
            )
        return self

    @property
    def records(self) -> int:
        """Records taken: at step 0, every `record_every` steps, and at the last step."""
        return self.steps // self.record_every + 1 + (self.steps % self.record_every != 0)

    @property
    def work(self) -> float:
        """Work units, as a simulation counts them (`cost.PARTS`)."""
        return work_of(self.cost_counts())

    def cost_counts(self) -> dict[str, float]:
        """Each part of the training's cost: its steps, its records and the run's fixed cost."""
        return summed(((self.steps, self._step_counts()), (self.records, self._record_counts()), (1, {"run": 1.0})))

    @property
    def step_work(self) -> float:
        """Work units of one step (what the engine reports as done after each)."""
        return work_of(self._step_counts())

    @property
    def record_work(self) -> float:
        """Work units of one record (its held-out replicates share them)."""
        return work_of(self._record_counts())

    def _step_counts(self) -> dict[str, float]:
        """One step: the batch's draws, its dense keys (x W_h over all p coordinates) and NW estimates,
        forward and backward (`BACKWARD_FACTOR`), the QR retraction and the penalty's overlaps, and a fixed
        cost (optimizer, autograd)."""
        b = self.base
        p, H, d, n, Q = b.ambient_dim, b.H, b.d_k, b.n, b.queries
        passes = BACKWARD_FACTOR * self.batch
        penalised = float(self.penalty > 0)
        return {
            "nw": passes * H * Q * n * (d + 3),
            "scores": passes * H * Q * n,
            "draws": self.batch * n * p,
            "keys": passes * (n + Q) * p * H * d,
            "layout": H * p * d * d * (1 + penalised * (1 + H)),
            "steps": 1.0,
        }

    def _record_counts(self) -> dict[str, float]:
        """One record: a held-out Monte Carlo of the base with the learnt (dense) heads, and the HDI report
        of their overlaps and angles."""
        b = self.base
        p, H, d, n, Q, R = b.ambient_dim, b.H, b.d_k, b.n, b.queries, float(b.replicates)
        return {
            "nw": R * H * Q * n * (d + 3),
            "scores": R * H * Q * n,
            "draws": R * n * p,
            "keys": R * (n + Q) * p * H * d,
            "moments": R * Q * H * H,
            "layout": H * H * p * d * d,
            "records": 1.0,
        }
