"""Batched Monte Carlo: every head's NW estimate at every query, for every training set, of several scenarios.

A batch is a list of scenarios that share the shapes of the NW step (replicates R, heads H, queries,
n, d_k and the ambient dimension p): all replicates and heads of a chunk, of every scenario in the
batch, go through one NW call as a batch of cells * R_chunk * H attention problems. Scenarios with the
same seed draw the same training sets and query points (`sampling`), so those are drawn once. Each
scenario's numbers are those of running it alone, up to float rounding: every attention row depends
only on its own query and keys. Memory: one chunk holds at most `chunk_bytes` of training data and keys
(at least one training set per scenario), plus score blocks of `score_bytes`, plus the kept estimates.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from workers.engine.errors import JobCancelled
from workers.engine.geometry import BigHead, Geometry
from workers.engine.nw import nw_attention
from workers.engine.sampling import SLICE_POINTS, query_points, training_sets
from workers.engine.targets import apply_target, signal_direction
from workers.schemas import Scenario
from workers.schemas.kernels import KERNELS
from workers.schemas.weightings import WEIGHTINGS, AttentionSums
from workers.settings import get_engine_settings


@dataclass
class Draws:
    """Raw Monte Carlo output, on the CPU in float64, ready for the pure decomposition code."""

    estimates: np.ndarray  # (R, H, Q)
    gates: dict[str, np.ndarray]  # per gating scheme: (R, H, Q) gate weights
    big: np.ndarray  # (R, Q) big-head estimates
    truth: np.ndarray  # (Q,)
    slice_t: np.ndarray  # (S,)
    slice_truth: np.ndarray  # (S,)
    slice_heads: np.ndarray  # (H, S) replicate 1's estimates along x = t a
    slice_gates: dict[str, np.ndarray]  # per gating scheme: (H, S)
    big_dim: int


GATING = [w for w in WEIGHTINGS if w.per_draw]
"""The weighting schemes computed per draw, from the sums the NW step accumulates."""
PROGRESS_EVERY_S = 0.1


class _Ticker:
    """Cancel and progress from inside a run: called with the scores of every NW block (milliseconds
    apart), it raises `JobCancelled` once `should_cancel` turns true and reports the fraction of all
    scores done, a few times a second. A run of two huge replicates thus still cancels within a block."""

    def __init__(
        self, should_cancel: Callable[[], bool] | None, progress: Callable[[float], None] | None, total: float
    ) -> None:
        self.should_cancel, self.progress, self.total = should_cancel, progress, max(1.0, total)
        self.done, self._reported = 0.0, 0.0

    def __call__(self, scores: int) -> None:
        if self.should_cancel and self.should_cancel():
            raise JobCancelled(f"cancelled after {self.done / self.total:.0%} of the run")
        self.done += scores
        now = time.monotonic()
        if self.progress and now - self._reported >= PROGRESS_EVERY_S:
            self._reported = now
            self.progress(min(1.0, self.done / self.total))


def _nw_inputs(
    s: Scenario, keys: torch.Tensor, queries: torch.Tensor, d: int, out: tuple[torch.Tensor, ...] | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Scaled queries (B, Q, d), keys (B, n, d) and logit bias (B, n) for the scenario's kernel, contiguous.

    `keys` (..., n, d) may be a strided view and `queries` (..., Q, d) may broadcast over its leading
    dimensions: outputs are written contiguously in one pass each (into `out`, slices of a batch's
    buffers, when given), then the leading dims are flattened. Distance kernels: keys and queries are
    first centred on the keys' mean, because the augmented-vector form subtracts large |k|^2 terms that
    would otherwise eat float32's precision (the kernel only sees q - k).
    """
    lead, (n, _), nq = keys.shape[:-2], keys.shape[-2:], queries.shape[-2]
    if out is None:
        qs = torch.empty((*lead, nq, d), device=keys.device, dtype=keys.dtype)
        kc = torch.empty((*lead, n, d), device=keys.device, dtype=keys.dtype)
        kb = torch.empty((*lead, n), device=keys.device, dtype=keys.dtype)
    else:
        qs, kc, kb = (o.view(*lead, *o.shape[1:]) for o in out)
    kernel = KERNELS[s.kernel].of(s)
    scale = kernel.logit_scale(s, d)
    if kernel.distance:
        centre = keys.mean(dim=-2, keepdim=True)
        torch.sub(keys, centre, out=kc)
        torch.sub(queries, centre, out=qs).mul_(scale)
        torch.linalg.vecdot(kc, kc, out=kb).mul_(-0.5 * scale)
    else:
        kc.copy_(keys)
        qs.copy_(queries.expand_as(qs)).mul_(scale)
        kb.zero_()
    return qs.flatten(0, -3), kc.flatten(0, -3), kb.flatten(0, -2)


@dataclass
class _NWTask:
    """One scenario's part of a batched NW call: keys (Rc, n, H, d), query keys (Q, H, d), values (Rc, n)."""

    s: Scenario
    keys: torch.Tensor
    qkeys: torch.Tensor
    y: torch.Tensor


def _heads_nw(tasks: list[_NWTask], tick: _Ticker | None = None) -> list[tuple[torch.Tensor, dict[str, torch.Tensor]]]:
    """Estimates (Rc, H, Q) and every gating scheme's gates of each task, all in one NW call."""
    rc, n, h, d = tasks[0].keys.shape
    nq = tasks[0].qkeys.shape[0]
    rows = rc * h
    first = tasks[0].keys
    qs = torch.empty(len(tasks) * rows, nq, d, device=first.device, dtype=first.dtype)
    ks = torch.empty(len(tasks) * rows, n, d, device=first.device, dtype=first.dtype)
    kb = torch.empty(len(tasks) * rows, n, device=first.device, dtype=first.dtype)
    yy = torch.empty(len(tasks) * rows, n, device=first.device, dtype=first.dtype)
    for i, t in enumerate(tasks):
        part = slice(i * rows, (i + 1) * rows)
        _nw_inputs(t.s, t.keys.transpose(1, 2), t.qkeys.transpose(0, 1).unsqueeze(0), d, (qs[part], ks[part], kb[part]))
        yy[part].view(rc, h, n).copy_(t.y.unsqueeze(1).expand(rc, h, n))
    outs = nw_attention(qs, ks, kb, yy, with_stats=bool(GATING), on_block=tick)
    results = []
    for i, t in enumerate(tasks):
        est, *stats = (o[i * rows : (i + 1) * rows].view(rc, h, -1) for o in outs)
        gates: dict[str, torch.Tensor] = {}
        if stats:
            sums = AttentionSums(z=stats[0], s2=stats[1], sz=stats[2], n=n)
            gates = {w.name: w.of(t.s).gate(sums) for w in GATING}
        results.append((est, gates))
    return results


def _big_heads_nw(
    runs: list[_Run],
    tasks: list[_NWTask],
    samples: dict[tuple[int, float], tuple[torch.Tensor, torch.Tensor]],
    r0: int,
    r1: int,
    tick: _Ticker | None = None,
) -> None:
    """Every scenario's big-head estimates for replicates r0..r1, one NW call per big-head dimension."""
    by_dim: dict[int, list[int]] = {}
    for i, r in enumerate(runs):
        by_dim.setdefault(r.big.dim, []).append(i)
    rows = r1 - r0
    for dim, members in by_dim.items():
        first = tasks[members[0]].keys
        n, nq = first.shape[1], runs[members[0]].big_q.shape[0]
        qs = torch.empty(len(members) * rows, nq, dim, device=first.device, dtype=first.dtype)
        ks = torch.empty(len(members) * rows, n, dim, device=first.device, dtype=first.dtype)
        kb = torch.empty(len(members) * rows, n, device=first.device, dtype=first.dtype)
        yy = torch.empty(len(members) * rows, n, device=first.device, dtype=first.dtype)
        for j, i in enumerate(members):
            r, t = runs[i], tasks[i]
            part = slice(j * rows, (j + 1) * rows)
            x = samples[(r.s.seed, r.s.ar1_phi)][0]
            _nw_inputs(r.s, r.big.keys(x, t.keys), r.big_q.unsqueeze(0), dim, (qs[part], ks[part], kb[part]))
            yy[part].copy_(t.y)
        (est,) = nw_attention(qs, ks, kb, yy, on_block=tick)
        for j, i in enumerate(members):
            runs[i].big_est[r0:r1] = est[j * rows : (j + 1) * rows]


@dataclass
class _Run:
    """One scenario of a batch: what it computes once, and the buffers its chunks fill."""

    s: Scenario
    geometry: Geometry
    a: torch.Tensor
    truth: torch.Tensor
    big: BigHead
    qkeys: torch.Tensor
    big_q: torch.Tensor
    xs_keys: torch.Tensor
    est: torch.Tensor
    gates: dict[str, torch.Tensor]
    big_est: torch.Tensor
    slice_heads: torch.Tensor | None = None
    slice_gates: dict[str, torch.Tensor] | None = None


def _prepare(s: Scenario, geometry: Geometry, xq: torch.Tensor, t: torch.Tensor) -> _Run:
    device, dtype = xq.device, xq.dtype
    a = signal_direction(s, geometry, device=device, dtype=dtype)
    big = geometry.big_head(device, dtype)
    qkeys = geometry.keys(xq)
    est = torch.empty(s.replicates, s.H, s.queries, device=device, dtype=dtype)
    return _Run(
        s=s,
        geometry=geometry,
        a=a,
        truth=apply_target(s.target, xq @ a),
        big=big,
        qkeys=qkeys,
        big_q=big.keys(xq, qkeys),
        xs_keys=geometry.keys(t[:, None] * a[None, :]),
        est=est,
        gates={w.name: torch.empty_like(est) for w in GATING},
        big_est=torch.empty(s.replicates, s.queries, device=device, dtype=dtype),
    )


def run_draws(
    batch: list[tuple[Scenario, Geometry]],
    device: torch.device,
    dtype: torch.dtype,
    *,
    should_cancel: Callable[[], bool] | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[Draws]:
    """The draws of every scenario of a batch (same R, H, queries, n, d_k and p), in order.

    `should_cancel` is polled between blocks of attention scores (`JobCancelled` when it turns true) and
    `progress` receives the fraction of the scores done, a few times a second.
    """
    settings = get_engine_settings()
    s0, g0 = batch[0]
    p, H, d, n, R, nq = g0.p, s0.H, s0.d_k, s0.n, s0.replicates, s0.queries
    t = torch.linspace(-3.0, 3.0, SLICE_POINTS, device=device, dtype=dtype)
    seeds = list(dict.fromkeys(s.seed for s, _ in batch))
    sources = list(dict.fromkeys((s.seed, s.ar1_phi) for s, _ in batch))  # scenarios that share training sets
    xq = {seed: query_points(seed, nq, p, device=device, dtype=dtype) for seed in seeds}
    runs = [_prepare(s, g, xq[s.seed], t) for s, g in batch]

    elem = torch.finfo(dtype).bits // 8
    per_set = n * elem * (len(sources) * (2 * p + 1) + sum(3 * H * (d + 1) + 2 * r.big.dim + 3 for r in runs))
    chunk = max(1, min(R, settings.chunk_bytes // per_set))
    tick = _Ticker(should_cancel, progress, R * len(runs) * (H + 1) * nq * n)  # heads' and big heads' scores
    for r0 in range(0, R, chunk):
        tick(0)
        r1 = min(R, r0 + chunk)
        samples = {key: training_sets(key[0], r0, r1, n, p, device=device, dtype=dtype, phi=key[1]) for key in sources}
        values: dict[tuple[object, ...], torch.Tensor] = {}  # a theta sweep's cells share their responses
        tasks, slices = [], []
        for r in runs:
            x, eps = samples[(r.s.seed, r.s.ar1_phi)]
            signal = (r.s.seed, r.s.ar1_phi, r.s.target, r.s.noise, tuple(r.a.tolist()))
            if signal not in values:
                values[signal] = apply_target(r.s.target, x @ r.a) + r.s.noise * eps
            y = values[signal]
            keys = r.geometry.keys(x)  # (Rc, n, H, d)
            tasks.append(_NWTask(r.s, keys, r.qkeys, y))
            slices.append(_NWTask(r.s, keys[:1], r.xs_keys, y[:1]))
        _big_heads_nw(runs, tasks, samples, r0, r1, tick)
        for r, (est, gates) in zip(runs, _heads_nw(tasks, tick), strict=True):
            r.est[r0:r1] = est
            for name, g in gates.items():
                r.gates[name][r0:r1] = g
        if r0 == 0:
            for r, (sh, sg) in zip(runs, _heads_nw(slices), strict=True):
                r.slice_heads, r.slice_gates = sh[0], {name: g[0] for name, g in sg.items()}
        del samples, tasks, slices
    if progress:
        progress(1.0)

    def host(v: torch.Tensor) -> np.ndarray:
        return v.detach().to("cpu", torch.float64).numpy()

    slice_truth = host(apply_target(s0.target, t))
    return [
        Draws(
            estimates=host(r.est),
            gates={name: host(g) for name, g in r.gates.items()},
            big=host(r.big_est),
            truth=host(r.truth),
            slice_t=host(t),
            slice_truth=host(apply_target(r.s.target, t)) if r.s.target != s0.target else slice_truth,
            slice_heads=host(r.slice_heads if r.slice_heads is not None else torch.empty(0)),
            slice_gates={name: host(g) for name, g in (r.slice_gates or {}).items()},
            big_dim=r.big.dim,
        )
        for r in runs
    ]
