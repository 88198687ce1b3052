"""The decomposition's sums for every cell of a batch at once, on the device that drew them, in float64.

`decomposition` states docs/model.md section 4 on one cell's NumPy draws; this module reduces a whole
batch's draws (C cells x R replicates x H heads x Q queries) where they lie, so a surface's cells share
their launches and only small sums cross to the host: each cell's bias (H, Q) and Cbar (H, H), and the
per-replicate squared errors (R,) that the Monte Carlo standard errors need. The formulas are
`decomposition`'s (dividing by R, per-replicate errors averaged over queries); float64 throughout, so the
sums agree with the NumPy form to rounding on either device. An ensemble's direct MSE and its Monte Carlo
standard error (`decomposition.replicate_se`) are reduced there too: its per-replicate errors never leave.

Two passes: `sums` gives every cell's moments (from which the fixed weighting schemes choose their weights
on the host: each is a few H x H operations), then `direct` gives the direct MSE of the ensembles those
weights make.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from headdiv.workers.engine.decomposition import Moments
from headdiv.workers.engine.draws import BatchDraws

F64 = torch.float64


@dataclass(frozen=True)
class Gated:
    """A per-draw gating scheme's sums for one cell: its gated heads' moments (each head weighted by its
    gate, carrying truth / H), the gated ensemble's direct MSE with its standard error, the mean gate."""

    moments: Moments
    direct: tuple[float, float]
    mean_gate: np.ndarray  # (H,)


@dataclass(frozen=True)
class CellSums:
    """Everything `simulation` reads of one cell's draws, as float64 NumPy."""

    moments: Moments
    gated: dict[str, Gated]
    big: dict[str, float]  # the big head's bias2, variance, mse and mse_se (`decomposition.single_estimator`)
    slice_t: np.ndarray  # (S,)
    slice_truth: np.ndarray  # (S,)
    slice_heads: np.ndarray  # (H, S)
    slice_gates: dict[str, np.ndarray]  # (H, S)
    big_dim: int


def _moments(e: torch.Tensor, truth: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Bias (C, H, Q) and Cbar (C, H, H) of estimates e (C, R, H, Q) against truth (C, Q): one batched
    product over the cells (`decomposition.moments` cell by cell)."""
    c, r, h, q = e.shape
    mean = e.mean(dim=1)
    dev = (e - mean.unsqueeze(1)).view(c * r, h, q)  # one (H, Q) block per replicate: no transposed copy
    cbar = torch.bmm(dev, dev.transpose(1, 2)).view(c, r, h, h).sum(dim=1) / (r * q)
    return mean - truth.unsqueeze(1), cbar


def _per_replicate(ensemble: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    """Each replicate's query-averaged squared error (..., R) of ensembles (..., R, Q) against truth (C, Q)."""
    lead = ensemble.dim() - truth.dim() - 1
    t = truth.view(truth.shape[0], *([1] * lead), 1, truth.shape[1])
    return (ensemble - t).square_().mean(dim=-1)


def _direct(per_rep: torch.Tensor) -> torch.Tensor:
    """(..., 2): the mean of per-replicate errors (..., R) and its standard error (ddof = 1 over sqrt(R),
    `decomposition.replicate_se`)."""
    r = per_rep.shape[-1]
    return torch.stack([per_rep.mean(dim=-1), per_rep.std(dim=-1, correction=1) / r**0.5], dim=-1)


def _pair(v: np.ndarray) -> tuple[float, float]:
    return float(v[0]), float(v[1])


class BatchMoments:
    """A batch's draws in float64 on their device, reduced in two passes (the module's docstring)."""

    def __init__(self, draws: BatchDraws) -> None:
        self.draws = draws
        self.est = draws.estimates.to(F64)
        self.truth = draws.truth

    def sums(self) -> list[CellSums]:
        """Every cell's moments, gated schemes and big-head baseline: one hand-over for the batch."""
        d, est, truth = self.draws, self.est, self.truth
        h = est.shape[2]
        on_device: dict[str, torch.Tensor] = {}
        on_device["bias"], on_device["cbar"] = _moments(est, truth)
        for name, gate in d.gates.items():
            g = gate.to(F64)
            contrib = g * est
            on_device[f"{name}.bias"], on_device[f"{name}.cbar"] = _moments(contrib, truth / h)
            on_device[f"{name}.direct"] = _direct(_per_replicate(contrib.sum(dim=2), truth))
            on_device[f"{name}.mean_gate"] = g.mean(dim=(1, 3))
        big = d.big.to(F64)
        big_mean = big.mean(dim=1)
        on_device["big.bias2"] = (big_mean - truth).square().mean(dim=-1)
        on_device["big.variance"] = (big - big_mean.unsqueeze(1)).square().mean(dim=(1, 2))
        on_device["big.direct"] = _direct(_per_replicate(big, truth))
        for key, v in (("slice_t", d.slice_t), ("slice_truth", d.slice_truth), ("slice_heads", d.slice_heads)):
            on_device[key] = v.to(F64)
        for name, g in d.slice_gates.items():
            on_device[f"slice.{name}"] = g.to(F64)
        host = _to_host(on_device)
        out = []
        for c, dim in enumerate(d.big_dims):
            bias2, variance = float(host["big.bias2"][c]), float(host["big.variance"][c])
            out.append(
                CellSums(
                    moments=Moments(bias=host["bias"][c], cbar=host["cbar"][c]),
                    gated={
                        name: Gated(
                            moments=Moments(bias=host[f"{name}.bias"][c], cbar=host[f"{name}.cbar"][c]),
                            direct=_pair(host[f"{name}.direct"][c]),
                            mean_gate=host[f"{name}.mean_gate"][c],
                        )
                        for name in d.gates
                    },
                    big={
                        "mse": bias2 + variance,
                        "bias2": bias2,
                        "variance": variance,
                        "mse_se": float(host["big.direct"][c, 1]),
                    },
                    slice_t=host["slice_t"],
                    slice_truth=host["slice_truth"][c],
                    slice_heads=host["slice_heads"][c],
                    slice_gates={name: host[f"slice.{name}"][c] for name in d.slice_gates},
                    big_dim=dim,
                )
            )
        return out

    def direct(self, alphas: np.ndarray, cells: list[int]) -> np.ndarray:
        """The direct MSE and its standard error (N, K, 2) of fixed-weight ensembles alphas (N, K, H), row i
        combining the heads of cell `cells[i]` (scenarios that differ only in their weights share draws)."""
        dev = self.est.device
        a = torch.as_tensor(alphas, dtype=F64).to(dev)
        est, truth = self.est, self.truth
        if cells != list(range(est.shape[0])):
            index = torch.as_tensor(cells, device=dev)
            est, truth = est.index_select(0, index), truth.index_select(0, index)
        ensemble = torch.matmul(a.unsqueeze(1), est)  # (N, R, K, Q)
        return _direct(_per_replicate(ensemble, truth).transpose(1, 2)).cpu().numpy()


def _to_host(tensors: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Every tensor on the host, in one copy of one flat buffer (one synchronisation, not one per tensor)."""
    keys = list(tensors)
    flat = torch.cat([tensors[k].reshape(-1) for k in keys]).cpu().numpy()
    out, at = {}, 0
    for k in keys:
        size = tensors[k].numel()
        out[k] = flat[at : at + size].reshape(tensors[k].shape)
        at += size
    return out
