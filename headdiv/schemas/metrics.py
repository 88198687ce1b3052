"""The numbers a surface reports per cell, with the label people read (the engine fills them by name)."""

from __future__ import annotations

from typing import Any

from headdiv.i18n import N_

CellSummary = dict[str, Any]
"""The numbers of one cell that a multi-cell job's result is assembled from (the keys of `CELL_SUMMARY`)."""

CELL_SUMMARY: tuple[str, ...] = (
    "mse",
    "bias2",
    "variance",
    "covariance",
    "mse_se",
    "hdi",
    "effective_heads",
    "mean_correlation",
)
"""What a multi-cell job keeps of each cell's result: every number a surface, a sweep or an architecture shows."""

SURFACE_METRICS: dict[str, str] = {
    "mse": "MSE",
    "bias2": N_("Bias²"),
    "variance": N_("Variance"),
    "covariance": N_("Covariance"),
    "mse_se": N_("MSE standard error"),
    "hdi": "HDI",
    "effective_heads": N_("Effective heads"),
}
