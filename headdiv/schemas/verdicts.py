"""The tests behind the conclusions the page states, on the numbers its charts draw, with their Monte Carlo
error. Torch-free and shared: the engine reports a test's outcome in its result (a diversity sweep's
`holds`), and the dashboard puts the same test, on the same numbers, into words."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SIGNIFICANT_Z = 2.0
"""A difference counts when it exceeds this many standard errors of itself."""


@dataclass(frozen=True)
class Rise:
    """Where the MSE rises most with HDI: from point `lower` (lower HDI) to point `higher` (higher HDI)."""

    lower: int
    higher: int
    z: float
    """The rise in standard errors of the difference."""


def worst_rise(hdi: Sequence[float], mse: Sequence[float], se: Sequence[float]) -> Rise | None:
    """The pair of points (every pair, so a slow trend counts) where the MSE at the higher HDI exceeds the MSE
    at the lower one by the most standard errors of their difference, if by more than `SIGNIFICANT_Z`; None
    when no pair does, that is when the sweep agrees with Theorem 4.2's "more diversity, lower MSE"."""
    worst: Rise | None = None
    for i in range(len(mse)):
        for j in range(len(mse)):
            if hdi[j] <= hdi[i]:
                continue
            spread = math.sqrt(se[i] ** 2 + se[j] ** 2)
            excess = mse[j] - mse[i]
            z = excess / spread if spread > 0 else (math.inf if excess > 0 else 0.0)
            if z > SIGNIFICANT_Z and (worst is None or z > worst.z):
                worst = Rise(i, j, z)
    return worst
