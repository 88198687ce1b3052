"""Head weighting schemes (docs/model.md section 5; the paper's section 7), one entry per scheme.

Two kinds of scheme exist:

- fixed weights (`alpha`): a function of the heads' error moments only, so every such scheme is
  evaluated on the same draws without new simulation;
- per-draw gates (`gate`): weights computed for each query and training set from the sums the NW
  step accumulates (Z = sum e, S2 = sum e^2, Sz = sum e * logit), then decomposed as gated heads.

Adding a scheme is one registered class below: a `FixedWeights` with `alpha`, or a `GatedWeights`
with `gate`; its parameters, if any, are its fields (they join the scenario and appear as sliders in
the Weighting view).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Protocol

import numpy as np
from pydantic import Field

from headdiv.i18n import N_
from headdiv.schemas.fields import Float, Slider, Sweep
from headdiv.schemas.registry import Choice, Registry
from headdiv.schemas.results.result_parts import ParamScan

RHO_GRID = np.round(np.linspace(0.05, 1.0, 20), 4)
"""The values of rho along which geometric weights are scanned (their `scan` in a simulation's result)."""


class ErrorMoments(Protocol):
    """What a fixed scheme may read of the heads' errors (the engine's `Moments`)."""

    @property
    def head_mse(self) -> np.ndarray: ...

    @property
    def error_second_moment(self) -> np.ndarray:
        """M = Cbar + mean_j B_j B_j^T: alpha^T M alpha is the ensemble MSE of fixed weights alpha."""
        ...

    def terms(self, alpha: np.ndarray) -> dict[str, float]:
        """The ensemble's mse, bias2, variance and covariance under weights alpha."""
        ...


@dataclass(frozen=True)
class AttentionSums:
    """Per (replicate, head, query): Z = sum_i e_i, S2 = sum_i e_i^2 and Sz = sum_i e_i z_i over the n keys,
    where e_i = exp(z_i) and z_i = logit_i - max logit (so max e = 1)."""

    z: Any
    s2: Any
    sz: Any
    n: int


class Weighting(Choice):
    """How the heads are combined into the ensemble."""

    per_draw: ClassVar[bool] = False
    """False: fixed weights from the error moments (`alpha`); True: weights per draw (`gate`)."""

    def alpha(self, m: ErrorMoments) -> np.ndarray:
        """Fixed weights summing to one, from the heads' error moments."""
        raise NotImplementedError

    def gate(self, sums: AttentionSums) -> Any:
        """Per-draw weights over heads (dim -2) from the attention sums."""
        raise NotImplementedError

    def scan(self, m: ErrorMoments) -> ParamScan | None:
        """The MSE along a grid of this scheme's parameter, for a scheme that has one."""
        return None


class FixedWeights(Weighting):
    """Weights that depend on the heads' error moments only."""

    implements = ("alpha",)


class GatedWeights(Weighting):
    """Weights computed for each query and training set."""

    implements = ("gate",)
    per_draw = True


WEIGHTINGS: Registry[Weighting] = Registry("weighting scheme", Weighting)


def best_first(head_mse: np.ndarray) -> np.ndarray:
    """Head indices ordered by their own MSE, best first (ties keep head order)."""
    return np.argsort(head_mse, kind="stable")


def uniform(h: int) -> np.ndarray:
    return np.full(h, 1.0 / h)


def geometric(head_mse: np.ndarray, rho: float | np.ndarray) -> np.ndarray:
    """alpha_(k) proportional to rho^(k-1) for the k-th best head; for an array of rho, one row each."""
    rank = np.empty(head_mse.size)
    rank[best_first(head_mse)] = np.arange(head_mse.size, dtype=np.float64)
    alpha = np.asarray(rho, dtype=np.float64)[..., None] ** rank
    return np.asarray(alpha / alpha.sum(axis=-1, keepdims=True))


def fibonacci(head_mse: np.ndarray) -> np.ndarray:
    """The best head gets F_H, the next F_(H-1), ..., the worst F_1 (F_1 = F_2 = 1)."""
    h = head_mse.size
    fib = [1.0, 1.0]
    while len(fib) < h:
        fib.append(fib[-1] + fib[-2])
    alpha = np.empty(h)
    alpha[best_first(head_mse)] = np.asarray(fib[:h][::-1])
    return alpha / alpha.sum()


def optimal(m: ErrorMoments) -> np.ndarray:
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


@WEIGHTINGS.register("uniform", N_("uniform"))
class Uniform(FixedWeights):
    """Every head weighs 1/H: the plain average of the paper's Theorem 4.2."""

    def alpha(self, m: ErrorMoments) -> np.ndarray:
        return uniform(m.head_mse.size)


@WEIGHTINGS.register("geometric", N_("geometric (ρ)"))
class Geometric(FixedWeights):
    """The k-th best head weighs ρ^(k-1), normalised."""

    rho: Annotated[Float, Slider(0.05, 1.0, 0.05), Sweep((0.1, 0.3, 0.5, 0.7, 0.9, 1))] = Field(
        0.7, gt=0, le=1, title=N_("ρ (geometric)"), description=N_("Ratio of geometric weights.")
    )

    def alpha(self, m: ErrorMoments) -> np.ndarray:
        return geometric(m.head_mse, self.rho)

    def scan(self, m: ErrorMoments) -> ParamScan:
        """MSE of geometric weights along RHO_GRID (alpha^T M alpha for all of them in one product), and the
        best rho on it."""
        alphas = geometric(m.head_mse, RHO_GRID)
        mse = np.einsum("kh,hg,kg->k", alphas, m.error_second_moment, alphas)
        best = float(RHO_GRID[int(np.argmin(mse))])
        return ParamScan(param="rho", values=RHO_GRID.tolist(), mse=mse.tolist(), best=best)


@WEIGHTINGS.register("fibonacci", N_("Fibonacci"))
class Fibonacci(FixedWeights):
    """The best head weighs F_H, the next F_(H-1), ..., normalised."""

    def alpha(self, m: ErrorMoments) -> np.ndarray:
        return fibonacci(m.head_mse)


@WEIGHTINGS.register("optimal", N_("optimal"))
class Optimal(FixedWeights):
    """M⁺1 / 1ᵀM⁺1: the fixed weights of least MSE on these draws."""

    def alpha(self, m: ErrorMoments) -> np.ndarray:
        return optimal(m)


@WEIGHTINGS.register("maw", N_("MAW gating (β)"))
class Maw(GatedWeights):
    """A per-query softmax gate over heads from their attention statistics (the MAW gate).

    From the sums of one head's attention weights w = e / Z: max(w) = 1 / Z (the largest e is
    exp(0)), sum w^2 = S2 / Z^2, var(w) = sum w^2 / n - 1 / n^2 (population variance over the n keys),
    entropy = log Z - Sz / Z. g = softmax_h((1 + 10 beta)(0.5 var + 0.3 max + 0.2 HHI - 0.4 entropy)).
    """

    beta: Annotated[Float, Slider(0.0, 5.0, 0.1), Sweep((0, 0.5, 1, 2, 5))] = Field(
        0.5, ge=0, le=100, title=N_("β (MAW)"), description=N_("MAW gating strength; sharpness is 1 + 10 beta.")
    )

    def gate(self, sums: AttentionSums) -> Any:
        z, n = sums.z, sums.n
        hhi = sums.s2 / (z * z)
        var = hhi / n - 1.0 / (n * n)
        peak = 1.0 / z
        entropy = z.log() - sums.sz / z
        score = (1.0 + 10.0 * self.beta) * (0.5 * var + 0.3 * peak + 0.2 * hhi - 0.4 * entropy)
        return score.softmax(dim=-2)

    def notes(self, s: Any) -> list[str]:
        return ["MAW weights vary per draw: alpha is the mean gate, and the terms decompose the gated heads"]
