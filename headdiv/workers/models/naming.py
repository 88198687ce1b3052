"""Recognising where the attention weights are, from the tensor names of three naming styles.

- `bert`:  `...layer.{i}.attention.self.query.weight` / `.key.weight`, torch Linear (out x in).
- `gpt2`:  `...h.{i}.attn.c_attn.weight`, one fused Conv1D weight stored (in x 3 out): Q | K | V columns.
- `llama`: `...layers.{i}.self_attn.q_proj.weight` / `.k_proj.weight`, Linear (out x in); the key
  projection has num_kv_heads * d_k rows in grouped-query models.

Only names and header shapes are used here, so every check runs before a byte of weights is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from headdiv.schemas.errors import ModelFileError
from headdiv.workers.models.safetensors_file import FLOAT_DTYPES, TensorInfo

Style = Literal["bert", "gpt2", "llama"]

_PATTERNS: dict[Style, re.Pattern[str]] = {
    "bert": re.compile(r"^(?P<stem>(?:.*\.)?layer\.(?P<i>\d+)\.attention\.self)\.(?P<kind>query|key)\.weight$"),
    "gpt2": re.compile(r"^(?P<stem>(?:.*\.)?h\.(?P<i>\d+)\.attn)\.(?P<kind>c_attn)\.weight$"),
    "llama": re.compile(r"^(?P<stem>(?:.*\.)?layers\.(?P<i>\d+)\.self_attn)\.(?P<kind>q|k)_proj\.weight$"),
}
MAX_LAYERS = 512
"""Most attention layers measured in one file: four times the deepest released models (about 126). Each
layer costs a fixed amount beyond its size (bases, baseline, angles), so tiny layers must be bounded too."""

_QUERY_KIND = {"query", "q", "c_attn"}
_KEY_KIND = {"key", "k", "c_attn"}


@dataclass(frozen=True)
class LayerTensors:
    """Where one layer's query and key weights live (the same fused tensor for GPT-2)."""

    layer: int
    stem: str
    query: str
    key: str


@dataclass(frozen=True)
class AttentionLayout:
    style: Style
    layers: list[LayerTensors]
    d_model: int
    query_width: int
    """Rows of the query projection: num_heads * d_k."""
    key_width: int
    """Rows of the key projection: num_kv_heads * d_k."""


def _sort_key(stem: str) -> tuple[str, int]:
    m = re.search(r"(\d+)(?!.*\d)", stem)
    return (stem[: m.start()] if m else stem, int(m.group(1)) if m else -1)


def detect_layout(tensors: dict[str, TensorInfo]) -> AttentionLayout:
    """Find the one naming style present, each layer's query/key tensors, and check their shapes agree."""
    found: dict[Style, dict[str, dict[str, str]]] = {}
    for name in tensors:
        for style, pattern in _PATTERNS.items():
            m = pattern.match(name)
            if m:
                found.setdefault(style, {}).setdefault(m.group("stem"), {})[m.group("kind")] = name
    if not found:
        examples = ", ".join(sorted(tensors)[:3])
        raise ModelFileError(
            "no attention weights found: expected BERT-style '...attention.self.key.weight', GPT-2-style "
            f"'...attn.c_attn.weight' or LLaMA-style '...self_attn.k_proj.weight' names (file has e.g. {examples})"
        )
    if len(found) > 1:
        raise ModelFileError(f"ambiguous file: it mixes naming styles {sorted(found)}; upload one model at a time")
    style, stems = next(iter(found.items()))
    if len(stems) > MAX_LAYERS:
        raise ModelFileError(f"the file has {len(stems)} attention layers; at most {MAX_LAYERS} are measured here")
    layers: list[LayerTensors] = []
    for index, stem in enumerate(sorted(stems, key=_sort_key)):
        kinds = stems[stem]
        q = next((kinds[k] for k in _QUERY_KIND if k in kinds), None)
        k = next((kinds[k] for k in _KEY_KIND if k in kinds), None)
        if q is None or k is None:
            missing = "query" if q is None else "key"
            raise ModelFileError(f"layer {stem!r} has no {missing} weight")
        layers.append(LayerTensors(layer=index, stem=stem, query=q, key=k))
    return _check_shapes(style, layers, tensors)


def _check_shapes(style: Style, layers: list[LayerTensors], tensors: dict[str, TensorInfo]) -> AttentionLayout:
    shapes: set[tuple[int, int, int]] = set()
    for lt in layers:
        for name in {lt.query, lt.key}:
            info = tensors[name]
            if len(info.shape) != 2 or min(info.shape) == 0:
                raise ModelFileError(f"tensor {name!r} should be a non-empty matrix, has shape {list(info.shape)}")
            if info.dtype not in FLOAT_DTYPES:
                raise ModelFileError(
                    f"tensor {name!r} has dtype {info.dtype}; attention weights must be F16/BF16/F32/F64"
                )
        if style == "gpt2":
            d_in, out3 = tensors[lt.query].shape
            if out3 % 3:
                raise ModelFileError(
                    f"tensor {lt.query!r} has shape {[d_in, out3]}: a GPT-2 c_attn weight is (d_model, 3 * width)"
                )
            shapes.add((d_in, out3 // 3, out3 // 3))
        else:
            q_out, q_in = tensors[lt.query].shape
            k_out, k_in = tensors[lt.key].shape
            if q_in != k_in:
                raise ModelFileError(
                    f"layer {lt.stem!r}: query takes {q_in} inputs but key takes {k_in}; they must read the same d_model"
                )
            shapes.add((q_in, q_out, k_out))
    if len(shapes) > 1:
        raise ModelFileError(f"layers disagree on (d_model, query rows, key rows): {sorted(shapes)}")
    d_model, q_width, k_width = shapes.pop()
    return AttentionLayout(style=style, layers=layers, d_model=d_model, query_width=q_width, key_width=k_width)
