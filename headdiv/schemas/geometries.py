"""Head geometries (docs/model.md section 2): where each head's key subspace sits, with controlled angles.

Each entry builds the heads of a scenario as one of two layouts the engine knows how to compute with:

- `Blocks`: `R^p` is cut into H + 1 blocks of d_k coordinates (B_0 shared, B_h private to head h) and
  column j of W_h is `a[h, j] e_j(B_0) + b[h, j] e_col[h, j](B_h)`, so the p x d_k matrices are never built;
- `Dense`: arbitrary orthonormal heads, stacked as an (H, p, d_k) array.

Adding a geometry is one registered class below: its parameters (fields added to the scenario), its
`build`, and the rule it imposes between fields (`check`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar

import numpy as np
from pydantic import Field

from headdiv.schemas.fields import Float, Int, Sweep
from headdiv.schemas.registry import Choice, Registry

if TYPE_CHECKING:
    from headdiv.schemas.scenario import ScenarioCore

MAX_P = 4096
"""Largest ambient dimension of a dense geometry (and of matrices sent to POST /hdi)."""
MAX_SVD_FLOPS = 1 << 30
"""Largest SVD of dense heads, p * D * min(p, D) flops for the p x D stack of all heads (D = H d_k): one
LAPACK call, which nothing can interrupt, so it is kept under about a second (0.5 s at p = D = 1024 on
one core here) and a cancel never waits on it for longer (bench/bench_cost.py's "cancel wait")."""

Normal = Callable[[tuple[int, ...]], np.ndarray]
"""Seeded float64 standard-normal draws of a given shape, supplied by the engine (reproducible per seed)."""


class HeadLayout:
    """H heads of dimension d_k in R^p, however they are stored."""

    @property
    def shape(self) -> tuple[int, int, int]:
        """(H, p, d_k)."""
        raise NotImplementedError

    @property
    def H(self) -> int:
        return self.shape[0]

    @property
    def p(self) -> int:
        return self.shape[1]

    @property
    def d_k(self) -> int:
        return self.shape[2]

    def spread_coordinates(self) -> list[int]:
        """Where a 'spread' signal lives. Without blocks to spread over, it is the first coordinate, as a
        'shared' one."""
        return [0]


@dataclass(frozen=True)
class Blocks(HeadLayout):
    """W_h = U_0 diag(a_h) + U_h S_h: head h mixes block B_0 with its private block B_h."""

    a: np.ndarray  # (H, d_k) weight of B_0's column j in W_h's column j
    b: np.ndarray  # (H, d_k) weight of the private column
    col: np.ndarray  # (H, d_k) int: which column of B_h W_h's column j uses (0 where b == 0)

    @property
    def shape(self) -> tuple[int, int, int]:
        h, d = self.a.shape
        return int(h), int((h + 1) * d), int(d)

    def spread_coordinates(self) -> list[int]:
        """The first coordinate of every block."""
        return list(range(0, self.p, self.d_k))


@dataclass(frozen=True)
class Dense(HeadLayout):
    """Arbitrary orthonormal heads, stacked as (H, p, d_k)."""

    w: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int]:
        h, p, d = self.w.shape
        return int(h), int(p), int(d)


Layout = Blocks | Dense


class Geometry(Choice):
    """Where each head's key subspace sits."""

    implements = ("build",)
    follows_heads: ClassVar[bool] = True
    """False when the geometry fixes one value per head, so a sweep that changes H cannot use it."""

    def build(self, s: ScenarioCore, normal: Normal) -> Layout:
        """The heads of the scenario; `normal(shape)` gives seeded float64 normal draws when randomness is needed."""
        raise NotImplementedError

    def ambient_dim(self, s: ScenarioCore) -> int:
        """p of docs/model.md: H + 1 blocks of d_k coordinates unless the geometry says otherwise."""
        return (s.H + 1) * s.d_k

    def layout_flops(self, s: ScenarioCore) -> float:
        """Flops of building the heads, their overlaps and the big head's basis (a part of a run's cost,
        `headdiv.schemas.cost`): none for block layouts, which are written down in closed form."""
        return 0.0

    def key_map_cost(self, s: ScenarioCore) -> tuple[float, float]:
        """(flops of matrix products, coordinates gathered elementwise) of mapping one point to the keys of
        every head and of the big head (docs/model.md section 4). A block head gathers its d_k coordinates
        from two blocks, elementwise; the big head mixes, for each of the d_k columns, the H + 1 blocks'
        coordinates into up to H big-head coordinates, a small product each."""
        return s.d_k * (s.H + 1) * s.H, 2.0 * s.H * s.d_k


GEOMETRIES: Registry[Geometry] = Registry("geometry", Geometry)


def equiangular_phi(theta_deg: float) -> float:
    """Tilt phi with cos(phi) = sqrt(cos(theta)), so every principal angle between two heads is theta."""
    return math.acos(math.sqrt(max(0.0, math.cos(math.radians(theta_deg)))))


def _tilted_blocks(H: int, d: int, phis: np.ndarray) -> Blocks:
    # theta = 90 gives cos(phi) = sqrt(6e-17): snap to the exact orthogonal heads it means.
    a = np.where(np.abs(np.cos(phis)) < 1e-7, 0.0, np.cos(phis))
    b = np.where(np.abs(np.sin(phis)) < 1e-15, 0.0, np.sin(phis))
    cols = np.broadcast_to(np.arange(d), (H, d)).copy()
    return Blocks(np.repeat(a[:, None], d, 1), np.repeat(b[:, None], d, 1), cols)


@GEOMETRIES.register("equiangular", "equiangular")
class Equiangular(Geometry):
    """Every pair of heads at the same principal angle θ (θ = 0 identical, 90 orthogonal)."""

    theta: Annotated[Float, Sweep((0, 15, 30, 45, 60, 75, 90))] = Field(
        45.0,
        ge=0,
        le=90,
        title="angle θ between heads (°)",
        description="Principal angle between every pair of heads (equiangular), degrees.",
    )

    def build(self, s: ScenarioCore, normal: Normal) -> Layout:
        return _tilted_blocks(s.H, s.d_k, np.full(s.H, equiangular_phi(self.theta)))


@GEOMETRIES.register("tilted", "tilted")
class Tilted(Geometry):
    """Head h tilted by its own angle away from the shared block."""

    follows_heads = False
    tilts: list[Annotated[Float, Field(ge=0, le=90)]] | None = Field(
        None,
        max_length=64,
        title="tilts per head (°)",
        description="One tilt angle per head in degrees (geometry 'tilted').",
    )

    def build(self, s: ScenarioCore, normal: Normal) -> Layout:
        return _tilted_blocks(s.H, s.d_k, np.radians(np.asarray(self.tilts, dtype=np.float64)))

    def check(self, s: ScenarioCore) -> None:
        if self.tilts is None:
            raise ValueError("tilts: geometry 'tilted' needs a list of H tilt angles in degrees")
        if len(self.tilts) != s.H:
            raise ValueError(f"tilts: has {len(self.tilts)} entries but H = {s.H}; give one angle per head")


@GEOMETRIES.register("shared_dims", "shared dimensions")
class SharedDims(Geometry):
    """Every head keeps the same first dimensions and spends the rest on private ones."""

    shared_dims: Annotated[Int, Sweep((0, 1, 2, 3, 4))] = Field(
        1, ge=0, le=256, title="shared dimensions", description="Dimensions every head shares (geometry 'shared_dims')."
    )

    def build(self, s: ScenarioCore, normal: Normal) -> Layout:
        H, d, k = s.H, s.d_k, self.shared_dims
        shared = (np.arange(d) < k).astype(np.float64)
        col = np.where(np.arange(d) >= k, np.arange(d) - k, 0)
        return Blocks(np.tile(shared, (H, 1)), np.tile(1.0 - shared, (H, 1)), np.tile(col, (H, 1)))

    def check(self, s: ScenarioCore) -> None:
        if self.shared_dims > s.d_k:
            raise ValueError(f"shared_dims: {self.shared_dims} exceeds d_k = {s.d_k}")


@GEOMETRIES.register("random", "random")
class RandomHeads(Geometry):
    """Uniformly random orthonormal heads in R^p (seeded)."""

    p: Int = Field(
        64, ge=1, le=MAX_P, title="ambient dimension p (random)", description="Ambient dimension (geometry 'random')."
    )

    def build(self, s: ScenarioCore, normal: Normal) -> Layout:
        raw = normal((s.H, self.p, s.d_k))
        return Dense(np.stack([np.linalg.qr(raw[h])[0] for h in range(s.H)]))

    def ambient_dim(self, s: ScenarioCore) -> int:
        return self.p

    def layout_flops(self, s: ScenarioCore) -> float:
        """Dense heads cost linear algebra before any NW step: the big head's basis is the SVD of the p x D
        stack of all heads (D = H d_k; p D min(p, D) flops), the overlaps one D x D product over p, each
        head a QR."""
        D = s.H * s.d_k
        return self.p * D * min(self.p, D) + 0.05 * self.p * D * D + s.H * self.p * s.d_k**2

    def key_map_cost(self, s: ScenarioCore) -> tuple[float, float]:
        """Dense maps: a p-vector times the p x D heads and the p x min(p, D) big head's basis."""
        D = s.H * s.d_k
        return self.p * (D + min(self.p, D)), 0.0

    def check(self, s: ScenarioCore) -> None:
        if self.p < s.d_k:
            raise ValueError(f"p: a {self.p}-dimensional space cannot hold a head of dimension d_k = {s.d_k}")
        D = s.H * s.d_k
        if self.p * D * min(self.p, D) > MAX_SVD_FLOPS:
            raise ValueError(
                f"p: the big head's basis is an SVD of the p x H*d_k = {self.p} x {D} stack of all heads, "
                f"{self.p * D * min(self.p, D):.3g} flops in one call that cannot be interrupted, over "
                f"{MAX_SVD_FLOPS:.3g}; lower p, H or d_k"
            )

    def notes(self, s: ScenarioCore) -> list[str]:
        if s.H * s.d_k > self.p:
            return [f"H*d_k = {s.H * s.d_k} > p = {self.p}: mutually orthogonal heads are impossible here"]
        return []
