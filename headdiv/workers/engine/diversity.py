"""Head Diversity Index, overlap and principal angles of any head matrices (docs/model.md section 6).

Pure float64 NumPy: these are small dense problems where accuracy matters more than speed, and the
same functions serve the simulation, the `/hdi` endpoint and trained models' weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from headdiv.schemas.report_queries import overlap_by_projectors
from headdiv.schemas.results.report_results import HdiReport
from headdiv.workers.engine.result_building import result_of

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
    """Head Diversity Index of docs/model.md section 6 (normalised overlap, not the paper's G / d_k)."""
    return hdi_report(matrices, max_angle_pairs=0).hdi


PAIRWISE_HEADS = 32
"""Up to this many heads the overlaps are taken pair by pair (the simulation's few heads keep exactly the
numbers they always had); beyond, all at once from one product (`overlap_matrix`)."""

ANGLE_BLOCK_VALUES = 1 << 22
"""Entries of the Gram block `overlap_matrix` holds at once (32 MB of float64)."""


class Stopped(Exception):
    """`should_stop()` said yes between two steps of `hdi_report`."""


def overlap_matrix(bases: Sequence[Array]) -> Array:
    """s_ij of every pair at once: ||Q_i^T Q_j||_F^2 / min(d_i, d_j), with s_ii = 1.

    Two equal ways, the cheaper one chosen: the Gram matrix of all bases side by side (Q^T Q, summed
    block by block: (sum d)^2 p multiply-adds), or the projectors P_i = Q_i Q_i^T flattened, since
    ||Q_i^T Q_j||^2 = <P_i, P_j> (h^2 p^2, better when heads are wide)."""
    h, p = len(bases), bases[0].shape[0]
    widths = np.array([b.shape[1] for b in bases])
    total = int(widths.sum())
    if overlap_by_projectors(p, widths.tolist()):
        flat = np.stack([(b @ b.T).ravel() for b in bases])
        s = flat @ flat.T
    else:
        q = np.concatenate(bases, axis=1)
        starts = np.concatenate(([0], np.cumsum(widths)[:-1]))
        s = np.empty((h, h))
        rows = max(1, ANGLE_BLOCK_VALUES // total)
        i = 0
        while i < h:
            j = i + 1
            while j < h and starts[j] + widths[j] - starts[i] <= rows:
                j += 1
            r0, r1 = starts[i], starts[j - 1] + widths[j - 1]
            g = q[:, r0:r1].T @ q
            g *= g
            s[i:j] = np.add.reduceat(np.add.reduceat(g, starts[i:j] - r0, axis=0), starts, axis=1)
            i = j
    s = (s + s.T) / 2 / np.minimum.outer(widths, widths)
    np.fill_diagonal(s, 1.0)
    return np.asarray(s)


def hdi_report(
    matrices: Sequence[Array],
    *,
    max_angle_pairs: int | None = None,
    max_angles: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> HdiReport:
    """HDI, the overlap matrix and principal angles (degrees) of each pair of head matrices.

    `max_angle_pairs` limits how many pairs get their angles listed, in row order (0, 1), (0, 2), ...
    (all by default), and `max_angles` how many angles they hold together; the HDI and the overlap
    matrix always use every pair. When a limit leaves pairs out, `principal_angles_note` says so.
    `should_stop` is asked between heads and between listed pairs; a yes raises `Stopped`.
    """

    def check() -> None:
        if should_stop is not None and should_stop():
            raise Stopped

    bases = []
    for i, m in enumerate(matrices):
        check()
        bases.append(orthonormal_basis(np.asarray(m, dtype=np.float64), name=f"matrices[{i}]"))
    p = {b.shape[0] for b in bases}
    if len(p) > 1:
        raise ValueError(f"matrices: all heads must share the ambient dimension p, got {sorted(p)}")
    h = len(bases)
    if h <= PAIRWISE_HEADS:
        s = np.eye(h)
        for i in range(h):
            for j in range(i + 1, h):
                s[i, j] = s[j, i] = overlap(bases[i], bases[j])
    else:
        check()
        s = overlap_matrix(bases)
    pairs = h * (h - 1) // 2
    listed = pairs if max_angle_pairs is None else min(pairs, max_angle_pairs)
    angles: list[dict[str, Any]] = []
    count = 0
    for i in range(h):
        for j in range(i + 1, h):
            if len(angles) >= listed:
                break
            size = min(bases[i].shape[1], bases[j].shape[1])
            if max_angles is not None and count + size > max_angles:
                listed = len(angles)
                break
            check()
            deg = np.degrees(principal_angles(bases[i], bases[j]))
            angles.append({"pair": [i, j], "angles": deg.tolist()})
            count += size
    report: dict[str, Any] = {"hdi": hdi_from_overlap(s), "overlap_matrix": s.tolist(), "principal_angles_deg": angles}
    if len(angles) < pairs and max_angle_pairs != 0:
        report["principal_angles_note"] = (
            f"principal angles are listed for the first {len(angles)} of {pairs} pairs, in row order (0, 1), "
            "(0, 2), ...; the HDI and the overlap matrix use every pair"
        )
    return result_of(HdiReport, report)
