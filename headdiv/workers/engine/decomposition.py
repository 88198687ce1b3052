"""The Bias-Variance-Covariance decomposition of docs/model.md section 4, on simulated estimates.

Pure float64 NumPy on E[r, h, j] (replicate, head, query). Dividing by R (not R - 1) makes
bias^2 + variance + covariance equal the direct mean squared error exactly, up to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

Array = np.ndarray


def _frozen(a: Array) -> Array:
    a = np.asarray(a)
    a.flags.writeable = False  # computed once and shared by every scheme that reads it
    return a


@dataclass(frozen=True)
class Moments:
    """Per-head bias at each query and the query-averaged covariance matrix Cbar. The derived arrays are
    computed once (every weighting scheme, and each point of a parameter scan, reads them)."""

    bias: Array  # (H, Q)
    cbar: Array  # (H, H)

    @cached_property
    def head_bias2(self) -> Array:
        return _frozen(np.mean(self.bias**2, axis=1))

    @cached_property
    def head_variance(self) -> Array:
        return _frozen(np.diag(self.cbar).copy())

    @cached_property
    def head_mse(self) -> Array:
        return _frozen(self.head_bias2 + self.head_variance)

    @cached_property
    def error_second_moment(self) -> Array:
        """M = Cbar + mean_j B_j B_j^T: alpha^T M alpha is the ensemble MSE of fixed weights alpha."""
        return _frozen(self.cbar + self.bias @ self.bias.T / self.bias.shape[1])

    def terms(self, alpha: Array) -> dict[str, float]:
        """Ensemble bias^2, variance (diagonal) and cross-head covariance (off-diagonal) for weights alpha."""
        bias2 = float(np.mean((alpha @ self.bias) ** 2))
        weighted = np.outer(alpha, alpha) * self.cbar
        variance = float(np.trace(weighted))
        covariance = float(np.sum(weighted) - variance)
        return {"mse": bias2 + variance + covariance, "bias2": bias2, "variance": variance, "covariance": covariance}


def moments(e: Array, truth: Array) -> Moments:
    r = e.shape[0]
    mean = e.mean(axis=0)
    dev = e - mean
    cbar = np.einsum("rhj,rgj->hg", dev, dev) / (r * e.shape[2])
    return Moments(bias=mean - truth, cbar=cbar)


def replicate_se(per_rep: Array) -> float:
    """Monte Carlo standard error of a mean over replicates (docs/model.md section 4): the sample
    standard deviation (ddof = 1) of the per-replicate values, over sqrt(R)."""
    return float(per_rep.std(ddof=1) / np.sqrt(per_rep.size))


def per_replicate_mse(estimate: Array, truth: Array) -> Array:
    """Each replicate's query-averaged squared error of one estimator's draws (R, Q)."""
    return np.asarray(np.mean((estimate - truth) ** 2, axis=1))


def direct_mse(e: Array, truth: Array, alpha: Array) -> tuple[float, float]:
    """Mean over replicates and queries of the squared error, and its Monte Carlo standard error."""
    per_rep = per_replicate_mse(np.einsum("h,rhj->rj", alpha, e), truth)
    return float(per_rep.mean()), replicate_se(per_rep)


def effective_heads(m: Moments, alpha: Array) -> float | None:
    """H_eff = mean_h Cbar_hh / alpha^T Cbar alpha; undefined when the ensemble has no variance."""
    denom = float(alpha @ m.cbar @ alpha)
    num = float(np.mean(np.diag(m.cbar)))
    if denom <= 1e-300 or num <= 0:
        return None
    return num / denom


def correlation(cbar: Array) -> tuple[list[list[float | None]], float | None]:
    """Correlation matrix (None where a head has no variance) and its mean off-diagonal entry."""
    sd = np.sqrt(np.clip(np.diag(cbar), 0, None))
    h = cbar.shape[0]
    defined = np.outer(sd > 1e-150, sd > 1e-150)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.clip(cbar / np.outer(sd, sd), -1.0, 1.0)
    out = [[float(c[i, j]) if defined[i, j] else None for j in range(h)] for i in range(h)]
    off = c[defined & ~np.eye(h, dtype=bool)]  # row by row, as the matrix reads
    return out, (float(np.mean(off)) if off.size else None)


def single_estimator(e: Array, truth: Array) -> dict[str, float]:
    """bias^2, variance, MSE and the MSE's standard error of one estimator's draws e (R, Q) (a baseline
    or a gated ensemble). The error is that of the ensemble's `mse_se`, so the two read side by side."""
    mean = e.mean(axis=0)
    bias2 = float(np.mean((mean - truth) ** 2))
    variance = float(np.mean(np.mean((e - mean) ** 2, axis=0)))
    return {
        "mse": bias2 + variance,
        "bias2": bias2,
        "variance": variance,
        "mse_se": replicate_se(per_replicate_mse(e, truth)),
    }
