"""From projection weights to per-head matrices W_h (p = d_model rows, d_k columns).

Torch's Linear stores a projection as (out x in); head h owns output rows h d_k : (h+1) d_k, so its
matrix in docs/model.md's orientation is `W[h d_k:(h+1) d_k, :].T`. GPT-2's Conv1D stores (in x out), so its
fused c_attn weight is transposed first and then cut into Q, K, V thirds.
"""

from __future__ import annotations

import numpy as np

from headdiv.schemas.errors import ModelFileError


def split_heads(weight_out_in: np.ndarray, n_heads: int) -> list[np.ndarray]:
    """Cut an (n_heads d_k) x d_model Linear weight into n_heads matrices of shape d_model x d_k."""
    rows = weight_out_in.shape[0]
    if n_heads < 1 or rows % n_heads:
        raise ModelFileError(f"{rows} projection rows cannot be split into {n_heads} heads", field="num_heads")
    d_k = rows // n_heads
    return [np.ascontiguousarray(weight_out_in[h * d_k : (h + 1) * d_k, :].T) for h in range(n_heads)]


def split_gpt2_c_attn(weight_in_out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GPT-2's fused (d_model x 3 width) Conv1D weight -> query and key weights in Linear (out x in) form."""
    out3 = weight_in_out.shape[1]
    width = out3 // 3
    return weight_in_out[:, :width].T, weight_in_out[:, width : 2 * width].T


def split_fused_rows(weight_out_in: np.ndarray, query_width: int, key_width: int) -> tuple[np.ndarray, np.ndarray]:
    """A Linear weight of Q | K | V rows (Phi-3's qkv_proj) -> its query and key rows."""
    return weight_out_in[:query_width], weight_out_in[query_width : query_width + key_width]


def split_interleaved(weight_out_in: np.ndarray, n_heads: int) -> tuple[np.ndarray, np.ndarray]:
    """A Linear weight whose rows run head by head, each head's q, k and v in turn (GPT-NeoX and BLOOM's
    query_key_value: viewed as (heads, 3, d_k, d_model)) -> query and key weights, head after head."""
    rows, d_model = weight_out_in.shape
    if n_heads < 1 or rows % (3 * n_heads):
        raise ModelFileError(f"{rows} fused rows cannot be split into 3 x {n_heads} heads", field="num_heads")
    per_head = weight_out_in.reshape(n_heads, 3, rows // (3 * n_heads), d_model)
    return per_head[:, 0].reshape(-1, d_model), per_head[:, 1].reshape(-1, d_model)
