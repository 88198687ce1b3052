"""The Nadaraya-Watson step: a softmax over dot-product logits, i.e. attention with a value dimension of 1.

Both kernels of docs/model.md section 1 reach this function as (pre-scaled queries, keys, a per-key logit
bias): softmax attention has no bias; the Gaussian kernel's -|q - k|^2 / (2 h^2) expands to
q.k / h^2 - |k|^2 / (2 h^2) plus a per-query constant that the softmax cancels.

Speed: scores are built block by block (`score_bytes` per block) so they stay in cache, and one
`torch.compile`d function fuses max, exp and the weighted sums into a single pass - close to the cost
of the exp alone. Until compilation has finished (it runs in the background at server start) the
same function runs eagerly, which gives the same numbers up to float rounding.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import torch

from workers.settings import get_engine_settings

log = logging.getLogger(__name__)

NWFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], tuple[torch.Tensor, ...]]


def _nw_plain(q: torch.Tensor, k: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    s = torch.baddbmm(kb.unsqueeze(1), q, k.transpose(1, 2))
    z = s - s.amax(dim=-1, keepdim=True)
    e = torch.exp(z)
    return ((e * y.unsqueeze(1)).sum(-1) / e.sum(-1),)


def _nw_stats(q: torch.Tensor, k: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Estimate plus the sums the MAW gate needs: Z = sum e, S2 = sum e^2, Sz = sum e * (logit - max)."""
    s = torch.baddbmm(kb.unsqueeze(1), q, k.transpose(1, 2))
    z = s - s.amax(dim=-1, keepdim=True)
    e = torch.exp(z)
    den = e.sum(-1)
    return (e * y.unsqueeze(1)).sum(-1) / den, den, (e * e).sum(-1), (e * z).sum(-1)


# The compiled variants take queries with one extra (zero) row and drop its scores. Without it, the
# scores are contiguous over (batch, query) and inductor flattens those two loops for every reduction
# except the y-weighted one (y broadcasts over queries), so e = exp(...) is written out and read back;
# with the row dropped the loops cannot flatten, all five reductions share one loop nest and fuse
# (about 15% faster, measured in bench/bench_engine.py's shapes).


def _nw_plain_padded(q: torch.Tensor, k: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    s = torch.baddbmm(kb.unsqueeze(1), q, k.transpose(1, 2))[:, :-1]
    z = s - s.amax(dim=-1, keepdim=True)
    e = torch.exp(z)
    return ((e * y.unsqueeze(1)).sum(-1) / e.sum(-1),)


def _nw_stats_padded(q: torch.Tensor, k: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    s = torch.baddbmm(kb.unsqueeze(1), q, k.transpose(1, 2))[:, :-1]
    z = s - s.amax(dim=-1, keepdim=True)
    e = torch.exp(z)
    den = e.sum(-1)
    return (e * y.unsqueeze(1)).sum(-1) / den, den, (e * e).sum(-1), (e * z).sum(-1)


_lock = threading.Lock()
_compiled: dict[tuple[str, torch.dtype, bool], NWFn] = {}


def _key(device: torch.device, dtype: torch.dtype, with_stats: bool) -> tuple[str, torch.dtype, bool]:
    return (device.type, dtype, with_stats)


def _compile(device: torch.device, dtype: torch.dtype, with_stats: bool) -> NWFn:
    """Compile and run once on two shapes so dynamic shapes are in place before real work arrives."""
    key = _key(device, dtype, with_stats)
    with _lock:
        if key in _compiled:
            return _compiled[key]
        fn: NWFn = torch.compile(_nw_stats_padded if with_stats else _nw_plain_padded, dynamic=True)  # type: ignore[assignment]
        # Realistic sizes: inductor tunes its loops on the first shapes it sees (hints), not just any.
        for b, qn, n, d in ((32, 64, 512, 8), (16, 32, 256, 4)):
            fn(
                torch.randn(b, qn + 1, d, device=device, dtype=dtype),
                torch.randn(b, n, d, device=device, dtype=dtype),
                torch.randn(b, n, device=device, dtype=dtype),
                torch.randn(b, n, device=device, dtype=dtype),
            )
        _compiled[key] = fn
        return fn


def warm_up(device: torch.device | None = None, dtype: torch.dtype | None = None) -> bool:
    """Compile the NW step for the configured device and dtype; False when compilation is off or fails."""
    from workers.engine.device import resolve_device, resolve_dtype

    settings = get_engine_settings()
    if settings.compile == "off":
        return False
    dev = device or resolve_device(None)
    dt = dtype or resolve_dtype(None)
    try:
        for with_stats in (True, False):
            _compile(dev, dt, with_stats)
    except Exception:  # compilation needs a C++ toolchain; the eager path is always correct
        log.warning("torch.compile of the NW step failed; using the eager path", exc_info=True)
        return False
    return True


def _kernel(device: torch.device, dtype: torch.dtype, with_stats: bool, shape_ok: bool) -> NWFn:
    fn = _compiled.get(_key(device, dtype, with_stats))
    if fn is not None and shape_ok:
        return fn
    if fn is None and shape_ok and get_engine_settings().compile == "on":
        return _compile(device, dtype, with_stats)
    return _nw_stats if with_stats else _nw_plain


def nw_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    kb: torch.Tensor,
    y: torch.Tensor,
    *,
    with_stats: bool = False,
    score_bytes: int | None = None,
    on_block: Callable[[int], None] | None = None,
) -> tuple[torch.Tensor, ...]:
    """NW estimates (B, Q) of values y (B, n) at pre-scaled queries q (B, Q, d) over keys k (B, n, d).

    With `with_stats`, also returns Z, S2, Sz (each (B, Q)) for the MAW gate. Peak extra memory is
    about three score blocks of `score_bytes` each, whatever B, Q and n are. `on_block` is called with
    the number of scores after each block (milliseconds apart) and may raise to stop the call: progress
    and cancel reach inside however large one call is.
    """
    b, nq, d = q.shape
    n = k.shape[1]
    block = score_bytes or get_engine_settings().score_bytes
    per_query_row = n * q.element_size()
    q_chunk = max(1, min(nq, block // per_query_row))
    b_chunk = max(1, min(b, block // (per_query_row * q_chunk)))
    fast = _kernel(q.device, q.dtype, with_stats, min(n, d) >= 2)
    eager = _nw_stats if with_stats else _nw_plain
    outs = [torch.empty(b, nq, device=q.device, dtype=q.dtype) for _ in range(4 if with_stats else 1)]
    for b0 in range(0, b, b_chunk):
        b1 = min(b, b0 + b_chunk)
        kk, kbb, yy = k[b0:b1], kb[b0:b1], y[b0:b1]
        for q0 in range(0, nq, q_chunk):
            q1 = min(nq, q0 + q_chunk)
            # size-1 dimensions would make the compiled function specialise and recompile
            if fast is not eager and min(b1 - b0, q1 - q0) >= 2:
                qp = torch.zeros(b1 - b0, q1 - q0 + 1, d, device=q.device, dtype=q.dtype)
                qp[:, :-1] = q[b0:b1, q0:q1]
                res = fast(qp, kk, kbb, yy)
            else:
                res = eager(q[b0:b1, q0:q1].contiguous(), kk, kbb, yy)
            for out, r in zip(outs, res, strict=True):
                out[b0:b1, q0:q1] = r
            if on_block:
                on_block((b1 - b0) * (q1 - q0) * n)
    return tuple(outs)
