"""Where each registered geometry puts the heads (docs/model.md section 2), as NumPy arrays.

The registry (`headdiv.schemas.geometries`) names the geometries and validates their parameters, and stays
free of array code because every door reads it; the arrays are the compute side's. Each geometry's builder
below returns one of two layouts the engine knows how to compute with (`headdiv.workers.engine.geometry`):

- `Blocks`: `R^p` is cut into H + 1 blocks of d_k coordinates (B_0 shared, B_h private to head h) and
  column j of W_h is `a[h, j] e_j(B_0) + b[h, j] e_col[h, j](B_h)`, so the p x d_k matrices are never built;
- `Dense`: arbitrary orthonormal heads, stacked as an (H, p, d_k) array.

A new geometry is its entry in the registry and its builder here (`@builds(Entry)`; a test checks that
every registered geometry has one).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from headdiv.schemas.geometries import GEOMETRIES, Equiangular, Geometry, RandomHeads, SharedDims, Tilted
from headdiv.schemas.scenario_fields import ScenarioFields

Normal = Callable[[tuple[int, ...]], np.ndarray]
"""Seeded float64 standard-normal draws of a given shape, supplied by the engine (reproducible per seed)."""


class HeadArrays:
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
class Blocks(HeadArrays):
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
class Dense(HeadArrays):
    """Arbitrary orthonormal heads, stacked as (H, p, d_k)."""

    w: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int]:
        h, p, d = self.w.shape
        return int(h), int(p), int(d)


Layout = Blocks | Dense

G = TypeVar("G", bound=Geometry)
Build = Callable[[G, ScenarioFields, Normal], Layout]

BUILDERS: dict[str, Callable[[Any, ScenarioFields, Normal], Layout]] = {}
"""Each registered geometry's name -> its builder: `normal(shape)` gives seeded float64 normal draws when
the geometry needs randomness."""


def builds(entry: type[G]) -> Callable[[Build[G]], Build[G]]:
    """Decorator: the builder of the registered geometry `entry`."""

    def add(build: Build[G]) -> Build[G]:
        if entry.name in BUILDERS:
            raise ValueError(f"geometry {entry.name!r} has two builders")
        BUILDERS[entry.name] = build
        return build

    return add


def build_layout(s: ScenarioFields, normal: Normal) -> Layout:
    """The heads of scenario `s`, as its geometry places them."""
    entry = GEOMETRIES[s.geometry]
    if entry.name not in BUILDERS:
        raise KeyError(f"geometry {entry.name!r} has no builder in {__name__} (`@builds`)")
    return BUILDERS[entry.name](entry.of(s), s, normal)


def equiangular_phi(theta_deg: float) -> float:
    """Tilt phi with cos(phi) = sqrt(cos(theta)), so every principal angle between two heads is theta."""
    return math.acos(math.sqrt(max(0.0, math.cos(math.radians(theta_deg)))))


def _tilted_blocks(H: int, d: int, phis: np.ndarray) -> Blocks:
    # theta = 90 gives cos(phi) = sqrt(6e-17): snap to the exact orthogonal heads it means.
    a = np.where(np.abs(np.cos(phis)) < 1e-7, 0.0, np.cos(phis))
    b = np.where(np.abs(np.sin(phis)) < 1e-15, 0.0, np.sin(phis))
    cols = np.broadcast_to(np.arange(d), (H, d)).copy()
    return Blocks(np.repeat(a[:, None], d, 1), np.repeat(b[:, None], d, 1), cols)


@builds(Equiangular)
def _equiangular(g: Equiangular, s: ScenarioFields, normal: Normal) -> Layout:
    return _tilted_blocks(s.H, s.d_k, np.full(s.H, equiangular_phi(g.theta)))


@builds(Tilted)
def _tilted(g: Tilted, s: ScenarioFields, normal: Normal) -> Layout:
    return _tilted_blocks(s.H, s.d_k, np.radians(np.asarray(g.tilts, dtype=np.float64)))


@builds(SharedDims)
def _shared_dims(g: SharedDims, s: ScenarioFields, normal: Normal) -> Layout:
    H, d, k = s.H, s.d_k, g.shared_dims
    shared = (np.arange(d) < k).astype(np.float64)
    col = np.where(np.arange(d) >= k, np.arange(d) - k, 0)
    return Blocks(np.tile(shared, (H, 1)), np.tile(1.0 - shared, (H, 1)), np.tile(col, (H, 1)))


@builds(RandomHeads)
def _random(g: RandomHeads, s: ScenarioFields, normal: Normal) -> Layout:
    raw = normal((s.H, g.p, s.d_k))
    return Dense(np.stack([np.linalg.qr(raw[h])[0] for h in range(s.H)]))
