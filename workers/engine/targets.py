"""Regression functions m(x) = f(a . x) and the signal direction a (MODEL.md section 3)."""

from __future__ import annotations

import torch

from workers.schemas import Scenario


def signal_direction(s: Scenario, p: int, *, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """Unit vector a: e_0, or (spread) the normalised sum of the first coordinates of B_0..B_H."""
    a = torch.zeros(p, device=device, dtype=dtype)
    if s.signal == "spread" and s.geometry != "random":
        a[:: s.d_k] = 1.0 / (s.H + 1) ** 0.5
    else:
        a[0] = 1.0
    return a


def apply_target(target: str, t: torch.Tensor) -> torch.Tensor:
    """f(t) for the scalar index t = a . x."""
    if target == "constant":
        return torch.zeros_like(t)
    if target == "linear":
        return t
    if target == "sine":
        return torch.sin(2.0 * t)
    if target == "quadratic":
        return t * t
    raise ValueError(f"unknown target {target!r}")
