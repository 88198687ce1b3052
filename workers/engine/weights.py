"""Head weighting schemes of MODEL.md section 5 (the paper's section 7, and seed 004's MAW gate).

Fixed schemes are functions of the heads' moments only, so every scheme is evaluated on the same
draws without new simulation. MAW is a per-draw gate computed from attention statistics.
"""

from __future__ import annotations

import numpy as np
import torch

from workers.engine.decomposition import Moments

RHO_GRID = np.round(np.linspace(0.05, 1.0, 20), 4)


def best_first(head_mse: np.ndarray) -> np.ndarray:
    """Head indices ordered by their own MSE, best first (ties keep head order)."""
    return np.argsort(head_mse, kind="stable")


def uniform(h: int) -> np.ndarray:
    return np.full(h, 1.0 / h)


def geometric(head_mse: np.ndarray, rho: float) -> np.ndarray:
    """alpha_(k) proportional to rho^(k-1) for the k-th best head."""
    h = head_mse.size
    alpha = np.empty(h)
    alpha[best_first(head_mse)] = rho ** np.arange(h, dtype=np.float64)
    return alpha / alpha.sum()


def fibonacci(head_mse: np.ndarray) -> np.ndarray:
    """The best head gets F_H, the next F_(H-1), ..., the worst F_1 (F_1 = F_2 = 1)."""
    h = head_mse.size
    fib = [1.0, 1.0]
    while len(fib) < h:
        fib.append(fib[-1] + fib[-2])
    alpha = np.empty(h)
    alpha[best_first(head_mse)] = np.asarray(fib[:h][::-1])
    return alpha / alpha.sum()


def optimal(m: Moments) -> np.ndarray:
    """M^+ 1 / (1^T M^+ 1): the minimum-MSE weights summing to one (minimum-norm where M is singular)."""
    mm = m.error_second_moment
    h = mm.shape[0]
    scale = max(float(np.max(np.abs(mm))), 1e-300)
    # Directions below float32 resolution of the estimates are noise: treating them as singular keeps
    # the weights bounded (a near-singular M would otherwise give weights of 1e5 and more).
    x = np.linalg.pinv(mm / scale, rcond=1e-7, hermitian=True) @ np.ones(h)
    total = float(x.sum())
    if not np.isfinite(total) or abs(total) < 1e-12:
        return uniform(h)
    return np.asarray(x / total)


def maw_gate(z: torch.Tensor, s2: torch.Tensor, sz: torch.Tensor, n: int, beta: float) -> torch.Tensor:
    """Seed 004's statistical gate over heads (dim -2), per query and replicate.

    From the sums of one head's attention weights w = e / Z: max(w) = 1 / Z (the largest e is
    exp(0)), sum w^2 = S2 / Z^2, var(w) = sum w^2 / n - 1 / n^2 (population variance over the n keys),
    entropy = log Z - Sz / Z. g = softmax_h((1 + 10 beta)(0.5 var + 0.3 max + 0.2 HHI - 0.4 entropy)).
    """
    hhi = s2 / (z * z)
    var = hhi / n - 1.0 / (n * n)
    peak = 1.0 / z
    entropy = torch.log(z) - sz / z
    score = (1.0 + 10.0 * beta) * (0.5 * var + 0.3 * peak + 0.2 * hhi - 0.4 * entropy)
    return torch.softmax(score, dim=-2)
