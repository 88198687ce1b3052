"""Batched Monte Carlo: every head's NW estimate at every query, for every training set, of several scenarios.

A batch is a list of scenarios that share the shapes of the NW step (replicates R, heads H, queries, n, d_k
and the ambient dimension p). Its heads and big heads are gathered into units (`Unit`): one key map
(`keymaps`) on one source of training sets, with one kernel scale and one set of values. A head's estimates
depend on nothing else (docs/model.md section 1), so the heads of any cells that share a unit are computed
once: identical heads (theta = 0), and a big head whose heads all span one subspace (it is then head 0).
All units of one key width go through one NW call per chunk of replicates.

What else the cells of a batch share: scenarios with the same seed draw the same training sets and query
points (`sampling`), drawn once; a distance kernel's training sets are centred once for all heads (the
key maps are linear); responses are computed once per signal; keys and gates are whole-batch tensor
operations, and the draws stay on the device for the decomposition (`draws.BatchDraws`, `batch_moments`). Each scenario's numbers are those of running it alone, up to float
rounding: every attention row depends only on its own query and keys. Memory: one chunk holds at most
`chunk_bytes` of training data and keys (at least one training set per source), plus score blocks of
`score_bytes`, plus the kept estimates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from headdiv.schemas import Scenario
from headdiv.schemas.errors import JobCancelled
from headdiv.schemas.kernels import KERNELS
from headdiv.schemas.weightings import AttentionSums
from headdiv.workers.engine.batch_plan import GATING, Batch, Call, Plan, Run, Source, plan_batch
from headdiv.workers.engine.device import block_bytes
from headdiv.workers.engine.draws import BatchDraws
from headdiv.workers.engine.nw import nw_attention
from headdiv.workers.engine.sampling import SLICE_POINTS, query_points, training_sets
from headdiv.workers.engine.target_tensors import apply_target

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


@dataclass(frozen=True)
class _Chunk:
    """Replicates r0..r1 of every source: training sets, their means (the centre of every key map's keys,
    since the maps are linear) and the responses of every signal."""

    samples: dict[Source, tuple[torch.Tensor, torch.Tensor]]
    means: dict[Source, torch.Tensor]
    values: list[torch.Tensor]
    xq: dict[int, torch.Tensor]  # each seed's query points (Q, p)

    @classmethod
    def draw(cls, plan: Plan, xq: dict[int, torch.Tensor], r0: int, r1: int, n: int) -> _Chunk:
        some = next(iter(xq.values()))
        p, dev, dt = some.shape[-1], some.device, some.dtype
        sources = list(dict.fromkeys(u.source for u in plan.units))
        samples = {key: training_sets(key[0], r0, r1, n, p, device=dev, dtype=dt, phi=key[1]) for key in sources}
        values = [
            apply_target(v.target, samples[v.source][0] @ v.a) + v.noise * samples[v.source][1] for v in plan.signals
        ]
        return cls(samples, {key: x.mean(dim=1, keepdim=True) for key, (x, _) in samples.items()}, values, xq)

    def keys(self, run: Run, rows: slice = slice(None)) -> torch.Tensor:
        """Training inputs (Rc, n, p), centred for a distance kernel (float32 precision, see `_nw_inputs`)."""
        x = self.samples[run.source][0][rows]
        return x - self.means[run.source][rows] if run.distance else x

    def queries(self, run: Run, points: torch.Tensor | None = None, rows: slice = slice(None)) -> torch.Tensor:
        """Query points (m, p) (the seed's own by default) as (Rc or 1, m, p), centred on each training set's
        mean for a distance kernel."""
        points = self.xq[run.source[0]] if points is None else points
        return points - self.means[run.source][rows] if run.distance else points.unsqueeze(0)


PointsOf = Callable[[Run], torch.Tensor]


def _inputs(
    call: Call, keys_of: PointsOf, queries_of: PointsOf, values: list[torch.Tensor], rc: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Scaled queries (Rc U, Q, w), transposed keys (Rc U, w, n), logit bias and values (Rc U, n) of a call's
    units, row (r, u) for unit u on training set r: one matrix product writes a run's keys as they lie."""
    run0 = call.runs[0]
    sample, queries = keys_of(run0), queries_of(run0)
    n, nq, w, units = sample.shape[-2], queries.shape[-2], run0.maps.width, call.stop - call.start
    qt, kt = (torch.empty(rc, units, w, m, device=sample.device, dtype=sample.dtype) for m in (nq, n))
    kb, yy = (torch.empty(rc, units, n, device=sample.device, dtype=sample.dtype) for _ in range(2))
    for run in call.runs:
        part = slice(run.start - call.start, run.stop - call.start)
        k, q = kt[:, part], qt[:, part]
        run.maps(keys_of(run), k)
        run.maps(queries_of(run), q)
        q.mul_(run.q_scale)
        if run.distance:
            _squared_norms(k, kb[:, part]).mul_(run.kb_scale)
        else:
            kb[:, part] = 0.0
        yy[:, part] = values[run.signal].unsqueeze(1)
    return qt.flatten(0, 1).transpose(1, 2), kt.flatten(0, 1), kb.flatten(0, 1), yy.flatten(0, 1)


NARROW = 16
"""Keys up to this width get their squared norms one coordinate row at a time (contiguous passes), faster
than a reduction across the rows (measured 25-40% on one core)."""


def _squared_norms(kt: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """|k|^2 of transposed keys (..., w, n) into `out` (..., n)."""
    width = kt.shape[-2]
    if width > NARROW:
        return torch.linalg.vecdot(kt, kt, dim=-2, out=out)
    torch.mul(kt[..., 0, :], kt[..., 0, :], out=out)
    for j in range(1, width):
        out.addcmul_(kt[..., j, :], kt[..., j, :])
    return out


def _gates(plan: Plan, sums: list[torch.Tensor], n: int) -> Iterator[tuple[str, torch.Tensor, torch.Tensor]]:
    """Every gating scheme's gates (Cg, Rc, H, m) of each group of cells, from the head units' sums (Rc, U, m)."""
    for name, groups in plan.gates.items():
        for scheme, cells in groups:
            z, s2, sz = (v[:, plan.heads[cells]].transpose(0, 1) for v in sums)
            yield name, cells, scheme.gate(AttentionSums(z=z, s2=s2, sz=sz, n=n))


def _values_per_set(plan: Plan, n: int, nq: int, p: int) -> int:
    """Values a chunk holds per training set at its peak: each source's inputs (raw and centred, noise,
    centred queries), the responses, the largest call's keys, queries, bias and values (up to three copies
    of the keys and queries where a map family builds them before copying them in place), and every
    unit's NW outputs."""
    sources = len({u.source for u in plan.units})

    def call_values(call: Call) -> int:
        total = 0
        for run in call.runs:
            copies = 1 if run.maps.family == "dense" else 3
            total += (run.stop - run.start) * (copies * run.maps.width * (n + nq) + 2 * n)
        return total

    return (
        sources * (n * (2 * p + 1) + nq * p)
        + len(plan.signals) * n
        + max(call_values(call) for call in plan.calls)
        + 4 * nq * len(plan.units)
    )


def run_draws(
    batch: Batch,
    device: torch.device,
    dtype: torch.dtype,
    *,
    should_cancel: Callable[[], bool] | None = None,
    progress: Callable[[float], None] | None = None,
) -> BatchDraws:
    """The draws of every scenario of a batch (same R, H, queries, n, d_k and p), in order.

    `should_cancel` is polled between blocks of attention scores (`JobCancelled` when it turns true) and
    `progress` receives the fraction of the scores done, a few times a second.
    """
    chunk_bytes, _ = block_bytes(device)
    s0, g0 = batch[0]
    p, H, n, R, nq, C = g0.p, s0.H, s0.n, s0.replicates, s0.queries, len(batch)
    plan = plan_batch(batch, device, dtype)
    sources = list(dict.fromkeys(u.source for u in plan.units))
    xq = {seed: query_points(seed, nq, p, device=device, dtype=dtype) for seed, _ in sources}
    est = torch.empty(C, R, H, nq, device=device, dtype=dtype)
    gates = {w.name: torch.empty_like(est) for w in GATING}
    big = torch.empty(C, R, nq, device=device, dtype=dtype)
    t = torch.linspace(-3.0, 3.0, SLICE_POINTS, device=device, dtype=dtype)
    slices = _Slices(t, torch.empty(C, H, SLICE_POINTS, device=device, dtype=dtype))

    per_set = _values_per_set(plan, n, nq, p) * (torch.finfo(dtype).bits // 8)
    chunk = max(1, min(R, chunk_bytes // per_set))
    tick = _Ticker(should_cancel, progress, R * len(plan.units) * nq * n)  # heads' and big heads' scores
    for r0 in range(0, R, chunk):
        tick(0)
        r1 = min(R, r0 + chunk)
        data = _Chunk.draw(plan, xq, r0, r1, n)
        outs, sums = [], []
        for call in plan.calls:
            tick(0)  # drawing a chunk, or mapping a call's keys, takes up to a second at p in the thousands
            inputs = _inputs(call, data.keys, data.queries, data.values, r1 - r0)
            res = nw_attention(*inputs, with_stats=call.heads and bool(GATING), on_block=tick, transposed=True)
            outs.append(res[0].view(r1 - r0, -1, nq))
            if call.heads:
                sums = [v.view(r1 - r0, -1, nq) for v in res[1:]]
                if r0 == 0:
                    slices.compute(plan, call, data, n)
        by_unit = torch.cat(outs, dim=1) if len(outs) > 1 else outs[0]  # (Rc, units, Q)
        est[:, r0:r1] = by_unit[:, plan.heads].transpose(0, 1)
        big[:, r0:r1] = by_unit[:, plan.big].transpose(0, 1)
        for name, cells, g in _gates(plan, sums, n):
            gates[name][cells, r0:r1] = g
        del data, outs, sums, by_unit
    tick(0)
    if progress:
        progress(1.0)
    return _hand_over(batch, plan, xq, est, gates, big, slices)


@dataclass
class _Slices:
    """Replicate 1's estimates and gates along x = t a, for the 1-D slice of docs/model.md section 4."""

    t: torch.Tensor
    heads: torch.Tensor  # (C, H, S)
    gates: dict[str, torch.Tensor] | None = None

    def compute(self, plan: Plan, call: Call, data: _Chunk, n: int) -> None:
        first = slice(0, 1)

        def queries_of(run: Run) -> torch.Tensor:
            return data.queries(run, self.t[:, None] * plan.signals[run.signal].a, first)

        inputs = _inputs(call, lambda run: data.keys(run, first), queries_of, [v[first] for v in data.values], 1)
        est, *sums = (
            v.view(1, -1, len(self.t)) for v in nw_attention(*inputs, with_stats=bool(GATING), transposed=True)
        )
        self.heads.copy_(est[0, plan.heads])
        self.gates = {w.name: torch.empty_like(self.heads) for w in GATING}
        for name, cells, g in _gates(plan, sums, n):
            self.gates[name][cells] = g[:, 0]


def _hand_over(
    batch: Batch,
    plan: Plan,
    xq: dict[int, torch.Tensor],
    est: torch.Tensor,
    gates: dict[str, torch.Tensor],
    big: torch.Tensor,
    slices: _Slices,
) -> BatchDraws:
    """The batch's draws with every cell's truth at its queries and along the slice, all on the device."""
    f64 = torch.float64
    truth = torch.stack(
        [apply_target(s.target, xq[s.seed] @ plan.signals[plan.cell_signals[c]].a) for c, (s, _) in enumerate(batch)]
    ).to(f64)
    along = {target: apply_target(target, slices.t).to(f64) for target in {s.target for s, _ in batch}}
    return BatchDraws(
        estimates=est,
        gates=gates,
        big=big,
        truth=truth,
        slice_t=slices.t,
        slice_truth=torch.stack([along[s.target] for s, _ in batch]),
        slice_heads=slices.heads,
        slice_gates=slices.gates or {},
        big_dims=list(plan.big_dims),
    )
