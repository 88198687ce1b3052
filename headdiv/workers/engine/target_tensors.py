"""The signal direction a and the targets m(x) = f(a . x) on tensors (docs/model.md section 3)."""

from __future__ import annotations

import torch

from headdiv.schemas import Scenario
from headdiv.schemas.targets import TARGETS
from headdiv.workers.engine.geometry import HeadLayout


def signal_direction(s: Scenario, geometry: HeadLayout, *, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """Unit vector a: e_0 for a shared signal; for a spread one, equal weight on the geometry's spread
    coordinates (the first coordinate of B_0, ..., B_H in a block layout)."""
    a = torch.zeros(geometry.p, device=device, dtype=dtype)
    coords = geometry.spread_coordinates() if s.signal == "spread" else [0]
    a[coords] = 1.0 / len(coords) ** 0.5
    return a


def apply_target(target: str, t: torch.Tensor) -> torch.Tensor:
    """f(t) of the named target for the scalar index t = a . x."""
    result: torch.Tensor = TARGETS[target]().f(t)
    return result
