"""Bodies of the long computations (surfaces, architectures, diversity sweeps) and of the cheap ones.

Each request expands into the scenarios it will run at validation time, so a bad cell is reported
before anything is queued, by the same rules that guard a single simulation.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from workers.schemas.scenario import MAX_P, Float, Int, Scenario, StrictModel
from workers.settings import get_engine_settings

SweepParam = Literal[
    "H", "d_k", "n", "theta", "noise", "replicates", "shared_dims", "temperature", "bandwidth", "rho", "beta"
]
SWEEP_PARAMS: tuple[str, ...] = (
    "H",
    "d_k",
    "n",
    "theta",
    "noise",
    "replicates",
    "shared_dims",
    "temperature",
    "bandwidth",
    "rho",
    "beta",
)
INTEGER_PARAMS = frozenset({"H", "d_k", "n", "replicates", "shared_dims"})
MAX_AXIS_VALUES = 25
MAX_BUDGET = 64 * 256


def _scenario_with(base: Scenario, update: dict[str, Any], where: str) -> Scenario:
    """Validate `base` with `update` applied; a failure names the cell it came from."""
    data = base.model_dump()
    data.update(update)
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "scenario"
        raise ValueError(f"{where}: {field}: {first['msg']}") from None


def _check_total(scenarios: list[Scenario]) -> None:
    budget = get_engine_settings().max_job_work
    total = sum(s.work for s in scenarios)
    if total > budget:
        raise ValueError(
            f"work budget: the {len(scenarios)} runs together need {total:.3g} work units, over {budget:.3g}; "
            "use fewer values or lower replicates, queries or n in base"
        )


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


class SurfaceRequest(StrictModel):
    """A grid of simulations over two swept keys of the base scenario."""

    base: Scenario = Field(default_factory=Scenario)
    x: Axis
    y: Axis

    @model_validator(mode="after")
    def _cells(self) -> SurfaceRequest:
        if self.x.param == self.y.param:
            raise ValueError("y.param: must differ from x.param")
        _check_total(self.scenarios())
        return self

    def scenarios(self) -> list[Scenario]:
        """Row-major cells: index i * len(x) + j is at y[i], x[j]."""
        return [
            _scenario_with(
                self.base,
                {self.x.param: xv, self.y.param: yv},
                f"cell {self.x.param}={xv}, {self.y.param}={yv}",
            )
            for yv in self.y.values
            for xv in self.x.values
        ]


class ArchitectureRequest(StrictModel):
    """Every split H x d_k = budget of a fixed total head dimension."""

    base: Scenario = Field(default_factory=Scenario)
    budget: Int = Field(ge=1, le=MAX_BUDGET, description="Total dimension D = H * d_k.")

    @model_validator(mode="after")
    def _candidates(self) -> ArchitectureRequest:
        if self.base.geometry == "tilted":
            raise ValueError("base.geometry: 'tilted' fixes one tilt per head and cannot follow a changing H")
        if not self.splits():
            raise ValueError(f"budget: no split of {self.budget} has H <= 64 and d_k <= 256")
        _check_total(self.scenarios())
        return self

    def splits(self) -> list[tuple[int, int]]:
        """(H, d_k) for every divisor d_k of the budget inside the scenario's bounds, by d_k."""
        out = []
        for d_k in range(1, self.budget + 1):
            if self.budget % d_k == 0 and d_k <= 256 and self.budget // d_k <= 64:
                h = self.budget // d_k
                if self.base.geometry == "shared_dims" and self.base.shared_dims > d_k:
                    continue
                if self.base.geometry == "random" and self.base.p < d_k:
                    continue
                out.append((h, d_k))
        return out

    def scenarios(self) -> list[Scenario]:
        return [
            _scenario_with(self.base, {"H": h, "d_k": d_k, "tilts": None}, f"candidate H={h}, d_k={d_k}")
            for h, d_k in self.splits()
        ]


def _default_thetas() -> list[float]:
    return [float(t) for t in range(0, 91, 10)]


class DiversitySweepRequest(StrictModel):
    """Equiangular heads at a list of angles: MSE against HDI and the paper's bound (4.4)."""

    base: Scenario = Field(default_factory=Scenario)
    thetas: list[Float] = Field(default_factory=_default_thetas, min_length=2, max_length=91)

    @model_validator(mode="after")
    def _runs(self) -> DiversitySweepRequest:
        if any(not 0 <= t <= 90 for t in self.thetas):
            raise ValueError("thetas: every angle must lie in [0, 90] degrees")
        if self.base.H < 2:
            raise ValueError("base.H: a diversity sweep needs at least two heads")
        self.thetas = sorted(set(self.thetas))
        if len(self.thetas) < 2:
            raise ValueError("thetas: give at least two different angles")
        _check_total(self.scenarios())
        return self

    def scenarios(self) -> list[Scenario]:
        return [
            _scenario_with(self.base, {"theta": t, "geometry": "equiangular", "tilts": None}, f"theta={t}")
            for t in self.thetas
        ]


class HDIRequest(StrictModel):
    """Head matrices (each p x d_h, as nested lists) whose diversity is wanted."""

    matrices: list[list[list[Float]]] = Field(min_length=1, max_length=256)

    @model_validator(mode="after")
    def _shapes(self) -> HDIRequest:
        p = len(self.matrices[0])
        total = 0
        for i, m in enumerate(self.matrices):
            if len(m) != p:
                raise ValueError(f"matrices[{i}]: has {len(m)} rows, matrices[0] has {p}; all must share p")
            if not 1 <= p <= MAX_P:
                raise ValueError(f"matrices[{i}]: p = {p} rows, expected 1..{MAX_P}")
            widths = {len(row) for row in m}
            if len(widths) != 1:
                raise ValueError(f"matrices[{i}]: rows have different lengths {sorted(widths)}")
            d = widths.pop()
            if not 1 <= d <= p:
                raise ValueError(f"matrices[{i}]: has {d} columns; need 1 <= d <= p = {p}")
            total += p * d
        if total > 1 << 22:
            raise ValueError(f"matrices: {total} numbers in all, over {1 << 22}")
        return self


class TheoryQuery(StrictModel):
    """The closed-form architecture objective of MODEL.md section 7."""

    n: Int = Field(256, ge=2, le=10**12)
    budget: Int = Field(64, ge=1, le=MAX_BUDGET)
    c1: Float = Field(1.0, ge=0, le=1e12)
    c2: Float = Field(1.0, ge=0, le=1e12)
