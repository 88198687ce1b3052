"""HDI of a trained model's key and query heads, layer by layer, against random subspaces.

A trained layer's HDI means little alone: independent random d_k-dimensional subspaces of R^p already
overlap by d_k / p on average (HDI about 1 - d_k / p), so each layer is reported beside the HDI of
seeded random subspaces of the same shapes.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from workers.engine.diversity import hdi, hdi_report
from workers.models.errors import ModelFileError
from workers.models.head_counts import resolve_head_counts
from workers.models.heads import split_gpt2_c_attn, split_heads
from workers.models.naming import LayerTensors, detect_layout
from workers.models.safetensors_file import load_matrices, read_header

MAX_ANGLE_PAIRS = 496
"""Principal angles are listed for at most this many key-head pairs per layer (all pairs of 32 heads)."""


def random_subspace_hdi(n_heads: int, p: int, d_k: int, *, seed: int, layer: int) -> float | None:
    """HDI of n_heads Gaussian p x d_k matrices (uniformly random subspaces), seeded per (seed, layer)."""
    rng = np.random.default_rng([seed, layer])
    return hdi([rng.standard_normal((p, d_k)) for _ in range(n_heads)])


def _layer_heads(style: str, lt: LayerTensors, mats: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if style == "gpt2":
        return split_gpt2_c_attn(mats[lt.query])
    return mats[lt.query], mats[lt.key]


def _hdi_or_error(what: str, heads: list[np.ndarray], **kwargs: Any) -> dict[str, Any]:
    try:
        return hdi_report(heads, **kwargs)
    except ValueError as exc:
        raise ModelFileError(f"{what}: {exc}") from exc


def model_hdi(
    path: str | os.PathLike[str],
    *,
    num_heads: int | None = None,
    num_kv_heads: int | None = None,
    seed: int = 0,
    model: str | None = None,
) -> dict[str, Any]:
    """Per-layer key/query HDI of a safetensors file; raises ModelFileError saying what is wrong.

    Header, names, shapes and head counts are all checked before any weight is loaded; then each
    layer's two tensors are loaded, checked finite, split into heads and measured.
    """
    header = read_header(path)
    layout = detect_layout(header.tensors)
    counts = resolve_head_counts(layout, header.metadata, num_heads, num_kv_heads)
    layers: list[dict[str, Any]] = []
    for lt in layout.layers:
        mats = load_matrices(path, sorted({lt.query, lt.key}))
        q_weight, k_weight = _layer_heads(layout.style, lt, mats)
        key_heads = split_heads(k_weight, counts.num_kv_heads)
        query_heads = split_heads(q_weight, counts.num_heads)
        key = _hdi_or_error(f"layer {lt.layer} ({lt.stem}) key heads", key_heads, max_angle_pairs=MAX_ANGLE_PAIRS)
        query = _hdi_or_error(f"layer {lt.layer} ({lt.stem}) query heads", query_heads, max_angle_pairs=0)
        layers.append(
            {
                "layer": lt.layer,
                "name": lt.stem,
                "key_hdi": key["hdi"],
                "query_hdi": query["hdi"],
                "random_hdi": random_subspace_hdi(
                    counts.num_kv_heads, layout.d_model, counts.d_k, seed=seed, layer=lt.layer
                ),
                "key_overlap": key["overlap_matrix"],
                "key_principal_angles_deg": key["principal_angles_deg"],
            }
        )
    return {
        "model": model if model is not None else os.path.basename(os.fspath(path)),
        "style": layout.style,
        "num_heads": counts.num_heads,
        "num_kv_heads": counts.num_kv_heads,
        "d_model": layout.d_model,
        "d_k": counts.d_k,
        "seed": seed,
        "expected_random_hdi": (1.0 - counts.d_k / layout.d_model) if counts.num_kv_heads > 1 else None,
        "layers": layers,
    }
