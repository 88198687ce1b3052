"""Head geometries (docs/model.md section 2): where each head's key subspace sits, with controlled angles.

Each entry holds a geometry's parameters (fields added to the scenario), the rule it imposes between fields
(`check`), and what its heads cost; the heads themselves are built by the engine
(`headdiv.workers.engine.head_layouts`), so this table, which every door reads, holds no array code.
Adding a geometry is one registered class below and its builder there.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from headdiv.i18n import N_
from headdiv.schemas.fields import Float, Int, Sweep
from headdiv.schemas.registry import Choice, Registry
from headdiv.schemas.scenario_fields import ScenarioFields

MAX_P = 4096
"""Largest ambient dimension of a dense geometry (and of matrices sent to POST /hdi)."""
MAX_SVD_FLOPS = 1 << 30
"""Largest SVD of dense heads, p * D * min(p, D) flops for the p x D stack of all heads (D = H d_k): one
LAPACK call, which nothing can interrupt, so it is kept under about a second (0.5 s at p = D = 1024 on
one core here) and a cancel never waits on it for longer (bench/bench_cost.py's "cancel wait")."""


class Geometry(Choice):
    """Where each head's key subspace sits."""

    follows_heads: ClassVar[bool] = True
    """False when the geometry fixes one value per head, so a sweep that changes H cannot use it."""

    def ambient_dim(self, s: ScenarioFields) -> int:
        """p of docs/model.md: H + 1 blocks of d_k coordinates unless the geometry says otherwise."""
        return (s.H + 1) * s.d_k

    def layout_flops(self, s: ScenarioFields) -> float:
        """Flops of building the heads, their overlaps and the big head's basis (a part of a run's cost,
        `headdiv.schemas.cost`): none for block layouts, which are written down in closed form."""
        return 0.0

    def key_map_cost(self, s: ScenarioFields) -> tuple[float, float]:
        """(flops of matrix products, coordinates gathered elementwise) of mapping one point to the keys of
        every head and of the big head (docs/model.md section 4). A block head gathers its d_k coordinates
        from two blocks, elementwise; the big head mixes, for each of the d_k columns, the H + 1 blocks'
        coordinates into up to H big-head coordinates, a small product each."""
        return s.d_k * (s.H + 1) * s.H, 2.0 * s.H * s.d_k


GEOMETRIES: Registry[Geometry] = Registry("geometry", Geometry)


@GEOMETRIES.register("equiangular", N_("equiangular"))
class Equiangular(Geometry):
    """Every pair of heads at the same principal angle θ (θ = 0 identical, 90 orthogonal)."""

    theta: Annotated[Float, Sweep((0, 15, 30, 45, 60, 75, 90))] = Field(
        45.0,
        ge=0,
        le=90,
        title=N_("angle θ between heads (°)"),
        description=N_("Principal angle between every pair of heads (equiangular), degrees."),
    )


@GEOMETRIES.register("tilted", N_("tilted"))
class Tilted(Geometry):
    """Head h tilted by its own angle away from the shared block."""

    follows_heads = False
    tilts: list[Annotated[Float, Field(ge=0, le=90)]] | None = Field(
        None,
        max_length=64,
        title=N_("tilts per head (°)"),
        description=N_("One tilt angle per head in degrees (geometry 'tilted')."),
    )

    def check(self, s: ScenarioFields) -> None:
        if self.tilts is None:
            raise ValueError("tilts: geometry 'tilted' needs a list of H tilt angles in degrees")
        if len(self.tilts) != s.H:
            raise ValueError(f"tilts: has {len(self.tilts)} entries but H = {s.H}; give one angle per head")


@GEOMETRIES.register("shared_dims", N_("shared dimensions"))
class SharedDims(Geometry):
    """Every head keeps the same first dimensions and spends the rest on private ones."""

    shared_dims: Annotated[Int, Sweep((0, 1, 2, 3, 4))] = Field(
        1,
        ge=0,
        le=256,
        title=N_("shared dimensions"),
        description=N_("Dimensions every head shares (geometry 'shared_dims')."),
    )

    def check(self, s: ScenarioFields) -> None:
        if self.shared_dims > s.d_k:
            raise ValueError(f"shared_dims: {self.shared_dims} exceeds d_k = {s.d_k}")


@GEOMETRIES.register("random", N_("random"))
class RandomHeads(Geometry):
    """Uniformly random orthonormal heads in R^p (seeded)."""

    p: Int = Field(
        64,
        ge=1,
        le=MAX_P,
        title=N_("ambient dimension p (random)"),
        description=N_("Ambient dimension (geometry 'random')."),
    )

    def ambient_dim(self, s: ScenarioFields) -> int:
        return self.p

    def layout_flops(self, s: ScenarioFields) -> float:
        """Dense heads cost linear algebra before any NW step: the big head's basis is the SVD of the p x D
        stack of all heads (D = H d_k; p D min(p, D) flops), the overlaps one D x D product over p, each
        head a QR."""
        D = s.H * s.d_k
        return self.p * D * min(self.p, D) + 0.05 * self.p * D * D + s.H * self.p * s.d_k**2

    def key_map_cost(self, s: ScenarioFields) -> tuple[float, float]:
        """Dense maps: a p-vector times the p x D heads and the p x min(p, D) big head's basis."""
        D = s.H * s.d_k
        return self.p * (D + min(self.p, D)), 0.0

    def check(self, s: ScenarioFields) -> None:
        if self.p < s.d_k:
            raise ValueError(f"p: a {self.p}-dimensional space cannot hold a head of dimension d_k = {s.d_k}")
        D = s.H * s.d_k
        if self.p * D * min(self.p, D) > MAX_SVD_FLOPS:
            raise ValueError(
                f"p: the big head's basis is an SVD of the p x H*d_k = {self.p} x {D} stack of all heads, "
                f"{self.p * D * min(self.p, D):.3g} flops in one call that cannot be interrupted, over "
                f"{MAX_SVD_FLOPS:.3g}; lower p, H or d_k"
            )

    def notes(self, s: ScenarioFields) -> list[str]:
        if s.H * s.d_k > self.p:
            return [f"H*d_k = {s.H * s.d_k} > p = {self.p}: mutually orthogonal heads are impossible here"]
        return []
