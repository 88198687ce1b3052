"""Resolving num_heads and num_kv_heads: from the request, else the file's metadata, else refuse.

Names give widths (num_heads * d_k rows for queries, num_kv_heads * d_k for keys) but never the split,
so num_heads must come from somewhere; num_kv_heads then follows from the key width.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from headdiv.schemas.errors import ModelFileError
from headdiv.schemas.fields import MAX_MODEL_HEADS
from headdiv.workers.models.naming import AttentionLayout

_HEAD_KEYS = ("num_attention_heads", "num_heads", "n_head", "n_heads")
_KV_KEYS = ("num_key_value_heads", "num_kv_heads", "n_kv_heads")


@dataclass(frozen=True)
class HeadCounts:
    num_heads: int
    num_kv_heads: int
    d_k: int


_COUNT = re.compile(r"[0-9]{1,9}")
"""A head count written in the metadata: plain ASCII digits (str.isdigit() would also take '٢' or '²')."""


def _from_metadata(metadata: dict[str, str], keys: tuple[str, ...], field: str) -> int | None:
    """The first of `keys` the metadata holds, as a whole number; a value that is not one is refused."""
    for key in keys:
        value = metadata.get(key)
        if value is None:
            continue
        text = value.strip()
        if not _COUNT.fullmatch(text):
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise ModelFileError(
                f"the file's metadata gives {key} = {shown!r}, not a whole number in ASCII digits (at most 9); "
                f"pass {field} explicitly",
                field=field,
            )
        return int(text)
    return None


def resolve_head_counts(
    layout: AttentionLayout,
    metadata: dict[str, str],
    num_heads: int | None = None,
    num_kv_heads: int | None = None,
) -> HeadCounts:
    """Check the counts against the widths; every mismatch names the field and the numbers involved."""
    if num_heads is None:
        num_heads = _from_metadata(metadata, _HEAD_KEYS, "num_heads")
    if num_heads is None:
        raise ModelFileError(
            f"num_heads is required: the {layout.style} tensor names do not tell how the {layout.query_width} "
            "query rows split into heads",
            field="num_heads",
        )
    if num_heads > MAX_MODEL_HEADS:
        raise ModelFileError(
            f"num_heads = {num_heads}: at most {MAX_MODEL_HEADS} heads per layer are measured", field="num_heads"
        )
    if num_heads < 1 or layout.query_width % num_heads:
        raise ModelFileError(
            f"num_heads = {num_heads} does not divide the {layout.query_width} query rows of this model",
            field="num_heads",
        )
    d_k = layout.query_width // num_heads
    if d_k > layout.d_model:
        raise ModelFileError(
            f"num_heads = {num_heads} gives d_k = {d_k} > d_model = {layout.d_model}; a head cannot span more "
            "dimensions than its input",
            field="num_heads",
        )
    if layout.key_width % d_k:
        raise ModelFileError(
            f"num_heads = {num_heads} gives d_k = {d_k}, which does not divide the {layout.key_width} key rows",
            field="num_heads",
        )
    implied_kv = layout.key_width // d_k
    if num_kv_heads is None:
        num_kv_heads = _from_metadata(metadata, _KV_KEYS, "num_kv_heads") or implied_kv
    if num_kv_heads != implied_kv:
        raise ModelFileError(
            f"num_kv_heads = {num_kv_heads} does not fit: {layout.key_width} key rows at d_k = {d_k} make "
            f"{implied_kv} key heads",
            field="num_kv_heads",
        )
    if num_heads % num_kv_heads:
        raise ModelFileError(
            f"num_kv_heads = {num_kv_heads} must divide num_heads = {num_heads} (grouped-query attention)",
            field="num_kv_heads",
        )
    return HeadCounts(num_heads=num_heads, num_kv_heads=num_kv_heads, d_k=d_k)
