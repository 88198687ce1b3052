"""Head Diversity Index, overlap and principal angles of any head matrices (MODEL.md section 6).

Pure float64 NumPy: these are small dense problems where accuracy matters more than speed, and the
same functions serve the simulation, the `/hdi` endpoint and trained models' weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def orthonormal_basis(w: Array, *, name: str = "matrix") -> Array:
    """An orthonormal basis of range(w); a rank-deficient head has no well-defined subspace of its size."""
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2 or w.shape[1] == 0 or w.shape[0] < w.shape[1]:
        raise ValueError(f"{name}: expected a p x d matrix with 1 <= d <= p, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name}: contains NaN or infinite entries")
    u, s, _ = np.linalg.svd(w, full_matrices=False)
    tol = max(w.shape) * np.finfo(np.float64).eps * (s[0] if s.size else 0.0)
    rank = int(np.sum(s > tol))
    if rank < w.shape[1]:
        raise ValueError(f"{name}: rank {rank} is below its {w.shape[1]} columns; a head must be full rank")
    return np.asarray(u[:, : w.shape[1]])


def principal_angles(qa: Array, qb: Array) -> Array:
    """Principal angles (radians, ascending) between the spans of two orthonormal bases.

    Cosines come from the singular values of qa^T qb; angles whose cosine is close to 1 are taken from
    the sines instead (singular values of the part of the narrower basis outside the other), because
    arccos loses all precision there - the same split scipy.linalg.subspace_angles makes.
    """
    if qa.shape[1] < qb.shape[1]:
        qa, qb = qb, qa
    cross = qa.T @ qb
    cos = np.clip(np.linalg.svd(cross, compute_uv=False), 0.0, 1.0)  # descending, len = qb cols
    sin = np.clip(np.linalg.svd(qb - qa @ cross, compute_uv=False), 0.0, 1.0)[::-1]  # ascending
    small = cos**2 >= 0.5
    return np.where(small, np.arcsin(sin[: cos.size]), np.arccos(cos))


def overlap(qa: Array, qb: Array) -> float:
    """s = ||qa^T qb||_F^2 / min(d_a, d_b): 1 when one span contains the other, 0 when orthogonal."""
    return float(np.sum((qa.T @ qb) ** 2) / min(qa.shape[1], qb.shape[1]))


def hdi_from_overlap(s: Array) -> float | None:
    """1 - mean off-diagonal overlap; undefined (None) for a single head."""
    h = s.shape[0]
    if h < 2:
        return None
    off = (np.sum(s) - np.trace(s)) / (h * (h - 1))
    return float(np.clip(1.0 - off, 0.0, 1.0))


def hdi(matrices: Sequence[Array]) -> float | None:
    """Head Diversity Index of MODEL.md section 6 (normalised overlap, not the paper's G / d_k)."""
    return hdi_report(matrices, max_angle_pairs=0)["hdi"]


def hdi_report(matrices: Sequence[Array], *, max_angle_pairs: int | None = None) -> dict[str, Any]:
    """HDI, the overlap matrix and principal angles (degrees) of each pair of head matrices.

    `max_angle_pairs` limits how many pairs get their angles listed (all by default); the HDI and the
    overlap matrix always use every pair.
    """
    bases = [orthonormal_basis(np.asarray(m, dtype=np.float64), name=f"matrices[{i}]") for i, m in enumerate(matrices)]
    p = {b.shape[0] for b in bases}
    if len(p) > 1:
        raise ValueError(f"matrices: all heads must share the ambient dimension p, got {sorted(p)}")
    h = len(bases)
    s = np.eye(h)
    angles: list[dict[str, Any]] = []
    for i in range(h):
        for j in range(i + 1, h):
            s[i, j] = s[j, i] = overlap(bases[i], bases[j])
            if max_angle_pairs is None or len(angles) < max_angle_pairs:
                deg = np.degrees(principal_angles(bases[i], bases[j]))
                angles.append({"pair": [i, j], "angles": deg.tolist()})
    return {"hdi": hdi_from_overlap(s), "overlap_matrix": s.tolist(), "principal_angles_deg": angles}
