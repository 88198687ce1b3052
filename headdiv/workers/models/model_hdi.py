"""HDI of a trained model's key and query heads, layer by layer, against random subspaces.

A trained layer's HDI means little alone: independent random d_k-dimensional subspaces of R^p already
overlap by d_k / p on average (HDI about 1 - d_k / p), so each layer is reported beside the HDI of
seeded random subspaces of the same shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from headdiv.schemas.errors import MeasurementStopped, ModelFileError
from headdiv.schemas.results.report_results import HdiReport, ModelHeadsReport
from headdiv.workers.engine.diversity import hdi, hdi_report
from headdiv.workers.engine.result_building import result_of
from headdiv.workers.models.checkpoint import CheckpointSource, open_checkpoint
from headdiv.workers.models.clusters import head_clusters, query_groups
from headdiv.workers.models.head_counts import resolve_head_counts
from headdiv.workers.models.heads import split_fused_rows, split_gpt2_c_attn, split_heads, split_interleaved
from headdiv.workers.models.naming import AttentionLayout, LayerTensors, detect_layout, wanted

MODEL_ANGLE_PAIRS = 496
"""Principal angles are listed for at most this many key-head pairs per layer (all pairs of 32 heads)."""

MAX_WORK = 2e11
"""Floating-point operations one file may cost (some seconds of BLAS on one core): the pairwise overlaps of a
layer cost about 2 (H d_k)^2 d_model each for keys, queries and the random baseline."""


def estimated_work(n_layers: int, d_model: int, query_width: int, key_width: int, d_k: int) -> float:
    """Flops of the measurement, all layers: the overlaps of every pair of heads (about d_model (H d_k)^2
    for the queries, and for the keys and their random baseline), an SVD per head for its basis
    (4 d_model d_k^2 each) and the principal angles of the listed key pairs (about 20 d_k^3 each)."""
    heads_kv = key_width // d_k
    pairs = d_model * (query_width**2 + 2 * key_width**2)
    bases = 4.0 * d_model * d_k * (query_width + 2 * key_width)
    angles = 20.0 * d_k**3 * min(MODEL_ANGLE_PAIRS, heads_kv * (heads_kv - 1) // 2)
    return n_layers * (pairs + bases + angles)


def random_subspace_hdi(n_heads: int, p: int, d_k: int, *, seed: int, layer: int) -> float | None:
    """HDI of n_heads Gaussian p x d_k matrices (uniformly random subspaces), seeded per (seed, layer)."""
    rng = np.random.default_rng([seed, layer])
    return hdi([rng.standard_normal((p, d_k)) for _ in range(n_heads)])


def _layer_heads(
    layout: AttentionLayout, lt: LayerTensors, mats: dict[str, np.ndarray], num_heads: int
) -> tuple[np.ndarray, np.ndarray]:
    """One layer's query and key weights in Linear (out x in) form, whatever way its checkpoint stores them."""
    if layout.fused == "conv1d":
        return split_gpt2_c_attn(mats[lt.query])
    if layout.fused == "rows":
        return split_fused_rows(mats[lt.query], layout.query_width, layout.key_width)
    if layout.fused == "interleaved":
        return split_interleaved(mats[lt.query], num_heads)
    return mats[lt.query], mats[lt.key]


CONFIG_COUNTS = {
    "num_attention_heads": "num_attention_heads",
    "n_head": "num_attention_heads",
    "num_heads": "num_attention_heads",
    "n_heads": "num_attention_heads",
    "encoder_attention_heads": "num_attention_heads",
    "num_key_value_heads": "num_key_value_heads",
}
"""config.json's head counts under the names the transformers library gives them (T5 says num_heads,
GPT-2 n_head, DistilBERT n_heads, BART encoder_attention_heads), as the metadata keys the head counts are read from."""


def _counts_from_config(config: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, as_key in CONFIG_COUNTS.items():
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and as_key not in out:
            out[as_key] = str(value)
    return out


def _hdi_or_error(what: str, heads: list[np.ndarray], **kwargs: Any) -> HdiReport:
    try:
        return hdi_report(heads, **kwargs)
    except ValueError as exc:
        raise ModelFileError(f"{what}: {exc}") from exc


def model_hdi(
    source: CheckpointSource,
    *,
    num_heads: int | None = None,
    num_kv_heads: int | None = None,
    seed: int = 0,
    model: str | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ModelHeadsReport:
    """Per-layer key/query HDI of a checkpoint (a safetensors file, a model folder, sharded or not, a Hugging
    Face id in the local cache, or an open binary file); raises ModelFileError saying what is wrong.

    Header, names, shapes and head counts are all checked before any weight is loaded; then each
    layer's two tensors are read from the one open file, checked finite, split into heads and measured.
    `should_stop` is asked before each layer; when it says yes, MeasurementStopped is raised.
    """
    with open_checkpoint(source, wanted) as st:
        layout = detect_layout(st.tensors, st.config)
        counts = resolve_head_counts(layout, {**_counts_from_config(st.config), **st.metadata}, num_heads, num_kv_heads)
        work = estimated_work(len(layout.layers), layout.d_model, layout.query_width, layout.key_width, counts.d_k)
        if work > MAX_WORK:
            raise ModelFileError(
                f"this model is too large to measure here: about {work:.2g} operations for {len(layout.layers)} "
                f"layers of d_model {layout.d_model}, over the limit of {MAX_WORK:.2g}; upload fewer layers"
            )
        layers: list[dict[str, Any]] = []
        for lt in layout.layers:
            if should_stop is not None and should_stop():
                raise MeasurementStopped(len(layers), len(layout.layers))
            mats = {name: st.matrix(name) for name in sorted({lt.query, lt.key})}
            layers.append(_measure_layer(layout, lt, mats, counts.num_heads, counts.num_kv_heads, seed))
        if model is None:
            model = st.name
    return result_of(
        ModelHeadsReport,
        {
            "model": model,
            "style": layout.style,
            "num_heads": counts.num_heads,
            "num_kv_heads": counts.num_kv_heads,
            "d_model": layout.d_model,
            "d_k": counts.d_k,
            "seed": seed,
            "expected_random_hdi": (1.0 - counts.d_k / layout.d_model) if counts.num_kv_heads > 1 else None,
            "layers": layers,
        },
    )


def _measure_layer(
    layout: AttentionLayout,
    lt: LayerTensors,
    mats: dict[str, np.ndarray],
    num_heads: int,
    num_kv_heads: int,
    seed: int,
) -> dict[str, Any]:
    d_model = layout.d_model
    q_weight, k_weight = _layer_heads(layout, lt, mats, num_heads)
    key_heads = split_heads(k_weight, num_kv_heads)
    query_heads = split_heads(q_weight, num_heads)
    key = _hdi_or_error(f"layer {lt.layer} ({lt.stem}) key heads", key_heads, max_angle_pairs=MODEL_ANGLE_PAIRS)
    query = _hdi_or_error(f"layer {lt.layer} ({lt.stem}) query heads", query_heads, max_angle_pairs=0)
    return {
        "layer": lt.layer,
        "name": lt.stem,
        "stack": lt.stack,
        "key_hdi": key.hdi,
        "query_hdi": query.hdi,
        "random_hdi": random_subspace_hdi(num_kv_heads, d_model, key_heads[0].shape[1], seed=seed, layer=lt.layer),
        "key_overlap": key.overlap_matrix,
        "key_principal_angles_deg": key.principal_angles_deg,
        "query_overlap": query.overlap_matrix,
        "clusters": {
            "key": head_clusters(np.asarray(key.overlap_matrix)),
            "query": head_clusters(np.asarray(query.overlap_matrix), query_groups(num_heads, num_kv_heads)),
        },
    }
