"""The scenario: the one schema shared by the engine, the CLI, the HTTP API and the dashboard's URL.

Every name, default, bound and cross-field rule of a simulation lives here and nowhere else, so a
value the URL accepts is a value the API accepts and a value the engine can run.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, model_validator

from workers.settings import get_engine_settings

Geometry = Literal["equiangular", "tilted", "shared_dims", "random"]
Target = Literal["constant", "linear", "sine", "quadratic"]
Signal = Literal["shared", "spread"]
Kernel = Literal["gaussian", "softmax"]
BandwidthRule = Literal["paper", "scott", "fixed"]
Weights = Literal["uniform", "geometric", "fibonacci", "optimal", "maw"]

GEOMETRIES: tuple[str, ...] = ("equiangular", "tilted", "shared_dims", "random")
TARGETS: tuple[str, ...] = ("constant", "linear", "sine", "quadratic")
SIGNALS: tuple[str, ...] = ("shared", "spread")
KERNELS: tuple[str, ...] = ("gaussian", "softmax")
BANDWIDTH_RULES: tuple[str, ...] = ("paper", "scott", "fixed")
WEIGHTS: tuple[str, ...] = ("uniform", "geometric", "fibonacci", "optimal", "maw")


def _reject_bool(value: Any) -> Any:
    """JSON `true` is not the number 1: a boolean where a number belongs is a client bug."""
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    return value


Int = Annotated[int, BeforeValidator(_reject_bool)]
Float = Annotated[float, BeforeValidator(_reject_bool)]

MAX_P = 4096
MAX_REPLICATE_VALUES = 1 << 26
"""Values one training set may hold (X plus keys); a chunk is at least one training set."""


class StrictModel(BaseModel):
    """Base for every request body: unknown keys and non-finite floats are errors, not surprises."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, validate_default=True)


class Scenario(StrictModel):
    """One Monte Carlo experiment of MODEL.md: heads, data, kernel, weights and sample sizes."""

    H: Int = Field(4, ge=1, le=64, description="Number of heads.")
    d_k: Int = Field(4, ge=1, le=256, description="Dimension of each head.")
    n: Int = Field(256, ge=2, le=65536, description="Training sample size.")
    theta: Float = Field(
        45.0, ge=0, le=90, description="Principal angle between every pair of heads (equiangular), degrees."
    )
    geometry: Geometry = Field("equiangular", description="How the heads' subspaces are placed.")
    tilts: list[Annotated[Float, Field(ge=0, le=90)]] | None = Field(
        None, description="One tilt angle per head in degrees (geometry 'tilted').", max_length=64
    )
    shared_dims: Int = Field(1, ge=0, le=256, description="Dimensions every head shares (geometry 'shared_dims').")
    p: Int = Field(64, ge=1, le=MAX_P, description="Ambient dimension (geometry 'random').")
    target: Target = Field("sine", description="Regression function f in m(x) = f(a.x).")
    signal: Signal = Field("shared", description="Where the signal direction a lives.")
    noise: Float = Field(0.5, ge=0, le=100, description="Standard deviation of the response noise.")
    kernel: Kernel = Field("gaussian", description="NW kernel: Gaussian, or Transformer softmax.")
    bandwidth_rule: BandwidthRule = Field("scott", description="Bandwidth of the Gaussian kernel.")
    bandwidth: Float = Field(1.0, ge=1e-3, le=1e3, description="Bandwidth for bandwidth_rule 'fixed'.")
    temperature: Float = Field(1.0, ge=1e-2, le=1e3, description="Softmax temperature (kernel 'softmax').")
    weights: Weights = Field("uniform", description="How the heads are combined.")
    rho: Float = Field(0.7, gt=0, le=1, description="Ratio of geometric weights.")
    beta: Float = Field(0.5, ge=0, le=100, description="MAW gating strength; sharpness is 1 + 10 beta.")
    replicates: Int = Field(200, ge=2, le=5000, description="Independent training sets R.")
    queries: Int = Field(64, ge=1, le=1024, description="Fixed query points.")
    seed: Int = Field(0, ge=0, le=2**32 - 1, description="Seed of every random draw.")

    @model_validator(mode="after")
    def _cross_field_rules(self, info: ValidationInfo) -> Scenario:
        if self.geometry == "tilted":
            if self.tilts is None:
                raise ValueError("tilts: geometry 'tilted' needs a list of H tilt angles in degrees")
            if len(self.tilts) != self.H:
                raise ValueError(f"tilts: has {len(self.tilts)} entries but H = {self.H}; give one angle per head")
        if self.geometry == "shared_dims" and self.shared_dims > self.d_k:
            raise ValueError(f"shared_dims: {self.shared_dims} exceeds d_k = {self.d_k}")
        if self.geometry == "random" and self.p < self.d_k:
            raise ValueError(f"p: a {self.p}-dimensional space cannot hold a head of dimension d_k = {self.d_k}")
        limits = (info.context or {}) if info is not None else {}
        check_work(self, max_work=limits.get("max_work"), max_estimates=limits.get("max_estimates"))
        return self

    @property
    def ambient_dim(self) -> int:
        """p of MODEL.md: (H + 1) d_k for the block geometries, the `p` field for `random`."""
        return self.p if self.geometry == "random" else (self.H + 1) * self.d_k

    @property
    def work(self) -> float:
        """The cost measure of the work budget: R * H * queries * n * (d_k + 3)."""
        return float(self.replicates) * self.H * self.queries * self.n * (self.d_k + 3)

    def canonical(self) -> dict[str, Any]:
        """Normalised JSON form (defaults filled, sorted keys): the basis of job ids and cache keys."""
        return dict(sorted(self.model_dump(mode="json").items()))


def check_work(s: Scenario, *, max_work: float | None = None, max_estimates: int | None = None) -> None:
    """Reject a scenario that would run too long or hold too much, naming the fields to lower."""
    settings = get_engine_settings()
    budget = settings.max_work if max_work is None else max_work
    if s.work > budget:
        raise ValueError(
            f"work budget: replicates*H*queries*n*(d_k+3) = {s.work:.3g} exceeds {budget:.3g}; "
            "lower replicates, H, queries, n or d_k"
        )
    cap = settings.max_estimates if max_estimates is None else max_estimates
    kept = s.replicates * s.H * s.queries
    if kept > cap:
        raise ValueError(
            f"work budget: replicates*H*queries = {kept} estimates exceeds {cap}; lower replicates, H or queries"
        )
    per_set = s.n * (s.ambient_dim + s.H * (s.d_k + 2))
    if per_set > MAX_REPLICATE_VALUES:
        raise ValueError(
            f"work budget: one training set holds n*(p + H*(d_k+2)) = {per_set} values, over "
            f"{MAX_REPLICATE_VALUES}; lower n, H or d_k (or p)"
        )
