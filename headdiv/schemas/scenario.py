"""The scenario: the one schema shared by the engine, the CLI, the HTTP API and the dashboard's URL.

Every name, default, bound and cross-field rule of a simulation lives here or in the registry of the
concept it belongs to, so a value the URL accepts is a value the API accepts and the engine can run.
`ScenarioCore` holds the fields every scenario has; `Scenario` adds the parameters of every registered
geometry, kernel, bandwidth rule and weighting scheme (theta, tilts, ..., rho, beta) as fields of its
own, so a registry entry with a parameter is all it takes to make that parameter a key of the API,
the CLI and the URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    create_model,
    model_serializer,
    model_validator,
)

from headdiv.i18n import N_
from headdiv.schemas.bandwidths import BANDWIDTH_RULES
from headdiv.schemas.cost import dominant, scenario_counts, work_of
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.fields import Float, Int, Seed, StrictModel, Sweep
from headdiv.schemas.geometries import GEOMETRIES
from headdiv.schemas.kernels import KERNELS
from headdiv.schemas.registry import Choice, Registry
from headdiv.schemas.targets import TARGETS
from headdiv.schemas.weightings import WEIGHTINGS

CHOICES: dict[str, Registry[Any]] = {
    "geometry": GEOMETRIES,
    "target": TARGETS,
    "kernel": KERNELS,
    "bandwidth_rule": BANDWIDTH_RULES,
    "weights": WEIGHTINGS,
}
"""The scenario fields that choose an entry of a registry, and that registry."""

if TYPE_CHECKING:
    GeometryName = str
    TargetName = str
    KernelName = str
    BandwidthRuleName = str
    WeightsName = str
else:
    GeometryName = GEOMETRIES.literal()
    TargetName = TARGETS.literal()
    KernelName = KERNELS.literal()
    BandwidthRuleName = BANDWIDTH_RULES.literal()
    WeightsName = WEIGHTINGS.literal()
Signal = Literal["shared", "spread"]
Dependence = Literal["iid", "ar1"]
DEPENDENCE_FIELDS = ("dependence", "phi")
"""Left out of a scenario's JSON form when the tokens are independent (the default), so the job ids and
cache keys of every i.i.d. scenario are those it had before dependence was an option."""

MAX_REPLICATE_VALUES = 1 << 26
"""Values one training set may hold (X plus keys); a chunk is at least one training set."""


class ScenarioCore(StrictModel):
    """The fields of every scenario (docs/model.md): heads, data, kernel, weights and sample sizes."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"H": 8, "d_k": 4, "theta": 60, "replicates": 100}],
            # rules between fields, which JSON Schema cannot state (docs/api.md lists them too)
            "x-rules": [
                "phi > 0 only with dependence 'ar1'",
                "geometry 'tilted': tilts holds one angle per head (H entries)",
                "geometry 'shared_dims': shared_dims <= d_k",
                "geometry 'random': p >= d_k",
                "geometry 'random': p*H*d_k*min(p, H*d_k) <= 2^30 (one SVD that cannot be interrupted)",
                "work budget: the run's work units (docs/engine.md, What a run costs) <= HEADDIV_MAX_WORK (4e10 by default)",
                "replicates*H*queries <= HEADDIV_MAX_ESTIMATES (8388608 by default)",
                "one training set: n*(p + H*(d_k+2)) <= 2^26 values (p = (H+1)*d_k, or the field p for 'random')",
            ],
        }
    )

    H: Annotated[Int, Sweep((1, 2, 4, 8, 16))] = Field(
        4, ge=1, le=64, title=N_("heads H"), description=N_("Number of heads.")
    )
    d_k: Annotated[Int, Sweep((1, 2, 4, 8, 16))] = Field(
        4, ge=1, le=256, title=N_("head dimension d_k"), description=N_("Dimension of each head.")
    )
    n: Annotated[Int, Sweep((32, 64, 128, 256, 512, 1024))] = Field(
        256, ge=2, le=65536, title=N_("sample size n"), description=N_("Training sample size.")
    )
    dependence: Dependence = Field(
        "iid",
        title=N_("token dependence"),
        description=N_("Training inputs i.i.d., or an AR(1) chain x_i = φ x_(i-1) + √(1-φ²) z_i (stationary N(0, I))."),
    )
    phi: Annotated[Float, Sweep((0, 0.25, 0.5, 0.75, 0.9))] = Field(
        0.0,
        ge=0,
        lt=0.99,
        title=N_("AR(1) φ"),
        description=N_("Correlation of consecutive training inputs (dependence ar1)."),
    )
    geometry: GeometryName = Field(
        "equiangular", title=N_("geometry"), description=N_("How the heads' subspaces are placed.")
    )
    target: TargetName = Field("sine", title=N_("target f"), description=N_("Regression function f in m(x) = f(a.x)."))
    signal: Signal = Field("shared", title=N_("signal"), description=N_("Where the signal direction a lives."))
    noise: Annotated[Float, Sweep((0, 0.25, 0.5, 1, 2))] = Field(
        0.5, ge=0, le=100, title=N_("noise σ"), description=N_("Standard deviation of the response noise.")
    )
    kernel: KernelName = Field(
        "gaussian", title=N_("kernel"), description=N_("NW kernel: Gaussian, or Transformer softmax.")
    )
    bandwidth_rule: BandwidthRuleName = Field(
        "scott", title=N_("bandwidth rule"), description=N_("Bandwidth of the Gaussian kernel.")
    )
    weights: WeightsName = Field("uniform", title=N_("weights"), description=N_("How the heads are combined."))
    replicates: Annotated[Int, Sweep((20, 50, 100, 200))] = Field(
        200, ge=2, le=5000, title=N_("replicates R"), description=N_("Independent training sets R.")
    )
    queries: Int = Field(64, ge=1, le=1024, title=N_("query points"), description=N_("Fixed query points."))
    seed: Seed = Field(0, title=N_("seed"), description=N_("Seed of every random draw."))

    _work: float | None = PrivateAttr(None)
    """`work`, computed once: the budget check, the job's total, its batches and its progress all read it."""

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if not name.startswith("_"):
            self._work = None  # another scenario now: its cost is computed again

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copy = super().model_copy(update=update, deep=deep)
        if update:
            copy._work = None
        return copy

    @model_validator(mode="after")
    def _cross_field_rules(self, info: ValidationInfo) -> ScenarioCore:
        if self.dependence == "iid" and self.phi != 0:
            raise ValueError("phi: is used only with dependence 'ar1'; set dependence=ar1 or phi=0")
        for choice in self.choices():
            choice.check(self)
        limits = (info.context or {}) if info is not None else {}
        check_work(self, max_work=limits.get("max_work"), max_estimates=limits.get("max_estimates"))
        return self

    @model_serializer(mode="wrap")
    def _omit_iid(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.dependence == "iid":
            for name in DEPENDENCE_FIELDS:
                data.pop(name, None)
        return data

    @property
    def ar1_phi(self) -> float:
        """φ of the training inputs' AR(1) chain (0 for i.i.d. tokens)."""
        return float(self.phi) if self.dependence == "ar1" else 0.0

    def choices(self) -> list[Choice]:
        """The choice each choosing field names (its geometry, target, kernel, ...), with its parameters."""
        return [registry[getattr(self, field)].of(self) for field, registry in CHOICES.items()]

    @property
    def ambient_dim(self) -> int:
        """p of docs/model.md: (H + 1) d_k for the block geometries, the `p` field for `random`."""
        return GEOMETRIES[self.geometry].of(self).ambient_dim(self)

    def nw_shape(self) -> tuple[int, ...]:
        """(R, H, queries, n, d_k, p): scenarios of equal shapes can be simulated in one batch."""
        return (self.replicates, self.H, self.queries, self.n, self.d_k, self.ambient_dim)

    @property
    def work(self) -> float:
        """The cost measure of the work budget: every part of a run in work units (`cost.PARTS`: the NW
        steps, drawing the training sets, the key maps, the moments, fixed costs, building dense heads)."""
        private = self.__pydantic_private__  # read directly: the attribute lookup costs half the computation
        if private is None or private.get("_work") is None:
            self._work = work_of(self.cost_counts())
            return self._work
        return float(private["_work"])

    def cost_counts(self) -> dict[str, float]:
        """Each part of a run's cost in its own unit (`cost.PARTS`)."""
        return scenario_counts(self)

    def scenarios(self) -> list[Scenario]:
        """The simulations this request runs: itself (a surface or a sweep runs many)."""
        return [self]


def _build_scenario() -> type[ScenarioCore]:
    params: dict[str, Any] = {}
    for registry in CHOICES.values():
        for name, info in registry.param_fields().items():
            if name in params or name in ScenarioCore.model_fields:
                raise ValueError(f"scenario field {name!r} is declared twice")
            params[name] = (info.annotation, info)  # the FieldInfo carries the metadata: once, in order
    for registry in CHOICES.values():
        registry.close()  # a choice registered after this would be missing from the scenario
    return create_model("Scenario", __base__=ScenarioCore, __module__=__name__, **params)


if TYPE_CHECKING:
    Scenario = ScenarioCore
else:
    Scenario = _build_scenario()
    Scenario.__doc__ = "One Monte Carlo simulation: the ensemble's bias², variance and covariance, head by head."


def _field_order() -> tuple[str, ...]:
    order: list[str] = []
    for name in ScenarioCore.model_fields:
        order.append(name)
        if name in CHOICES:
            order.extend(CHOICES[name].param_fields())
    return tuple(order)


FIELD_ORDER: tuple[str, ...] = _field_order()
"""The scenario's fields as people read them: each choice followed by the parameters of its entries."""


def check_work(s: ScenarioCore, *, max_work: float | None = None, max_estimates: int | None = None) -> None:
    """Reject a scenario that would run too long or hold too much, naming the fields to lower."""
    settings = get_engine_settings()
    budget = settings.max_work if max_work is None else max_work
    per_set = s.n * (s.ambient_dim + s.H * (s.d_k + 2))
    if per_set > MAX_REPLICATE_VALUES:
        raise ValueError(
            f"work budget: one training set holds n*(p + H*(d_k+2)) = {per_set} values, over "
            f"{MAX_REPLICATE_VALUES}; lower n, H or d_k (or p)"
        )
    work = s.work
    if work > budget:
        part = dominant(s.cost_counts())
        raise ValueError(
            f"work budget: this run needs {work:.3g} work units, over {budget:.3g}; most of it is "
            f"{part.label} ({part.count}): lower {part.lower}"
        )
    cap = settings.max_estimates if max_estimates is None else max_estimates
    kept = s.replicates * s.H * s.queries
    if kept > cap:
        raise ValueError(
            f"work budget: replicates*H*queries = {kept} estimates exceeds {cap}; lower replicates, H or queries"
        )
