"""Bodies of the long computations (surfaces, architectures, diversity sweeps, the covariance lab); the
cheap reports' queries are in `report_queries`.

Each long request expands into the scenarios it will run once, at validation time, so a bad cell is
reported before anything is queued (by the same rules that guard a single simulation) and the runner
gets the cells already validated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, Field, PrivateAttr, Strict, ValidationError, model_validator

from headdiv.schemas.cost import summed, work_of
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.fields import Float, Int, StrictModel, Sweep, field_bounds, first_error, hint
from headdiv.schemas.geometries import GEOMETRIES
from headdiv.schemas.scenario import FIELD_ORDER, Scenario

SWEEP_PARAMS: tuple[str, ...] = tuple(n for n in FIELD_ORDER if hint(Scenario.model_fields[n], Sweep) is not None)
"""Scenario fields a surface may sweep: those carrying a `Sweep` hint, in reading order."""
INTEGER_PARAMS = frozenset(n for n in SWEEP_PARAMS if Scenario.model_fields[n].annotation is int)
if TYPE_CHECKING:
    SweepParam = str
else:
    from typing import Literal

    SweepParam = Literal[SWEEP_PARAMS]
MAX_AXIS_VALUES = 25
MAX_BUDGET = 64 * 256
MAX_SCENARIO_HEADS = int(field_bounds(Scenario.model_fields["H"]).hi or 0)
MAX_D_K = int(field_bounds(Scenario.model_fields["d_k"]).hi or 0)


def default_grid(param: str) -> list[float]:
    """The axis a surface uses for `param` when no values are given."""
    sweep = hint(Scenario.model_fields[param], Sweep)
    if sweep is None:
        raise KeyError(f"{param!r} is not a sweepable scenario field; expected one of {', '.join(SWEEP_PARAMS)}")
    return list(sweep.grid)


def _scenario_with(base: Scenario, update: dict[str, Any], where: str) -> Scenario:
    """Validate `base` with `update` applied; a failure names the cell it came from."""
    try:
        return Scenario.model_validate({**base.model_dump(), **update})
    except ValidationError as exc:
        raise ValueError(f"{where}: {first_error(exc)}") from None


def _check_total(scenarios: list[Scenario]) -> None:
    budget = get_engine_settings().max_job_work
    total = sum(s.work for s in scenarios)
    if total > budget:
        raise ValueError(
            f"work budget: the {len(scenarios)} runs together need {total:.3g} work units, over {budget:.3g}; "
            "use fewer values or lower replicates, queries or n in base"
        )


class ExpandedRequest(StrictModel):
    """A request that runs many scenarios, expanded and checked against the job budget once, when validated."""

    _cells: list[Scenario] = PrivateAttr(default_factory=list)

    def expand(self) -> list[Scenario]:
        raise NotImplementedError

    @model_validator(mode="after")
    def _expand_cells(self) -> ExpandedRequest:
        self._cells = self.expand()
        _check_total(self._cells)
        return self

    def scenarios(self) -> list[Scenario]:
        """The simulations this request runs, in the order its result lists them."""
        return list(self._cells)


class CellsRequest(ExpandedRequest):
    """A request made of many simulations computed as cells: each a cached simulation in its own right."""


def equiangular_cells(base: Scenario, thetas: list[float]) -> list[Scenario]:
    """`base` with equiangular heads at each angle (its geometry and tilts replaced), in the order given."""
    update = {"geometry": "equiangular", "tilts": None}
    return [_scenario_with(base, {**update, "theta": t}, f"theta={t}") for t in thetas]


class Axis(StrictModel):
    param: SweepParam
    values: list[Float] = Field(min_length=1, max_length=MAX_AXIS_VALUES)

    @model_validator(mode="after")
    def _integral(self) -> Axis:
        if self.param in INTEGER_PARAMS:
            bad = [v for v in self.values if float(v) != int(v)]
            if bad:
                raise ValueError(f"values: {self.param} takes whole numbers, got {bad[0]}")
            self.values = [int(v) for v in self.values]
        return self


class SurfaceRequest(CellsRequest):
    """A grid of simulations over two swept keys of the base scenario."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"x": {"param": "theta", "values": [0, 45, 90]}, "y": {"param": "H", "values": [2, 4]}}],
            "x-rules": [
                "y.param differs from x.param",
                "values of a whole-number parameter (H, d_k, n, replicates, shared_dims, p) are whole numbers",
                "every cell (base with the two values set) is a valid scenario",
                "the cells' work together <= HEADDIV_MAX_JOB_WORK (4e11 by default)",
            ],
        }
    )

    base: Scenario = Field(default_factory=Scenario)
    x: Axis
    y: Axis

    def expand(self) -> list[Scenario]:
        """Row-major cells: index i * len(x) + j is at y[i], x[j]."""
        if self.x.param == self.y.param:
            raise ValueError("y.param: must differ from x.param")
        return [
            _scenario_with(
                self.base,
                {self.x.param: xv, self.y.param: yv},
                f"cell {self.x.param}={xv}, {self.y.param}={yv}",
            )
            for yv in self.y.values
            for xv in self.x.values
        ]


class ArchitectureRequest(CellsRequest):
    """Every split H x d_k = budget of a fixed total head dimension, and the best one."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"budget": 16, "base": {"replicates": 50}}],
            "x-rules": [
                "base.geometry can follow a change of H (not 'tilted')",
                f"at least one split H x d_k = budget with H <= {MAX_SCENARIO_HEADS}, d_k <= {MAX_D_K} that the geometry allows",
                "every candidate is a valid scenario; their work together <= HEADDIV_MAX_JOB_WORK",
            ],
        }
    )

    base: Scenario = Field(default_factory=Scenario)
    budget: Int = Field(ge=1, le=MAX_BUDGET, description="Total dimension D = H * d_k.")

    def expand(self) -> list[Scenario]:
        geometry = GEOMETRIES[self.base.geometry]
        if not geometry.follows_heads:
            raise ValueError(
                f"base.geometry: {geometry.name!r} fixes one value per head and cannot follow a changing H"
            )
        splits = self.splits()
        if not splits:
            raise ValueError(f"budget: no split of {self.budget} has H <= {MAX_SCENARIO_HEADS} and d_k <= {MAX_D_K}")
        # tilts are one per head: they cannot survive a change of H
        update = {"tilts": None}
        return [_scenario_with(self.base, {**update, "H": h, "d_k": d}, f"candidate H={h}, d_k={d}") for h, d in splits]

    def splits(self) -> list[tuple[int, int]]:
        """(H, d_k) for every divisor d_k of the budget that the bounds and the base's geometry allow, by d_k."""
        geometry = GEOMETRIES[self.base.geometry].of(self.base)
        out = []
        for d_k in range(1, min(self.budget, MAX_D_K) + 1):
            h = self.budget // d_k
            if self.budget % d_k or h > MAX_SCENARIO_HEADS:
                continue
            try:
                geometry.check(self.base.model_copy(update={"H": h, "d_k": d_k}))
            except ValueError:
                continue
            out.append((h, d_k))
        return out


def _default_thetas() -> list[float]:
    return [float(t) for t in range(0, 91, 10)]


class DiversitySweepRequest(CellsRequest):
    """Equiangular heads at a list of angles: MSE against HDI and the paper's bound (4.4)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"thetas": [0, 30, 60, 90], "base": {"replicates": 50}}],
            "x-rules": [
                "base.H >= 2",
                "at least two different angles",
                "every angle's scenario is valid; their work together <= HEADDIV_MAX_JOB_WORK",
            ],
        }
    )

    base: Scenario = Field(default_factory=Scenario)
    thetas: list[Annotated[float, Field(ge=0, le=90), Strict()]] = Field(
        default_factory=_default_thetas, min_length=2, max_length=91, description="Angles in degrees, 0 to 90."
    )

    def expand(self) -> list[Scenario]:
        if any(not 0 <= t <= 90 for t in self.thetas):
            raise ValueError("thetas: every angle must lie in [0, 90] degrees")
        if self.base.H < 2:
            raise ValueError("base.H: a diversity sweep needs at least two heads")
        self.thetas = sorted(set(self.thetas))
        if len(self.thetas) < 2:
            raise ValueError("thetas: give at least two different angles")
        return equiangular_cells(self.base, self.thetas)


def _covariance_thetas() -> list[float]:
    return [float(t) for t in range(0, 91, 15)]


MAX_COVARIANCE_HEADS = 16
"""Heads of a covariance lab run: it keeps every pair's weight overlaps, H² per query and replicate."""


class CovarianceRequest(ExpandedRequest):
    """Inter-head covariance against Lemma 4.1: measured, shared-noise and signal parts, and the bound, over θ."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"thetas": [0, 45, 90], "base": {"H": 3, "target": "constant", "replicates": 100}}],
            "x-rules": [
                f"2 <= base.H <= {MAX_COVARIANCE_HEADS}",
                "at least one angle, each in [0, 90]; base.geometry is replaced by 'equiangular' at each angle",
                "every angle's scenario is valid; their work together <= HEADDIV_MAX_JOB_WORK",
            ],
        }
    )

    base: Scenario = Field(default_factory=lambda: Scenario(H=3, target="constant"))
    thetas: list[Annotated[float, Field(ge=0, le=90), Strict()]] = Field(
        default_factory=_covariance_thetas, min_length=1, max_length=91, description="Angles in degrees, 0 to 90."
    )

    def expand(self) -> list[Scenario]:
        """One equiangular scenario per angle, in the order of `thetas` (sorted)."""
        if not 2 <= self.base.H <= MAX_COVARIANCE_HEADS:
            raise ValueError(f"base.H: the covariance lab needs 2 to {MAX_COVARIANCE_HEADS} heads")
        self.thetas = sorted(set(self.thetas))
        return equiangular_cells(self.base, self.thetas)

    @property
    def work(self) -> float:
        """Work units: the angles' simulations, plus every pair's weight overlaps (H per head and query)."""
        return work_of(self.cost_counts())

    def cost_counts(self) -> dict[str, float]:
        """Each part of the lab's cost (`cost.PARTS`): its angles' simulations, whose NW steps also
        accumulate every pair's weight overlaps (H more per head, query and training point)."""

        def with_overlaps(s: Scenario) -> dict[str, float]:
            counts = s.cost_counts()
            return {**counts, "nw": counts["nw"] * (1 + s.H / (s.d_k + 3))}

        return summed((1.0, with_overlaps(s)) for s in self._cells)
