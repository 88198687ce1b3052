"""A batch's plan, fixed before its first draw: its heads and big heads gathered into units (`Unit`), one
key map on one source of training sets with one kernel scale and one set of values, and the units cut into
NW calls of one key width (docs/model.md section 1: nothing else enters an estimate, so cells sharing a
unit compute it once). `montecarlo` runs the plan."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from headdiv.schemas import Scenario
from headdiv.schemas.kernels import KERNELS
from headdiv.schemas.weightings import WEIGHTINGS, Weighting
from headdiv.workers.engine.geometry import HeadLayout
from headdiv.workers.engine.keymaps import KeyMap, Maps, big_head_map, head_maps
from headdiv.workers.engine.target_tensors import signal_direction

Source = tuple[int, float]
"""(seed, AR(1) phi): scenarios with the same source draw the same training sets (`sampling`)."""
Batch = list[tuple[Scenario, HeadLayout]]

GATING = [w for w in WEIGHTINGS if w.per_draw]
"""The weighting schemes computed per draw, from the sums the NW step accumulates."""


@dataclass(frozen=True)
class Unit:
    """One distinct NW problem of a batch: a key map on one source's training sets, with one kernel scale
    and one set of values (docs/model.md section 1: nothing else enters an estimate)."""

    source: Source
    signal: int
    distance: bool
    scale: float
    keymap: KeyMap


@dataclass(frozen=True)
class Signal:
    """The responses y = f(a . x) + noise * eps on one source's training sets (docs/model.md section 3)."""

    source: Source
    target: str
    noise: float
    a: torch.Tensor


@dataclass(frozen=True)
class Run:
    """Consecutive units of one call that one `Maps` evaluates on one source's points, with one signal."""

    start: int
    stop: int
    source: Source
    distance: bool
    signal: int
    maps: Maps
    q_scale: torch.Tensor  # (U, 1, 1): the kernel's logit scale
    kb_scale: torch.Tensor  # (U, 1): -scale / 2, for the Gaussian kernel's -|k|^2 / 2h^2 bias


@dataclass(frozen=True)
class Call:
    """Units [start, stop) of one key width: one NW call per chunk of replicates (head units come first)."""

    start: int
    stop: int
    heads: bool
    runs: list[Run]


@dataclass(frozen=True)
class Plan:
    """What a batch computes, fixed before its first draw: the units and their calls, the unit each cell's
    heads (C, H) and big head (C,) read, and each cell's signal and big-head dimension."""

    units: list[Unit]
    signals: list[Signal]
    calls: list[Call]
    heads: torch.Tensor
    big: torch.Tensor
    cell_signals: list[int]
    big_dims: list[int]
    gates: dict[str, list[tuple[Weighting, torch.Tensor]]]  # per gating scheme: (scheme, its cells)


def gate_groups(batch: Batch, device: torch.device) -> dict[str, list[tuple[Weighting, torch.Tensor]]]:
    """Per gating scheme, the cells whose gates have the same parameters: each group is gated at once."""
    out: dict[str, list[tuple[Weighting, torch.Tensor]]] = {}
    for w in GATING:
        groups: list[tuple[Weighting, list[int]]] = []
        for c, (s, _) in enumerate(batch):
            scheme = w.of(s)
            group = next((cells for other, cells in groups if other == scheme), None)
            if group is None:
                groups.append((scheme, [c]))
            else:
                group.append(c)
        out[w.name] = [(scheme, torch.as_tensor(cells, device=device)) for scheme, cells in groups]
    return out


def run_key(u: Unit) -> tuple[object, ...]:
    return (Maps.group_key(u.keymap), u.source, u.distance, u.signal)


def split_ranges(units: list[Unit], start: int, stop: int, same: Callable[[Unit], object]) -> list[tuple[int, int]]:
    """[start, stop) cut into maximal ranges of units with equal `same`."""
    ranges: list[tuple[int, int]] = []
    for i in range(start, stop):
        if ranges and same(units[i]) == same(units[ranges[-1][0]]):
            ranges[-1] = (ranges[-1][0], i + 1)
        else:
            ranges.append((i, i + 1))
    return ranges


def calls_of(units: list[Unit], heads: int, device: torch.device, dtype: torch.dtype) -> list[Call]:
    """Sorted units (the `heads` head units first) as calls of one key width each, cut into runs."""
    calls: list[Call] = []
    for part in ((0, heads), (heads, len(units))):
        for start, stop in split_ranges(units, *part, lambda u: u.keymap.width):
            runs = []
            for r0, r1 in split_ranges(units, start, stop, run_key):
                u0, scale = units[r0], torch.tensor([u.scale for u in units[r0:r1]], device=device, dtype=dtype)
                maps = Maps([u.keymap for u in units[r0:r1]], device, dtype)
                q_scale, kb_scale = scale.view(-1, 1, 1), -0.5 * scale.view(-1, 1)
                runs.append(Run(r0, r1, u0.source, u0.distance, u0.signal, maps, q_scale, kb_scale))
            calls.append(Call(start, stop, start < heads, runs))
    return calls


def plan_batch(batch: Batch, device: torch.device, dtype: torch.dtype) -> Plan:
    """Gather every cell's heads and big head into units. A big head spans every head's subspace, so when
    its dimension is d_k all heads span that one subspace and the big head reads head 0's unit (the same
    projector W W^T and kernel scale give the same estimates, docs/model.md section 1)."""
    signal_ids: dict[tuple[object, ...], int] = {}
    signals: list[Signal] = []
    found: dict[Unit, int] = {}
    heads: list[list[int]] = []
    bigs: list[int] = []
    cell_signals: list[int] = []
    big_dims: list[int] = []
    for s, g in batch:
        source = (s.seed, s.ar1_phi)
        a = signal_direction(s, g, device=device, dtype=dtype)
        sig = signal_ids.setdefault((source, s.target, s.noise, tuple(a.tolist())), len(signals))
        if sig == len(signals):
            signals.append(Signal(source, s.target, s.noise, a))
        kernel = KERNELS[s.kernel].of(s)
        big = big_head_map(g)
        units = [Unit(source, sig, kernel.distance, kernel.logit_scale(s, m.dim), m) for m in [*head_maps(g), big]]
        ids = [found.setdefault(u, len(found)) for u in units[:-1]]
        heads.append(ids)
        bigs.append(ids[0] if big.dim == s.d_k else found.setdefault(units[-1], len(found)))
        cell_signals.append(sig)
        big_dims.append(big.dim)
    head_ids = {i for ids in heads for i in ids}
    order = sorted(found, key=lambda u: (found[u] not in head_ids, u.keymap.width, *run_key(u)))
    index = {found[u]: i for i, u in enumerate(order)}
    return Plan(
        units=order,
        signals=signals,
        calls=calls_of(order, len(head_ids), device, dtype),
        heads=torch.as_tensor([[index[i] for i in ids] for ids in heads], device=device),
        big=torch.as_tensor([index[i] for i in bigs], device=device),
        cell_signals=cell_signals,
        big_dims=big_dims,
        gates=gate_groups(batch, device),
    )
