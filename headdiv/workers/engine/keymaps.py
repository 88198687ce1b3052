"""Key maps: how a head (or a big head) turns points into keys, in a form that computes many heads at once.

Every key map is linear in the points (docs/model.md section 1: k = W_h^T x), so centring commutes with
it: the keys of centred points are the centred keys. A batch of cells therefore centres each training
set once and maps it through the heads of every cell, a few whole-tensor operations per family of maps:

- `block`: a head of the block layout (docs/model.md section 2), column j = a_j x[B_0, j] + b_j x[B_h, col_j],
  elementwise;
- `mix`: the big head of a block layout: column j's coordinates are a fixed mix of the j-th coordinates of
  the H + 1 blocks (see `BlockGeometry.big_head_transform`), zero-padded to one width per column;
- `dense`: any p x width matrix (the `random` geometry's heads and big head).

Up to `DENSE_P` coordinates every family is evaluated as one dense matrix product instead. A `KeyMap`
compares equal to another exactly when they compute the same keys, which is what lets a batch compute a
head once for every cell that has it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch

from headdiv.workers.engine.geometry import BlockGeometry, DenseGeometry, HeadLayout


@dataclass(frozen=True)
class KeyMap:
    """A linear map from points (p,) to keys (width,). Equal maps compute equal keys."""

    family: str
    layout: tuple[int, ...]  # (H + 1, d_k) for `block` and `mix` (the block shape), (p,) for `dense`
    dim: int  # the head's dimension, which sets its kernel's scale (docs/model.md section 1)
    width: int  # the keys' length: `dim`, or more where zero coordinates pad it
    params: bytes = field(repr=False)  # the family's parameters, float64 (read back by `dense_matrix`, `Maps`)


def _block_head(g: BlockGeometry, h: int) -> KeyMap:
    """Head h of a block layout: a head with no private weight lies in B_0 whichever h it is."""
    a, b = g.a[h].astype(np.float64), g.b[h].astype(np.float64)
    private = bool(np.any(b != 0))
    col = np.where(b != 0, g.col[h], 0).astype(np.float64)
    params = np.concatenate([[h + 1 if private else 0], a, b, col]) + 0.0  # + 0.0: -0.0 and 0.0 alike
    return KeyMap("block", (g.H + 1, g.d_k), g.d_k, g.d_k, params.tobytes())


def _block_big_head(g: BlockGeometry) -> KeyMap:
    """The big head of a block layout as one (H + 1) -> width mix per column j.

    Big-head coordinate k of column j is sum_h T_j[k, h] (a[h, j] x[B_0, j] + b[h, j] x[B_(h+1), col[h, j]]),
    so it mixes the H + 1 source coordinates src[j] = (j, (h + 1) d_k + col[h, j]) with weights M_j[:, k].
    """
    t, keep = g.big_head_transform()
    H, d = g.H, g.d_k
    width = int(keep.sum(axis=1).max())
    mix = np.zeros((d, H + 1, width))
    src = np.zeros((d, H + 1))
    for j in range(d):
        rows = t[j][keep[j]]  # (D_j, H): the kept rows of T_j
        mix[j, 0, : len(rows)] = rows @ g.a[:, j]
        mix[j, 1:, : len(rows)] = (rows * g.b[:, j]).T
        src[j] = [j, *((np.arange(H) + 1) * d + g.col[:, j])]
    params = np.concatenate([src.ravel(), mix.ravel()]) + 0.0
    return KeyMap("mix", (H + 1, d), int(keep.sum()), d * width, params.tobytes())


def _dense(w: np.ndarray) -> KeyMap:
    w = np.ascontiguousarray(w, dtype=np.float64) + 0.0
    return KeyMap("dense", (w.shape[0],), w.shape[1], w.shape[1], w.tobytes())


@lru_cache(maxsize=1024)
def _block_maps(a: bytes, b: bytes, col: bytes, shape: tuple[int, int]) -> tuple[tuple[KeyMap, ...], KeyMap]:
    """A block layout's head maps and big-head map, by the layout's content: a surface's cells, or a slider's
    next noise level, share one angle's heads, whose big head takes an eigendecomposition per column."""
    g = BlockGeometry(*(np.frombuffer(v, dtype=t).reshape(shape) for v, t in ((a, float), (b, float), (col, int))))
    return tuple(_block_head(g, h) for h in range(g.H)), _block_big_head(g)


def _of_blocks(g: BlockGeometry) -> tuple[tuple[KeyMap, ...], KeyMap]:
    a, b, col = (np.ascontiguousarray(v, dtype=t) for v, t in ((g.a, float), (g.b, float), (g.col, int)))
    return _block_maps(a.tobytes(), b.tobytes(), col.tobytes(), a.shape)


def head_maps(geometry: HeadLayout) -> list[KeyMap]:
    if isinstance(geometry, BlockGeometry):
        return list(_of_blocks(geometry)[0])
    return [_dense(w) for w in geometry.dense()]


def big_head_map(geometry: HeadLayout) -> KeyMap:
    """The map of the head spanning every head's subspace (docs/model.md section 4's big-head baseline)."""
    if isinstance(geometry, BlockGeometry):
        return _of_blocks(geometry)[1]
    assert isinstance(geometry, DenseGeometry)
    return _dense(geometry.big_head_basis())


DENSE_P = 128
"""Up to this ambient dimension every map is evaluated as one dense matrix product, which writes the keys
in their final layout in one pass; beyond it, block maps are mostly zeros and their own elementwise form
is cheaper (measured on one core: a product wins at p = 80, loses 2-3x at p = 260)."""


def dense_matrix(m: KeyMap) -> np.ndarray:
    """The map as a p x width matrix (keys = points @ matrix)."""
    params = np.frombuffer(m.params, dtype=np.float64)
    if m.family == "dense":
        return params.reshape(m.layout[0], m.width)
    blocks, d = m.layout
    w = np.zeros((blocks * d, m.width))
    if m.family == "block":
        block, a, b, col = params[0], params[1 : 1 + d], params[1 + d : 1 + 2 * d], params[1 + 2 * d :]
        w[np.arange(d), np.arange(d)] = a
        w[int(block) * d + col.astype(int), np.arange(d)] += b
        return w
    src, mix = params[: d * blocks].reshape(d, blocks).astype(int), params[d * blocks :].reshape(d, blocks, -1)
    per = mix.shape[2]
    for j in range(d):
        w[src[j], j * per : (j + 1) * per] += mix[j]
    return w


class Maps:
    """Many maps of one family and layout, evaluated together: `(points, out)` writes every map's keys.

    `points` is (Rq, m, p) (m points of each of Rq sets, Rq = Rc or 1 to broadcast) and `out` is
    (Rc, U, width, m): row (r, u) holds map u's keys of set r, transposed, as the NW step reads them.
    """

    def __init__(self, maps: Sequence[KeyMap], device: torch.device, dtype: torch.dtype) -> None:
        first = maps[0]
        self.family, self.layout, self.width = first.family, first.layout, first.width
        p = int(np.prod(self.layout))

        def tensor(a: np.ndarray, kind: torch.dtype = dtype) -> torch.Tensor:
            return torch.as_tensor(np.ascontiguousarray(a), device=device, dtype=kind)

        if self.family == "dense" or p <= DENSE_P:
            self.family = "dense"
            self.wt = tensor(np.concatenate([dense_matrix(m).T for m in maps]))  # (U * width, p)
            return
        params = np.stack([np.frombuffer(m.params, dtype=np.float64) for m in maps])
        blocks, d = self.layout
        if self.family == "block":
            self.block = tensor(params[:, 0], torch.long)
            self.a, self.b = (tensor(params[:, 1 + i * d : 1 + (i + 1) * d]).view(1, -1, d, 1) for i in (0, 1))
            col = params[:, 1 + 2 * d :]
            self.col = None if np.all(col == np.arange(d)) else tensor(col, torch.long).view(1, -1, d, 1)
        else:
            self.src = tensor(params[0, : d * blocks], torch.long)  # maps of one group share their sources
            mix = params[:, d * blocks :].reshape(len(maps), d, blocks, -1)  # (U, d, H + 1, w_j)
            self.mix = tensor(mix.transpose(1, 2, 0, 3).reshape(d, blocks, -1))  # (d, H + 1, U * w_j)

    def __call__(self, points: torch.Tensor, out: torch.Tensor) -> None:
        rc, u, width, m = out.shape
        if self.family == "dense" and points.shape[0] == rc and out.is_contiguous():
            torch.matmul(self.wt, points.transpose(1, 2), out=out.view(rc, u * width, m))  # one pass
        else:
            out.copy_(self._keys(points).expand(rc, u, width, m))

    def _keys(self, points: torch.Tensor) -> torch.Tensor:
        rq, m, p = points.shape
        if self.family == "dense":
            return torch.matmul(self.wt, points.transpose(1, 2)).view(rq, -1, self.width, m)
        blocks, d = self.layout
        if self.family == "block":
            parts = points.view(rq, m, blocks, d).permute(0, 2, 3, 1)  # (Rq, H + 1, d, m)
            keys = torch.index_select(parts, 1, self.block)
            if self.col is not None:
                keys = torch.gather(keys, 2, self.col.expand_as(keys))
            return keys.mul_(self.b).addcmul_(parts[:, :1], self.a)
        src = points.reshape(-1, p)[:, self.src].view(-1, d, blocks)  # (Rq m, d, H + 1)
        mixed = torch.einsum("mjb,jbk->mjk", src, self.mix).view(rq, m, d, -1, self.width // d)
        return mixed.permute(0, 3, 2, 4, 1).reshape(rq, -1, self.width, m)

    @staticmethod
    def group_key(m: KeyMap) -> tuple[object, ...]:
        """Maps with equal group keys can be evaluated by one `Maps` (a mix needs the same sources too)."""
        if m.family == "mix":
            blocks, d = m.layout
            return (m.family, m.layout, m.width, m.params[: 8 * d * blocks])
        return (m.family, m.layout, m.width)
