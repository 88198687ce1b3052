"""What a batch's Monte Carlo hands over: every cell's estimates, gates, baselines and slices, left on the
device that computed them (`BatchDraws`), and one cell's as float64 NumPy (`Draws`), what the NumPy reference
and the tests compare with."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Draws:
    """One cell's raw Monte Carlo output as float64 NumPy (`BatchDraws.on_host`): what the NumPy reference
    and the tests compare with."""

    estimates: np.ndarray  # (R, H, Q)
    gates: dict[str, np.ndarray]  # per gating scheme: (R, H, Q) gate weights
    big: np.ndarray  # (R, Q) big-head estimates
    truth: np.ndarray  # (Q,)
    slice_t: np.ndarray  # (S,)
    slice_truth: np.ndarray  # (S,)
    slice_heads: np.ndarray  # (H, S) replicate 1's estimates along x = t a
    slice_gates: dict[str, np.ndarray]  # per gating scheme: (H, S)
    big_dim: int


@dataclass
class BatchDraws:
    """Raw Monte Carlo output of every cell of a batch, left on the device where it was computed: the
    decomposition reduces it there (`batch_moments`), so only its small sums cross to the host."""

    estimates: torch.Tensor  # (C, R, H, Q), working dtype
    gates: dict[str, torch.Tensor]  # per gating scheme: (C, R, H, Q)
    big: torch.Tensor  # (C, R, Q)
    truth: torch.Tensor  # (C, Q) float64
    slice_t: torch.Tensor  # (S,)
    slice_truth: torch.Tensor  # (C, S) float64
    slice_heads: torch.Tensor  # (C, H, S)
    slice_gates: dict[str, torch.Tensor]  # per gating scheme: (C, H, S)
    big_dims: list[int]

    def on_host(self) -> list[Draws]:
        """Every cell's draws as float64 NumPy: one transfer per quantity for the whole batch."""

        def host(v: torch.Tensor) -> np.ndarray:
            return v.detach().to("cpu", torch.float64).numpy()

        est, big, heads, t, truth, slice_truth = (
            host(v) for v in (self.estimates, self.big, self.slice_heads, self.slice_t, self.truth, self.slice_truth)
        )
        gates = {name: host(g) for name, g in self.gates.items()}
        slice_gates = {name: host(g) for name, g in self.slice_gates.items()}
        return [
            Draws(
                estimates=est[c],
                gates={name: g[c] for name, g in gates.items()},
                big=big[c],
                truth=truth[c],
                slice_t=t,
                slice_truth=slice_truth[c],
                slice_heads=heads[c],
                slice_gates={name: g[c] for name, g in slice_gates.items()},
                big_dim=dim,
            )
            for c, dim in enumerate(self.big_dims)
        ]
