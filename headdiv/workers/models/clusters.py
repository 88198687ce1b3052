"""Heads of a trained layer clustered by their principal angles, and each head's diversity contribution.

The distance between two heads is 1 - s_hh', with s_hh' = ||Q_h^T Q_h'||_F^2 / min(d_h, d_h') the overlap of
docs/model.md section 6 (the mean squared cosine of their principal angles): 0 for heads spanning one
subspace, 1 for orthogonal ones. scipy's average-linkage clustering of that matrix gives the dendrogram and
the order in which the overlap heatmap is redrawn, so similar heads sit side by side.

A head's diversity contribution is HDI(layer) - HDI(layer without it): how much diversity the layer loses
when the head is pruned. The heads whose removal costs least (or even raises HDI) are the redundant ones,
a pruning forecast in the spirit of the paper's open problem 5.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.cluster.hierarchy import dendrogram, fcluster, linkage
from scipy.spatial.distance import squareform

LINKAGE = "average"
"""UPGMA: a cluster's distance to another is the mean distance of their heads (mean 1 - overlap)."""
CUT = 0.5
"""Heads merge into one flat cluster while their average overlap stays above 1 - CUT = 0.5."""
MAX_CLUSTER_HEADS = 256
"""Beyond this many heads a dendrogram is unreadable (and its coordinates large): clusters are left out."""


def distance_matrix(overlap: np.ndarray) -> np.ndarray:
    """1 - overlap, symmetrised, with an exact zero diagonal and clipped to [0, 1] (rounding)."""
    s = np.asarray(overlap, dtype=float)
    d = np.clip(1.0 - 0.5 * (s + s.T), 0.0, 1.0)
    np.fill_diagonal(d, 0.0)
    return d


def hdi_without(overlap: np.ndarray) -> np.ndarray:
    """HDI of the layer with each head removed in turn (None-free: needs at least three heads)."""
    s = np.asarray(overlap, dtype=float)
    h = s.shape[0]
    off = s.copy()
    np.fill_diagonal(off, 0.0)
    total = off.sum() / 2.0  # sum over pairs h < h'
    per_head = off.sum(axis=1)  # sum over the pairs each head is in
    pairs = (h - 1) * (h - 2) / 2.0
    return np.asarray(1.0 - (total - per_head) / pairs)


def head_clusters(overlap: np.ndarray, groups: list[int] | None = None) -> dict[str, Any] | None:
    """Dendrogram, leaf order, flat clusters and diversity contributions of the heads whose overlap matrix is
    given; `groups` labels each head's key group (grouped-query attention). None below three heads."""
    s = np.asarray(overlap, dtype=float)
    h = s.shape[0]
    if h < 3 or h > MAX_CLUSTER_HEADS:
        return None
    dist = distance_matrix(s)
    z = linkage(squareform(dist, checks=False), method=LINKAGE)
    tree = dendrogram(z, no_plot=True)
    off = s[~np.eye(h, dtype=bool)]
    layer_hdi = float(1.0 - off.mean())
    contribution = layer_hdi - hdi_without(s)
    return {
        "method": LINKAGE,
        "linkage": z.tolist(),
        "order": [int(i) for i in tree["leaves"]],
        "icoord": tree["icoord"],
        "dcoord": tree["dcoord"],
        "labels": [int(c) for c in fcluster(z, t=CUT, criterion="distance")],
        "cut": CUT,
        "groups": groups if groups is not None else list(range(h)),
        "hdi": layer_hdi,
        "contribution": contribution.tolist(),
        "redundant_first": [int(i) for i in np.argsort(contribution, kind="stable")],
    }


def query_groups(num_heads: int, num_kv_heads: int) -> list[int]:
    """The key group of each query head: grouped-query attention shares key head g among H / H_kv queries."""
    per_group = max(1, num_heads // max(1, num_kv_heads))
    return [h // per_group for h in range(num_heads)]
