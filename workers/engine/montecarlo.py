"""Batched Monte Carlo: every head's NW estimate at every query, for every training set.

All replicates and heads of a chunk go through one NW call as a batch of R_chunk * H attention
problems. Memory: one chunk holds at most `chunk_bytes` of training data and keys (at least one
training set, which the schema caps at 2^26 values), plus score blocks of `score_bytes`, plus the
kept estimates (R * H * queries values, capped by `max_estimates`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from workers.engine.geometry import BlockGeometry, DenseGeometry, Geometry
from workers.engine.nw import nw_attention
from workers.engine.sampling import SLICE_POINTS, query_points, training_sets
from workers.engine.targets import apply_target, signal_direction
from workers.engine.weights import maw_gate
from workers.schemas import Scenario
from workers.settings import get_engine_settings


@dataclass
class Draws:
    """Raw Monte Carlo output, on the CPU in float64, ready for the pure decomposition code."""

    estimates: np.ndarray  # (R, H, Q)
    gates: np.ndarray  # (R, H, Q) MAW gate weights
    big: np.ndarray  # (R, Q) big-head estimates
    truth: np.ndarray  # (Q,)
    slice_t: np.ndarray  # (S,)
    slice_truth: np.ndarray  # (S,)
    slice_heads: np.ndarray  # (H, S) replicate 1's estimates along x = t a
    slice_gates: np.ndarray  # (H, S)
    big_dim: int


def bandwidth(s: Scenario, d: int) -> float:
    """h of the Gaussian kernel for a head of dimension d (MODEL.md section 1)."""
    if s.bandwidth_rule == "paper":
        return 1.0 / math.sqrt(d)
    if s.bandwidth_rule == "scott":
        return float(s.n ** (-1.0 / (d + 4)))
    return s.bandwidth


class _BigHead:
    """Keys of one head spanning every head's subspace, in an orthonormal basis of that span."""

    def __init__(self, geometry: Geometry, device: torch.device, dtype: torch.dtype) -> None:
        self.geometry = geometry
        if isinstance(geometry, BlockGeometry):
            t, keep = geometry.big_head_transform()
            # Columns j sharing one transform (all of them for equiangular and tilted heads, two groups
            # for shared_dims) go through one matmul instead of a batched einsum over j.
            self.groups: list[tuple[torch.Tensor, torch.Tensor]] = []
            for t_j in np.unique(t.reshape(t.shape[0], -1), axis=0):
                cols = [j for j in range(t.shape[0]) if np.array_equal(t[j].reshape(-1), t_j)]
                rows = t[cols[0]][keep[cols[0]]]
                self.groups.append(
                    (torch.as_tensor(cols, device=device), torch.as_tensor(rows.T.copy(), device=device, dtype=dtype))
                )
            self.dim = int(keep.sum())
        else:
            basis = geometry.big_head_basis()
            self.basis = torch.as_tensor(basis, device=device, dtype=dtype)
            self.dim = int(basis.shape[1])

    def keys(self, x: torch.Tensor, head_keys: torch.Tensor) -> torch.Tensor:
        """(..., p) points and their (..., H, d_k) head keys -> (..., D) big-head keys."""
        if isinstance(self.geometry, DenseGeometry):
            return x @ self.basis
        lead, (h, d) = head_keys.shape[:-2], head_keys.shape[-2:]
        parts = []
        for cols, t in self.groups:
            picked = head_keys if len(cols) == d else head_keys[..., cols]
            # one (batch * columns, H) @ (H, D_group) GEMM rather than many tiny ones
            rows = picked.transpose(-1, -2).reshape(-1, h)
            parts.append((rows @ t).reshape(*lead, -1))
        return torch.cat(parts, dim=-1) if len(parts) > 1 else parts[0]


def _nw_inputs(
    s: Scenario, keys: torch.Tensor, queries: torch.Tensor, d: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Scaled queries (B, Q, d), keys (B, n, d) and logit bias (B, n) for one kernel, contiguous.

    `keys` (..., n, d) may be a strided view and `queries` (..., Q, d) may broadcast over its leading
    dimensions: outputs are written contiguously in one pass each, then the leading dims are flattened.
    Gaussian: keys and queries are first centred on the keys' mean, because the augmented-vector form
    subtracts large |k|^2 terms that would otherwise eat float32's precision (the kernel only sees q - k).
    """
    lead, (n, _), nq = keys.shape[:-2], keys.shape[-2:], queries.shape[-2]
    kc = torch.empty((*lead, n, d), device=keys.device, dtype=keys.dtype)
    qs = torch.empty((*lead, nq, d), device=keys.device, dtype=keys.dtype)
    if s.kernel == "gaussian":
        inv = 1.0 / bandwidth(s, d) ** 2
        centre = keys.mean(dim=-2, keepdim=True)
        torch.sub(keys, centre, out=kc)
        torch.sub(queries, centre, out=qs).mul_(inv)
        kb = torch.linalg.vecdot(kc, kc).mul_(-0.5 * inv)
    else:
        kc.copy_(keys)
        qs.copy_(queries.expand_as(qs)).mul_(1.0 / (s.temperature * math.sqrt(d)))
        kb = torch.zeros((*lead, n), device=keys.device, dtype=keys.dtype)
    return qs.flatten(0, -3), kc.flatten(0, -3), kb.flatten(0, -2)


def _heads_nw(
    s: Scenario, keys: torch.Tensor, qkeys: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Estimates and MAW gates (Rc, H, Q) for keys (Rc, n, H, d), query keys (Q, H, d), y (Rc, n)."""
    rc, n, h, d = keys.shape
    qs, ks, kb = _nw_inputs(s, keys.transpose(1, 2), qkeys.transpose(0, 1).unsqueeze(0), d)
    yy = y.unsqueeze(1).expand(rc, h, n).reshape(rc * h, n)
    est, z, s2, sz = nw_attention(qs, ks, kb, yy, with_stats=True)
    est, z, s2, sz = (t.view(rc, h, -1) for t in (est, z, s2, sz))
    return est, maw_gate(z, s2, sz, n, s.beta)


def run_draws(s: Scenario, geometry: Geometry, device: torch.device, dtype: torch.dtype) -> Draws:
    settings = get_engine_settings()
    p, H, d, n, R = geometry.p, s.H, s.d_k, s.n, s.replicates
    a = signal_direction(s, p, device=device, dtype=dtype)
    xq = query_points(s.seed, s.queries, p, device=device, dtype=dtype)
    truth = apply_target(s.target, xq @ a)
    big = _BigHead(geometry, device, dtype)
    qkeys = geometry.keys(xq)
    big_q = big.keys(xq, qkeys)
    t = torch.linspace(-3.0, 3.0, SLICE_POINTS, device=device, dtype=dtype)
    xs = t[:, None] * a[None, :]
    xs_keys = geometry.keys(xs)

    elem = torch.finfo(dtype).bits // 8
    per_set = n * (2 * p + 3 * H * (d + 1) + 2 * big.dim + 4) * elem
    chunk = max(1, min(R, settings.chunk_bytes // per_set))

    est = torch.empty(R, H, s.queries, device=device, dtype=dtype)
    gates = torch.empty_like(est)
    big_est = torch.empty(R, s.queries, device=device, dtype=dtype)
    slice_heads = slice_gates = torch.empty(0)
    for r0 in range(0, R, chunk):
        r1 = min(R, r0 + chunk)
        x, eps = training_sets(s.seed, r0, r1, n, p, device=device, dtype=dtype)
        y = apply_target(s.target, x @ a) + s.noise * eps
        keys = geometry.keys(x)  # (Rc, n, H, d)
        est[r0:r1], gates[r0:r1] = _heads_nw(s, keys, qkeys, y)
        bk = big.keys(x, keys)
        qs, ks, kb = _nw_inputs(s, bk, big_q.unsqueeze(0), big.dim)
        (big_est[r0:r1],) = nw_attention(qs, ks, kb, y.contiguous())
        if r0 == 0:
            sh, sg = _heads_nw(s, keys[:1], xs_keys, y[:1])
            slice_heads, slice_gates = sh[0], sg[0]
        del x, eps, y, keys, bk

    def host(v: torch.Tensor) -> np.ndarray:
        return v.detach().to("cpu", torch.float64).numpy()

    return Draws(
        estimates=host(est),
        gates=host(gates),
        big=host(big_est),
        truth=host(truth),
        slice_t=host(t),
        slice_truth=host(apply_target(s.target, t)),
        slice_heads=host(slice_heads),
        slice_gates=host(slice_gates),
        big_dim=big.dim,
    )
