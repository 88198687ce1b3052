"""The Nadaraya-Watson step: a softmax over dot-product logits, i.e. attention with a value dimension of 1.

Both kernels of docs/model.md section 1 reach this function as (pre-scaled queries, keys, a per-key logit
bias): softmax attention has no bias; the Gaussian kernel's -|q - k|^2 / (2 h^2) expands to
q.k / h^2 - |k|^2 / (2 h^2) plus a per-query constant that the softmax cancels.

Speed: scores are built block by block (`score_bytes` per block) so they stay in cache, and one
`torch.compile`d function (one for narrow keys, one for wide) fuses max, exp and the weighted sums into a
single pass - close to the cost of the exp alone. Until compilation has finished (it runs in the background at server start) the
same function runs eagerly, which gives the same numbers up to float rounding. On a CPU, a start that finds the
kernels an earlier one kept (AOTInductor packages of the same generated code, `kernel_build`) loads them in
milliseconds instead of compiling: tracing them again cost a later start about 5 s of CPU holding the interpreter.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import platform
import threading
from collections.abc import Callable
from pathlib import Path

import torch

from headdiv.plumbing.kept import kept_path
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.workers.engine.device import block_bytes

log = logging.getLogger(__name__)

NWFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], tuple[torch.Tensor, ...]]

Z_FLOOR = {dt: 0.5 * math.log(torch.finfo(dt).tiny) + 1.0 for dt in (torch.float32, torch.float64)}
"""Lowest logit - max logit the kernels keep: weights below e^Z_FLOOR (1e-19 in float32) are raised to it.
Their share of any sum is below the float type's round-off (n e^Z_FLOOR << eps for every allowed n), and no
weight, squared weight or product then falls into subnormal numbers, which the CPU computes tens of times
slower: far keys of the Gaussian kernel are common (measured: the NW step a third faster on the default
scenario's own scores)."""


def _nw_plain(q: torch.Tensor, kt: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    s = torch.baddbmm(kb.unsqueeze(1), q, kt)
    z = (s - s.amax(dim=-1, keepdim=True)).clamp_min(Z_FLOOR[s.dtype])
    e = torch.exp(z)
    return ((e * y.unsqueeze(1)).sum(-1) / e.sum(-1),)


def _nw_stats(q: torch.Tensor, kt: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Estimate plus the sums the MAW gate needs: Z = sum e, S2 = sum e^2, Sz = sum e * (logit - max)."""
    s = torch.baddbmm(kb.unsqueeze(1), q, kt)
    z = (s - s.amax(dim=-1, keepdim=True)).clamp_min(Z_FLOOR[s.dtype])
    e = torch.exp(z)
    den = e.sum(-1)
    return (e * y.unsqueeze(1)).sum(-1) / den, den, (e * e).sum(-1), (e * z).sum(-1)


# The compiled kernel takes queries with one extra (zero) row and drops its scores. Without it, the
# scores are contiguous over (batch, query) and inductor flattens those two loops for every reduction
# except the y-weighted one (y broadcasts over queries), so e = exp(...) is written out and read back;
# with the row dropped the loops cannot flatten, all five reductions share one loop nest and fuse
# (about 15% faster, measured in bench/bench_engine.py's shapes). Plain estimates use the same kernel and
# drop the sums: with the estimate alone the y-weighted sum again leaves that loop nest (measured 5-10%
# slower than computing the sums too). The logit bias is added inside the loop nest rather than by
# baddbmm, which first copies the broadcast bias into the whole score block: one pass over the scores
# fewer (10-15% faster on 2 cores, the same numbers).


def _nw_fused(q: torch.Tensor, kt: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    s = torch.bmm(q, kt)[:, :-1] + kb.unsqueeze(1)
    z = (s - s.amax(dim=-1, keepdim=True)).clamp_min(Z_FLOOR[s.dtype])
    e = torch.exp(z)
    den = e.sum(-1)
    return (e * y.unsqueeze(1)).sum(-1) / den, den, (e * e).sum(-1), (e * z).sum(-1)


def _nw_fused_narrow(q: torch.Tensor, kt: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """`_nw_fused` for narrow keys: written as a broadcast product summed over the width, the scores are
    computed inside the loop nest and never written out (measured 10-15% faster at widths 4 and 8, where
    bmm's cost is writing the scores; slower from 16 on, where the products dominate)."""
    s = (q[:, :-1, :, None] * kt[:, None, :, :]).sum(2) + kb.unsqueeze(1)
    z = (s - s.amax(dim=-1, keepdim=True)).clamp_min(Z_FLOOR[s.dtype])
    e = torch.exp(z)
    den = e.sum(-1)
    return (e * y.unsqueeze(1)).sum(-1) / den, den, (e * e).sum(-1), (e * z).sum(-1)


NARROW_KEYS = 8
"""Key widths up to this use `_nw_fused_narrow`."""


INDUCTOR_OPTIONS: dict[str, str | int | bool | Callable[..., object]] = {"triton.coalesce_tiling_analysis": False}
"""Inductor's coalescing analysis for GPU tiling asserts on these dynamic-shape reductions (torch 2.11 on an
H200: AssertionError in tiling_utils.get_pw_red_splits) and, by its own note, does not apply to dynamic
shapes anyway; the CPU ignores it."""

COMPILED_KERNELS: dict[str, tuple[NWFn, int]] = {
    "wide": (_nw_fused, 2 * NARROW_KEYS),
    "narrow": (_nw_fused_narrow, NARROW_KEYS // 2),
}
"""Each compiled kernel and the key width it is first traced at (the order `_compiled` holds them in)."""
HINT_SHAPES = ((32, 64, 512), (16, 32, 256))
"""(batch, queries, keys) of the runs that put a kernel's dynamic shapes in place, the first at its width, the
second one narrower. Realistic sizes: inductor tunes its loops on the first shapes it sees (hints), so a kept
package is exported at the first of them too: the same generated code."""


def hint_inputs(
    width: int, shape: tuple[int, int, int], device: torch.device, dtype: torch.dtype
) -> tuple[torch.Tensor, ...]:
    """A kernel's inputs (queries with their extra row, transposed keys, bias, values) at a hint shape."""
    b, qn, n = shape
    return (
        torch.randn(b, qn + 1, width, device=device, dtype=dtype),
        torch.randn(b, width, n, device=device, dtype=dtype),
        torch.randn(b, n, device=device, dtype=dtype),
        torch.randn(b, n, device=device, dtype=dtype),
    )


KEPT_KIND = "kernels"
KEPT_RUNNERS = 8
"""Calls one kept package runs at once (the job threads, the fast lane, the background one); more wait."""


@functools.cache
def _processor() -> str:
    """What the generated code is specific to (it is built with -march=native): the CPU's model and flags."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return f"{platform.machine()} {platform.processor()}"
    wanted = ("model name", "flags")
    return " ".join(line for line in info.splitlines()[:64] if line.split(":")[0].strip() in wanted)


@functools.cache
def _source() -> str:
    """This module's source, hashed once per process (a kept kernel is named at each load and each build)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def kept_name(kernel: str, dtype: torch.dtype, threads: int | None = None) -> str:
    """The kept package's file name: a hash of what its code depends on (this module's source, torch, the
    processor, the dtype, the threads inductor planned its loops for, inductor's options)."""
    facts = {
        "kernel": kernel,
        "dtype": str(dtype),
        "source": _source(),
        "torch": torch.__version__,
        "cpu": _processor(),
        "threads": threads or torch.get_num_threads(),
        "options": sorted((k, repr(v)) for k, v in INDUCTOR_OPTIONS.items()),
    }
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest()[:24]
    return f"nw-{kernel}-{digest}.pt2"


def _packaged(path: Path) -> NWFn:
    loader = torch._C._aoti.AOTIModelPackageLoader(str(path), "model", False, KEPT_RUNNERS, -1)

    def run(q: torch.Tensor, kt: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # a package checks neither strides nor offsets: it reads its inputs as the contiguous ones it was
        # exported with (a no-op for the blocks nw_attention passes)
        return tuple(loader.run([q.contiguous(), kt.contiguous(), kb.contiguous(), y.contiguous()]))

    return run


def load_kept(device: torch.device, dtype: torch.dtype) -> tuple[NWFn, NWFn] | None:
    """Both kernels as an earlier start kept them (`headdiv.workers.engine.kernel_build`), or None: none kept
    for this setup, not a CPU, or a package that does not load."""
    if device.type != "cpu":
        return None
    paths = [kept_path(KEPT_KIND, kept_name(kernel, dtype)) for kernel in COMPILED_KERNELS]
    if any(path is None for path in paths):
        return None
    try:
        wide, narrow = (_packaged(path) for path in paths if path is not None)
    except (RuntimeError, OSError):
        log.warning("the kept NW kernels did not load; compiling them", exc_info=True)
        return None
    return wide, narrow


_lock = threading.Lock()
_compiled: dict[tuple[str, torch.dtype], tuple[NWFn, NWFn]] = {}
_from_kept: set[tuple[str, torch.dtype]] = set()


def _compile(device: torch.device, dtype: torch.dtype, pause: Callable[[], object] | None = None) -> tuple[NWFn, NWFn]:
    """The kept kernels when an earlier start kept them, else compile both (wide, narrow) and run each once
    on two shapes so dynamic shapes are in place before real work arrives; `pause()` before each kernel's
    compilation (a server lets people's requests go first)."""
    key = (device.type, dtype)
    with _lock:
        if key in _compiled:
            return _compiled[key]
        kept = load_kept(device, dtype)
        if kept is not None:
            _compiled[key] = kept
            _from_kept.add(key)
            return kept
        fns: list[NWFn] = []
        for fn, width in COMPILED_KERNELS.values():
            if pause is not None:
                pause()
            compiled: NWFn = torch.compile(fn, dynamic=True, options=INDUCTOR_OPTIONS)  # type: ignore[assignment]
            for shape, w in zip(HINT_SHAPES, (width, width - 1), strict=True):
                compiled(*hint_inputs(w, shape, device, dtype))
            fns.append(compiled)
        _compiled[key] = (fns[0], fns[1])
        return _compiled[key]


def compiled_from_kept(device: torch.device | None = None, dtype: torch.dtype | None = None) -> bool:
    """Whether this process's kernels for the configured device and dtype came from kept packages."""
    from headdiv.workers.engine.device import resolve_device, resolve_dtype

    return ((device or resolve_device(None)).type, dtype or resolve_dtype(None)) in _from_kept


def warm_up(
    device: torch.device | None = None, dtype: torch.dtype | None = None, pause: Callable[[], object] | None = None
) -> bool:
    """Compile the NW step for the configured device and dtype (`pause()` before each kernel); False when
    compilation is off or fails."""
    from headdiv.workers.engine.device import resolve_device, resolve_dtype

    settings = get_engine_settings()
    if settings.compile == "off":
        return False
    dev = device or resolve_device(None)
    dt = dtype or resolve_dtype(None)
    try:
        _compile(dev, dt, pause)
    except Exception:  # compilation needs a C++ toolchain; the eager path is always correct
        log.warning("torch.compile of the NW step failed; using the eager path", exc_info=True)
        return False
    return True


def _kernel(device: torch.device, dtype: torch.dtype, n: int, d: int) -> NWFn | None:
    """The compiled kernel for keys of width d when it is ready (or compilation is 'on') and the shapes suit
    it, else None."""
    if min(n, d) < 2:
        return None
    fns = _compiled.get((device.type, dtype))
    if fns is None and get_engine_settings().compile == "on":
        fns = _compile(device, dtype)
    if fns is None:
        return None
    # The narrow kernel's in-loop scores pay on a CPU's caches; on a GPU inductor makes them a separate
    # reduction kernel that writes them out (measured on an H200: S1's step 2.1 ms against bmm's fewer).
    return fns[1] if d <= NARROW_KEYS and device.type == "cpu" else fns[0]


def nw_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    kb: torch.Tensor,
    y: torch.Tensor,
    *,
    with_stats: bool = False,
    score_bytes: int | None = None,
    on_block: Callable[[int], None] | None = None,
    transposed: bool = False,
) -> tuple[torch.Tensor, ...]:
    """NW estimates (B, Q) of values y (B, n) at pre-scaled queries q (B, Q, d) over keys k (B, n, d).

    With `transposed`, k is (B, d, n): the layout in which one matrix product writes a whole batch's keys
    and the score product reads them as they lie. q may be a strided view (it is copied per block). With
    `with_stats`, also returns Z, S2, Sz (each (B, Q)) for the MAW gate. Peak extra memory is
    about three score blocks of `score_bytes` each, whatever B, Q and n are. `on_block` is called with
    the number of scores after each block (milliseconds apart) and may raise to stop the call: progress
    and cancel reach inside however large one call is.
    """
    b, nq, d = q.shape
    kt = k if transposed else k.transpose(1, 2)
    n = kt.shape[2]
    block = score_bytes or block_bytes(q.device)[1]
    per_query_row = n * q.element_size()
    q_chunk = max(1, min(nq, block // per_query_row))
    b_chunk = max(1, min(b, block // (per_query_row * q_chunk)))
    fast = _kernel(q.device, q.dtype, n, d)
    eager = _nw_stats if with_stats else _nw_plain
    count = 4 if with_stats else 1
    blocks: list[list[torch.Tensor]] = [[] for _ in range(count)]  # joined once: fewer small copies
    for b0 in range(0, b, b_chunk):
        b1 = min(b, b0 + b_chunk)
        # contiguous: the compiled function sees one stride layout (no recompilation); a no-op when transposed
        kk, kbb, yy = kt[b0:b1].contiguous(), kb[b0:b1], y[b0:b1]
        row: list[list[torch.Tensor]] = [[] for _ in range(count)]
        for q0 in range(0, nq, q_chunk):
            q1 = min(nq, q0 + q_chunk)
            # size-1 dimensions would make the compiled function specialise and recompile
            if fast is not None and min(b1 - b0, q1 - q0) >= 2:
                qp = torch.empty(b1 - b0, q1 - q0 + 1, d, device=q.device, dtype=q.dtype)
                qp[:, :-1] = q[b0:b1, q0:q1]
                qp[:, -1] = 0.0
                res = fast(qp, kk, kbb, yy)
            else:
                res = eager(q[b0:b1, q0:q1].contiguous(), kk, kbb, yy)
            for part, r in zip(row, res, strict=False):  # plain estimates drop the fused kernel's sums
                part.append(r)
            if on_block:
                on_block((b1 - b0) * (q1 - q0) * n)
        for out, part in zip(blocks, row, strict=True):
            out.append(_join(part, 1))
    return tuple(_join(out, 0) if out else q.new_empty(0, nq) for out in blocks)


def _join(parts: list[torch.Tensor], dim: int) -> torch.Tensor:
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=dim)
