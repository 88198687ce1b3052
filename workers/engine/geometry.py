"""Head projections W_h with controlled principal angles (MODEL.md section 2).

The block geometries never build the p x d_k matrices on the hot path: column j of W_h is
`a[h, j] * (column j of B_0) + b[h, j] * (column col[h, j] of B_h)`, so keys, overlaps, exact
principal angles and the big head's basis all follow from the small (H, d_k) coefficient arrays.
The `random` geometry is dense and handled with ordinary linear algebra.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from workers.engine.diversity import hdi_from_overlap, hdi_report
from workers.engine.sampling import RANDOM_GEOMETRY, seeded_generator
from workers.schemas import Scenario

MAX_ANGLE_PAIRS = 28
"""Principal angles are listed for the pairs among the first 8 heads; HDI uses every pair."""


@dataclass(frozen=True)
class BlockGeometry:
    """W_h = U_0 diag(a_h) + U_h S_h: head h mixes block B_0 with its private block B_h."""

    a: np.ndarray  # (H, d_k) weight of B_0's column j in W_h's column j
    b: np.ndarray  # (H, d_k) weight of the private column
    col: np.ndarray  # (H, d_k) int: which column of B_h W_h's column j uses (0 where b == 0)

    @property
    def H(self) -> int:
        return int(self.a.shape[0])

    @property
    def d_k(self) -> int:
        return int(self.a.shape[1])

    @property
    def p(self) -> int:
        return (self.H + 1) * self.d_k

    def keys(self, x: torch.Tensor) -> torch.Tensor:
        """(..., p) points -> (..., H, d_k) keys, elementwise on the blocks."""
        xb = x.unflatten(-1, (self.H + 1, self.d_k))
        a = torch.as_tensor(self.a, dtype=x.dtype, device=x.device)
        b = torch.as_tensor(self.b, dtype=x.dtype, device=x.device)
        priv = xb[..., 1:, :]
        if not np.array_equal(self.col, np.broadcast_to(np.arange(self.d_k), self.col.shape)):
            idx = torch.as_tensor(self.col, device=x.device).expand(*priv.shape[:-2], -1, -1)
            priv = torch.gather(priv, -1, idx)
        return a * xb[..., :1, :] + b * priv

    def overlap_matrix(self) -> np.ndarray:
        """s_hh' = ||W_h^T W_h'||_F^2 / d_k; W_h^T W_h' = diag(a_h * a_h') for h != h'."""
        a2 = self.a**2
        s = a2 @ a2.T / self.d_k
        np.fill_diagonal(s, 1.0)
        return s

    def principal_angles_deg(self, max_pairs: int = MAX_ANGLE_PAIRS) -> list[dict[str, Any]]:
        """Exact angles per column: the columns pair up one to one, so each angle is the angle
        between two unit vectors (a, b, 0) and (a', 0, b') in three dimensions (atan2 form, accurate
        for tiny and right angles alike)."""
        out: list[dict[str, Any]] = []
        for h in range(self.H):
            for g in range(h + 1, self.H):
                if len(out) >= max_pairs:
                    return out
                a, b, a2, b2 = self.a[h], self.b[h], self.a[g], self.b[g]
                cross = np.sqrt((b * b2) ** 2 + (a * b2) ** 2 + (b * a2) ** 2)
                ang = np.degrees(np.arctan2(cross, np.abs(a * a2)))
                out.append({"pair": [h, g], "angles": np.sort(ang).tolist()})
        return out

    def big_head_transform(self, tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
        """Per column j, a map from the H heads' key coordinates j to an orthonormal basis of their span.

        The Gram matrix of all heads' columns splits by column index j into H x H blocks
        M_j = a_j a_j^T + diag(b_j^2); with M_j = V L V^T, T_j = L^(-1/2) V^T maps stacked keys to
        coordinates in an orthonormal basis of the span. Returns T (d_k, H, H) with zero rows for
        null directions, and the boolean mask (d_k, H) of the rows that are kept.
        """
        t = np.zeros((self.d_k, self.H, self.H))
        keep = np.zeros((self.d_k, self.H), dtype=bool)
        for j in range(self.d_k):
            m = np.outer(self.a[:, j], self.a[:, j]) + np.diag(self.b[:, j] ** 2)
            lam, v = np.linalg.eigh(m)
            ok = lam > tol * max(1.0, lam.max())
            t[j, ok] = (v[:, ok] / np.sqrt(lam[ok])).T
            keep[j, ok] = True
        return t, keep


@dataclass(frozen=True)
class DenseGeometry:
    """Arbitrary orthonormal heads, stacked as (H, p, d_k)."""

    w: np.ndarray

    @property
    def H(self) -> int:
        return int(self.w.shape[0])

    @property
    def d_k(self) -> int:
        return int(self.w.shape[2])

    @property
    def p(self) -> int:
        return int(self.w.shape[1])

    def dense(self) -> list[np.ndarray]:
        return [self.w[h] for h in range(self.H)]

    def keys(self, x: torch.Tensor) -> torch.Tensor:
        flat = torch.as_tensor(self.w.transpose(1, 0, 2).reshape(self.p, -1), dtype=x.dtype, device=x.device)
        return (x @ flat).unflatten(-1, (self.H, self.d_k))

    def overlap_matrix(self) -> np.ndarray:
        flat = self.w.transpose(1, 0, 2).reshape(self.p, -1)
        g = (flat.T @ flat).reshape(self.H, self.d_k, self.H, self.d_k)
        s = np.einsum("hiaj->ha", g**2) / self.d_k
        np.fill_diagonal(s, 1.0)
        return np.asarray(s)

    def principal_angles_deg(self, max_pairs: int = MAX_ANGLE_PAIRS) -> list[dict[str, Any]]:
        report = hdi_report(self.dense()[: min(self.H, 8)], max_angle_pairs=max_pairs)
        return list(report["principal_angles_deg"])

    def big_head_basis(self, tol: float = 1e-10) -> np.ndarray:
        """Orthonormal basis (p x D) of the sum of all heads' subspaces."""
        flat = self.w.transpose(1, 0, 2).reshape(self.p, -1)
        u, s, _ = np.linalg.svd(flat, full_matrices=False)
        return np.asarray(u[:, s > tol * max(1.0, s.max())])


Geometry = BlockGeometry | DenseGeometry


def equiangular_phi(theta_deg: float) -> float:
    """Tilt phi with cos(phi) = sqrt(cos(theta)), so every principal angle between two heads is theta."""
    return math.acos(math.sqrt(max(0.0, math.cos(math.radians(theta_deg)))))


def build_geometry(s: Scenario) -> Geometry:
    """The heads of scenario `s` as MODEL.md section 2 places them."""
    H, d = s.H, s.d_k
    identity_cols = np.broadcast_to(np.arange(d), (H, d)).copy()
    if s.geometry in ("equiangular", "tilted"):
        if s.geometry == "equiangular":
            phis = np.full(H, equiangular_phi(s.theta))
        else:
            phis = np.radians(np.asarray(s.tilts, dtype=np.float64))
        # theta = 90 gives cos(phi) = sqrt(6e-17): snap to the exact orthogonal heads it means.
        a = np.where(np.abs(np.cos(phis)) < 1e-7, 0.0, np.cos(phis))
        b = np.where(np.abs(np.sin(phis)) < 1e-15, 0.0, np.sin(phis))
        return BlockGeometry(np.repeat(a[:, None], d, 1), np.repeat(b[:, None], d, 1), identity_cols)
    if s.geometry == "shared_dims":
        k = s.shared_dims
        shared = (np.arange(d) < k).astype(np.float64)
        col = np.where(np.arange(d) >= k, np.arange(d) - k, 0)
        return BlockGeometry(np.tile(shared, (H, 1)), np.tile(1.0 - shared, (H, 1)), np.tile(col, (H, 1)))
    gen = seeded_generator(s.seed, RANDOM_GEOMETRY, 0, torch.device("cpu"))
    raw = torch.randn(H, s.p, d, generator=gen, dtype=torch.float64).numpy()
    w = np.stack([np.linalg.qr(raw[h])[0] for h in range(H)])
    return DenseGeometry(w)


def hdi_of(geometry: Geometry) -> float | None:
    return hdi_from_overlap(geometry.overlap_matrix())
