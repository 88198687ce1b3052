"""Head projections as the engine computes with them (docs/model.md section 2).

`head_layouts` builds a scenario's heads as one of two layouts; this module gives each layout what the
Monte Carlo needs: keys of points, the overlap matrix, exact principal angles, and the basis of the big
head (one head spanning every head's subspace; its key map is built in `keymaps`). The block layout never
builds the p x d_k matrices: keys, overlaps, angles and the big head's basis all follow from the small
(H, d_k) coefficient arrays. The dense layout uses ordinary linear algebra.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from headdiv.schemas import Scenario
from headdiv.schemas.results.result_parts import AnglePair
from headdiv.workers.engine.diversity import hdi_from_overlap, hdi_report
from headdiv.workers.engine.head_layouts import Blocks, Dense, Normal, build_layout
from headdiv.workers.engine.sampling import RANDOM_GEOMETRY, seeded_generator

MAX_ANGLE_PAIRS = 28
"""Principal angles are listed for the pairs among the first 8 heads; HDI uses every pair."""


@dataclass(frozen=True)
class BlockGeometry(Blocks):
    """The block layout, computed on: W_h = U_0 diag(a_h) + U_h S_h."""

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
        pairs = [(h, g) for h in range(self.H) for g in range(h + 1, self.H)][:max_pairs]
        if not pairs:
            return []
        first, second = (np.array(side) for side in zip(*pairs, strict=True))
        a, b, a2, b2 = self.a[first], self.b[first], self.a[second], self.b[second]
        cross = np.sqrt((b * b2) ** 2 + (a * b2) ** 2 + (b * a2) ** 2)
        angles = np.sort(np.degrees(np.arctan2(cross, np.abs(a * a2))), axis=1).tolist()
        return [{"pair": [h, g], "angles": row} for (h, g), row in zip(pairs, angles, strict=True)]

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
class DenseGeometry(Dense):
    """The dense layout, computed on: arbitrary orthonormal heads (H, p, d_k)."""

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

    def principal_angles_deg(self, max_pairs: int = MAX_ANGLE_PAIRS) -> list[AnglePair]:
        return hdi_report(self.dense()[: min(self.H, 8)], max_angle_pairs=max_pairs).principal_angles_deg

    def big_head_basis(self, tol: float = 1e-10) -> np.ndarray:
        """Orthonormal basis (p x D) of the sum of all heads' subspaces."""
        flat = self.w.transpose(1, 0, 2).reshape(self.p, -1)
        u, s, _ = np.linalg.svd(flat, full_matrices=False)
        return np.asarray(u[:, s > tol * max(1.0, s.max())])


HeadLayout = BlockGeometry | DenseGeometry


def _normal(seed: int) -> Normal:
    """Seeded float64 normal draws for a geometry that needs randomness (the same for every device)."""
    gen = seeded_generator(seed, RANDOM_GEOMETRY, 0)
    return lambda shape: torch.randn(*shape, generator=gen, dtype=torch.float64).numpy()


def build_geometry(s: Scenario) -> HeadLayout:
    """The heads of scenario `s`, as its geometry places them."""
    layout = build_layout(s, _normal(s.seed))
    if isinstance(layout, Blocks):
        return BlockGeometry(layout.a, layout.b, layout.col)
    return DenseGeometry(layout.w)


def hdi_of(geometry: HeadLayout) -> float | None:
    return hdi_from_overlap(geometry.overlap_matrix())
