"""Recognising where the attention weights are, from tensor names and shapes: one registry of the layouts
the transformers library writes (`LAYOUTS`), each a name pattern and how its query and key are stored.

- separate projections, torch Linear (out x in): BERT `attention.self.query/key`, ViT
  `attention.attention.query/key`, DistilBERT `attention.q_lin/k_lin`, LLaMA-like `self_attn.q_proj/k_proj`
  (also Mistral, Qwen, OPT, BART, Whisper, CLIP, and ViT as transformers 5 writes it, `attention.q_proj`;
  BART's `encoder_attn` is cross-attention), T5
  `SelfAttention.q/k` and `EncDecAttention.q/k`. Keys may have fewer rows (grouped-query, multi-query).
- fused, one tensor for Q, K and V: GPT-2 `attn.c_attn` (Conv1D, in x 3 out, Q | K | V columns); Phi-3
  `self_attn.qkv_proj` (Linear, Q | K | V rows, K and V num_kv_heads * d_k each); GPT-NeoX
  `attention.query_key_value` and BLOOM `self_attention.query_key_value` (Linear, rows interleaved per
  head: q_h, k_h, v_h for each head in turn).

A model may hold several stacks (an encoder's self-attention, a decoder's self- and cross-attention, a
vision and a text tower): each layer is reported with its stack. Only names and header shapes are used here,
so every check runs before a byte of weights is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from headdiv.schemas.errors import ModelFileError
from headdiv.workers.models.safetensors_file import FLOAT_DTYPES, TensorInfo

Fused = Literal["no", "conv1d", "rows", "interleaved"]


@dataclass(frozen=True)
class Layout:
    """One way of storing attention: the pattern of its tensors' names (group `stem`: the attention module,
    `i`: the layer's number, `kind`: which projection), and how query and key are stored."""

    style: str
    pattern: re.Pattern[str]
    query: str
    key: str
    fused: Fused = "no"


def _layout(style: str, stem: str, kinds: str, query: str, key: str, fused: Fused = "no") -> Layout:
    return Layout(style, re.compile(rf"^(?P<stem>(?:.*\.)?{stem})\.(?P<kind>{kinds})\.weight$"), query, key, fused)


LAYOUTS: tuple[Layout, ...] = (
    _layout("bert", r"layer\.(?P<i>\d+)\.attention\.self", "query|key", "query", "key"),
    _layout("vit", r"layer\.(?P<i>\d+)\.attention\.attention", "query|key", "query", "key"),
    _layout("distilbert", r"layer\.(?P<i>\d+)\.attention", "q_lin|k_lin", "q_lin", "k_lin"),
    _layout("llama", r"layers\.(?P<i>\d+)\.(?:self_attn|encoder_attn|attention)", "q_proj|k_proj", "q_proj", "k_proj"),
    _layout("t5", r"block\.(?P<i>\d+)\.layer\.\d+\.(?:SelfAttention|EncDecAttention)", "q|k", "q", "k"),
    _layout("gpt2", r"h\.(?P<i>\d+)\.attn", "c_attn", "c_attn", "c_attn", "conv1d"),
    _layout("phi3", r"layers\.(?P<i>\d+)\.self_attn", "qkv_proj", "qkv_proj", "qkv_proj", "rows"),
    _layout("gpt-neox", r"layers\.(?P<i>\d+)\.attention", "query_key_value", *("query_key_value",) * 2, "interleaved"),
    _layout("bloom", r"h\.(?P<i>\d+)\.self_attention", "query_key_value", *("query_key_value",) * 2, "interleaved"),
)
"""Every layout read here; a new one is one entry (and a fixture in tests/test_model_layouts.py)."""

REFUSED_TYPES = {
    "falcon": "Falcon's fused query_key_value changes its layout with the model's version",
    "mpt": "MPT's fused Wqkv is not read here yet",
}
"""`config.json` model types whose names match a layout above but whose tensors it would misread."""

MAX_LAYERS = 512
"""Most attention layers measured in one file: four times the deepest released models (about 126). Each
layer costs a fixed amount beyond its size (bases, baseline, angles), so tiny layers must be bounded too."""


@dataclass(frozen=True)
class LayerTensors:
    """Where one layer's query and key weights live (the same fused tensor where Q, K and V are one)."""

    layer: int
    stem: str
    query: str
    key: str
    stack: str = ""


@dataclass(frozen=True)
class AttentionLayout:
    style: str
    layers: list[LayerTensors]
    d_model: int
    query_width: int
    """Rows of the query projection: num_heads * d_k."""
    key_width: int
    """Rows of the key projection: num_kv_heads * d_k."""
    fused: Fused = "no"


def stack_of(stem: str, i_span: tuple[int, int]) -> str:
    """A stack's name read from its attention module's path: which tower, and self- or cross-attention."""
    prefix = stem[: i_span[0]].lower()
    cross = any(word in stem for word in ("EncDecAttention", "encoder_attn", "crossattention"))
    tower = next(
        (
            name
            for word, name in (("vision", "vision"), ("text", "text"), ("decoder", "decoder"), ("encoder", "encoder"))
            if word in prefix
        ),
        "",
    )
    kind = "cross-attention" if cross else "self-attention"
    return f"{tower} {kind}".strip()


def wanted(name: str) -> bool:
    """Whether a tensor name is an attention weight of some layout (a sharded checkpoint opens only the shards
    that hold one)."""
    return any(layout.pattern.match(name) for layout in LAYOUTS)


def detect_layout(tensors: dict[str, TensorInfo], config: dict[str, Any] | None = None) -> AttentionLayout:
    """Find the one layout present, each layer's query/key tensors, and check their shapes agree."""
    config = config or {}
    model_type = str(config.get("model_type", ""))
    if model_type in REFUSED_TYPES:
        raise ModelFileError(f"model type {model_type!r} is not read here: {REFUSED_TYPES[model_type]}")
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for name in tensors:
        for layout in LAYOUTS:
            m = layout.pattern.match(name)
            if m:
                entry = found.setdefault(layout.style, {}).setdefault(m.group("stem"), {"span": m.span("i")})
                entry[m.group("kind")] = name
    if not found:
        examples = ", ".join(sorted(tensors)[:3])
        known = ", ".join(f"{lay.style} '…{lay.key}.weight'" for lay in LAYOUTS)
        raise ModelFileError(f"no attention weights found: expected one of {known} (the model has e.g. {examples})")
    if len(found) > 1:
        raise ModelFileError(f"ambiguous model: it mixes attention layouts {sorted(found)}; give one model at a time")
    style, stems = next(iter(found.items()))
    layout = next(lay for lay in LAYOUTS if lay.style == style)
    if len(stems) > MAX_LAYERS:
        raise ModelFileError(f"the model has {len(stems)} attention layers; at most {MAX_LAYERS} are measured here")

    def order(stem: str) -> tuple[int, str, str, int]:
        """Stack by stack (encoders before decoders, self- before cross-attention), layer by layer."""
        a, b = stems[stem]["span"]
        stack = stack_of(stem, (a, b))
        rank = next((r for r, word in enumerate(("decoder self", "decoder cross")) if stack.startswith(word)), -1)
        return (rank, stem[:a], stem[b:], int(stem[a:b]))

    layers: list[LayerTensors] = []
    for index, stem in enumerate(sorted(stems, key=order)):
        kinds = stems[stem]
        q, k = kinds.get(layout.query), kinds.get(layout.key)
        if q is None or k is None:
            raise ModelFileError(f"layer {stem!r} has no {'query' if q is None else 'key'} weight")
        layers.append(LayerTensors(layer=index, stem=stem, query=q, key=k, stack=stack_of(stem, kinds["span"])))
    if len({lt.stack for lt in layers}) == 1:
        layers = [LayerTensors(lt.layer, lt.stem, lt.query, lt.key) for lt in layers]
    return _check_shapes(layout, layers, tensors, config)


def _config_counts(config: dict[str, Any]) -> tuple[int, int, int] | None:
    """(num_heads, num_kv_heads, d_k) when config.json gives them: a fused Q|K|V of grouped-query attention
    cannot be cut into its three parts without them."""
    heads = config.get("num_attention_heads") or config.get("n_head") or config.get("num_heads")
    if not isinstance(heads, int) or heads < 1:
        return None
    kv = config.get("num_key_value_heads") or heads
    d_k = config.get("head_dim")
    hidden = config.get("hidden_size") or config.get("d_model")
    if not isinstance(d_k, int):
        d_k = hidden // heads if isinstance(hidden, int) and hidden % heads == 0 else None
    return (heads, kv, d_k) if isinstance(kv, int) and isinstance(d_k, int) else None


def _widths(layout: Layout, shape: tuple[int, ...], config: dict[str, Any], name: str) -> tuple[int, int, int]:
    """(d_model, query rows, key rows) of one layer from its tensors' shapes."""
    if layout.fused == "conv1d":
        d_in, out3 = shape
        if out3 % 3:
            raise ModelFileError(
                f"tensor {name!r} has shape {list(shape)}: a GPT-2 c_attn weight is (d_model, 3 * width)"
            )
        return d_in, out3 // 3, out3 // 3
    out, d_in = shape
    if layout.fused == "rows" and (counts := _config_counts(config)) is not None:
        heads, kv, d_k = counts
        if heads * d_k + 2 * kv * d_k != out:
            raise ModelFileError(
                f"tensor {name!r} has {out} rows; config.json's {heads} heads and {kv} key heads of {d_k} make "
                f"{heads * d_k + 2 * kv * d_k}"
            )
        return d_in, heads * d_k, kv * d_k
    if out % 3:
        raise ModelFileError(f"tensor {name!r} has shape {list(shape)}: a fused Q, K, V weight has 3 * width rows")
    return d_in, out // 3, out // 3


def _check_shapes(
    layout: Layout, layers: list[LayerTensors], tensors: dict[str, TensorInfo], config: dict[str, Any]
) -> AttentionLayout:
    shapes: set[tuple[int, int, int]] = set()
    for lt in layers:
        for name in {lt.query, lt.key}:
            info = tensors[name]
            if len(info.shape) != 2 or min(info.shape) == 0:
                raise ModelFileError(f"tensor {name!r} should be a non-empty matrix, has shape {list(info.shape)}")
            if info.dtype not in FLOAT_DTYPES:
                raise ModelFileError(
                    f"tensor {name!r} has dtype {info.dtype}; attention weights must be F16/BF16/F32/F64"
                    + (" (8-bit floats are not read here)" if info.dtype.startswith("F8") else "")
                )
        if layout.fused != "no":
            shapes.add(_widths(layout, tensors[lt.query].shape, config, lt.query))
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
    return AttentionLayout(
        style=layout.style, layers=layers, d_model=d_model, query_width=q_width, key_width=k_width, fused=layout.fused
    )
