"""The training lab: learn the heads' projections W_h by gradient descent (the paper's open problem 1, section 9.2).

The loss is the ensemble's squared error (docs/model.md section 4) against the true m(x*) at query points
drawn afresh each step, averaged over `batch` training sets drawn as the Monte Carlo draws them (the same
sampler, at replicate indices after the held-out ones). Every `record_every` steps the heads are
evaluated on the held-out draws, which are exactly the base scenario's Monte Carlo draws (replicates
0..R-1 at its fixed query points), with the decomposition of `decomposition` and the HDI, overlaps and
principal angles of `diversity` (on the column spaces of W_h, so free heads are measured as real ones).

The pure functions (`head_estimates`, `ensemble_loss`, `diversity_penalty`, `retract`) take tensors and
are what autograd differentiates; `run_training` drives them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import torch

from headdiv.schemas import Scenario
from headdiv.schemas.errors import JobCancelled
from headdiv.schemas.kernels import KERNELS
from headdiv.schemas.results.lab_results import TrainingResult
from headdiv.schemas.results.report_results import HdiReport
from headdiv.schemas.training_request import INITS, LISTED_ANGLE_PAIRS, OPTIMIZERS, TrainingRequest
from headdiv.workers.engine.decomposition import direct_mse, effective_heads, moments
from headdiv.workers.engine.device import resolve_device, resolve_dtype
from headdiv.workers.engine.diversity import hdi_report
from headdiv.workers.engine.geometry import build_geometry
from headdiv.workers.engine.head_layouts import Blocks
from headdiv.workers.engine.hooks import Hooks
from headdiv.workers.engine.result_building import result_of
from headdiv.workers.engine.sampling import query_points, seeded_generator, to_device, training_sets
from headdiv.workers.engine.target_tensors import apply_target, signal_direction

TRAINING_QUERIES = 4
"""Sampling stream of the training loss' query points (the sampler's own streams are 1 to 3)."""
EVAL_SCORES = 1 << 22
"""Attention weights one held-out chunk holds."""
PROGRESS_EVERY_S = 0.1


def head_estimates(
    wq: torch.Tensor, wk: torch.Tensor, x: torch.Tensor, y: torch.Tensor, xq: torch.Tensor, scale: float, distance: bool
) -> torch.Tensor:
    """Every head's NW estimate (B, H, Q) at queries xq (Q, p) from training sets x (B, n, p), y (B, n).

    Queries go through W_Q (H, p, d), keys through W_K; with the Gaussian kernel (`distance`) the logits
    are -scale |q - k|² / 2 up to a per-query constant, which the softmax ignores (keys are centred first,
    as the Monte Carlo does, so float32 keeps its precision)."""
    k = torch.einsum("bnp,hpd->bhnd", x, wk)
    q = torch.einsum("qp,hpd->hqd", xq, wq).unsqueeze(0)
    if distance:
        centre = k.mean(dim=-2, keepdim=True)
        k = k - centre
        q = q - centre
        logits = scale * (q @ k.transpose(-1, -2) - 0.5 * (k * k).sum(-1).unsqueeze(-2))
    else:
        logits = scale * (q @ k.transpose(-1, -2))
    w = torch.softmax(logits, dim=-1)
    return (w @ y[:, None, :, None]).squeeze(-1)


def ensemble_loss(est: torch.Tensor, alpha: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    """Mean over training sets and queries of (sum_h alpha_h m_h(x*) - m(x*))²."""
    return ((torch.einsum("h,bhq->bq", alpha, est) - truth) ** 2).mean()


def orthonormal_bases(w: torch.Tensor) -> torch.Tensor:
    """Q of the thin QR of each W_h (H, p, d), signs fixed so that diag(R) > 0 (continuous in W)."""
    q, r = torch.linalg.qr(w)
    signs = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))
    signs = torch.where(signs == 0, torch.ones_like(signs), signs)
    return q * signs.unsqueeze(-2)


def diversity_penalty(w: torch.Tensor) -> torch.Tensor:
    """Σ_{h<h'} ||Q_hᵀ Q_h'||_F² / d_k on orthonormal bases Q_h of the heads (so free heads are not
    rewarded for shrinking)."""
    q = orthonormal_bases(w)
    s = torch.einsum("hpd,gpe->hgde", q, q).pow(2).sum((-1, -2)) / w.shape[-1]
    return torch.triu(s, diagonal=1).sum()


@torch.no_grad()
def retract(w: torch.Tensor) -> None:
    """Put W_h back on the Stiefel manifold (orthonormal columns) in place: the QR retraction."""
    w.copy_(orthonormal_bases(w))


def _dense(layout: Blocks | Any) -> np.ndarray:
    """(H, p, d) matrices of a geometry: column j of W_h is a_hj e_j + b_hj e_{(h+1) d + col_hj} for blocks."""
    if not isinstance(layout, Blocks):
        return np.asarray(layout.w, dtype=np.float64)
    h, p, d = layout.shape
    w = np.zeros((h, p, d))
    for i in range(h):
        for j in range(d):
            w[i, j, j] += layout.a[i, j]
            w[i, (i + 1) * d + layout.col[i, j], j] += layout.b[i, j]
    return w


def _equiangular(base: Scenario, theta: float) -> np.ndarray:
    s = Scenario.model_validate({**base.model_dump(), "geometry": "equiangular", "theta": theta, "tilts": None})
    return _dense(build_geometry(s))


INIT_HEADS: dict[str, Callable[[Scenario], np.ndarray]] = {
    "identical": lambda s: _equiangular(s, 0.0),
    "equiangular": lambda s: _equiangular(s, float(getattr(s, "theta"))),  # noqa: B009 (a registry field)
    "random": lambda s: _dense(
        build_geometry(Scenario.model_validate({**s.model_dump(), "geometry": "random", "p": s.ambient_dim}))
    ),
    "orthogonal": lambda s: _equiangular(s, 90.0),
}
"""One implementation per name of `headdiv.schemas.training_request.INITS`, built by the geometry registry."""
OPTIMIZER_CLASSES: dict[str, Callable[..., torch.optim.Optimizer]] = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}
assert set(INIT_HEADS) == set(INITS) and set(OPTIMIZER_CLASSES) == set(OPTIMIZERS)


@dataclass
class Heads:
    """The trainable parameters: W_Q (and W_K when separate), and the logits of the head weights."""

    wq: torch.Tensor
    wk: torch.Tensor
    logits: torch.Tensor

    def alpha(self) -> torch.Tensor:
        return torch.softmax(self.logits, dim=0)

    def parameters(self, learn_weights: bool) -> list[torch.Tensor]:
        out = [self.wq] if self.wk is self.wq else [self.wq, self.wk]
        return [*out, self.logits] if learn_weights else out


class _Ticker:
    """Cancel between steps and held-out chunks; progress as the fraction of the work done."""

    def __init__(self, req: TrainingRequest, progress: Callable[[float], None] | None, cancel: Any) -> None:
        self.total, self.done, self.progress, self.cancel, self._last = max(1.0, req.work), 0.0, progress, cancel, 0.0

    def __call__(self, work: float) -> None:
        if self.cancel is not None and self.cancel():
            raise JobCancelled(f"cancelled after {self.done / self.total:.0%} of the training")
        self.done += work
        now = time.monotonic()
        if self.progress is not None and now - self._last >= PROGRESS_EVERY_S:
            self._last = now
            self.progress(min(1.0, self.done / self.total))


def _evaluate(
    heads: Heads, s: Scenario, a: torch.Tensor, scale: float, distance: bool, tick: _Ticker, record_work: float
) -> dict[str, Any]:
    """The held-out decomposition (base's replicates at its query points) and the heads' diversity;
    `tick` hears each chunk's share of the record's work units."""
    device, dtype = heads.wq.device, heads.wq.dtype
    p = heads.wq.shape[1]
    xq = query_points(s.seed, s.queries, p, device=device, dtype=dtype)
    truth = apply_target(s.target, xq @ a)
    chunk = max(1, EVAL_SCORES // (s.H * s.queries * s.n))
    est = np.empty((s.replicates, s.H, s.queries))
    with torch.no_grad():
        for r0 in range(0, s.replicates, chunk):
            r1 = min(s.replicates, r0 + chunk)
            tick(0.0)
            x, eps = training_sets(s.seed, r0, r1, s.n, p, device=device, dtype=dtype)
            y = apply_target(s.target, x @ a) + s.noise * eps
            e = head_estimates(heads.wq, heads.wk, x, y, xq, scale, distance)
            est[r0:r1] = e.to("cpu", torch.float64).numpy()
            tick(record_work * (r1 - r0) / s.replicates)
        alpha = heads.alpha().to("cpu", torch.float64).numpy()
        w = heads.wk.detach().to("cpu", torch.float64).numpy()
    m = moments(est, truth.to("cpu", torch.float64).numpy())
    terms = {**m.terms(alpha), "mse_se": direct_mse(est, truth.to("cpu", torch.float64).numpy(), alpha)[1]}
    try:
        report: HdiReport | None = hdi_report(list(w), max_angle_pairs=LISTED_ANGLE_PAIRS)
    except ValueError:  # a free head lost rank: its subspace is undefined
        report = None
    return {
        **terms,
        "effective_heads": effective_heads(m, alpha),
        "hdi": report.hdi if report else None,
        "overlap": report.overlap_matrix if report else None,
        "angles": report.principal_angles_deg if report else None,
        "norms": np.linalg.norm(w, axis=(1, 2)).tolist(),
        "alpha": alpha.tolist(),
    }


RECORDED = (
    "loss",
    "penalty",
    "mse",
    "mse_se",
    "bias2",
    "variance",
    "covariance",
    "effective_heads",
    "hdi",
    "overlap",
    "angles",
    "norms",
    "alpha",
)
"""The per-record arrays of a result, aligned on `steps`."""


def run_training(req: TrainingRequest, /, **hooks: Unpack[Hooks]) -> TrainingResult:
    """Train, recording at step 0, every `record_every` steps and at the end; `partial` hears the result
    recorded so far after each record (the running job's partial result)."""
    progress, should_cancel, partial = hooks.get("progress"), hooks.get("should_cancel"), hooks.get("partial")
    s = req.base
    dev, dt = resolve_device(hooks.get("device")), resolve_dtype(hooks.get("dtype"))
    w0 = torch.as_tensor(INIT_HEADS[req.init](s), device=dev, dtype=dt)
    p = w0.shape[1]
    wq = w0.clone().requires_grad_(True)
    wk = w0.clone().requires_grad_(True) if req.separate_qk else wq
    heads = Heads(wq, wk, torch.zeros(s.H, device=dev, dtype=dt, requires_grad=req.learn_weights))
    optimizer = OPTIMIZER_CLASSES[req.optimizer](heads.parameters(req.learn_weights), lr=req.lr)
    a = signal_direction(s, build_geometry(s), device=dev, dtype=dt)
    kernel = KERNELS[s.kernel].of(s)
    scale, distance = kernel.logit_scale(s, s.d_k), kernel.distance
    tick = _Ticker(req, progress, should_cancel)
    step_work = req.step_work

    result: dict[str, Any] = {"steps": [], **{k: [] for k in RECORDED}}
    losses: list[float] = []
    for t in range(req.steps + 1):
        tick(0.0)
        start = s.replicates + t * req.batch  # after the held-out replicates 0..R-1
        x, eps = training_sets(s.seed, start, start + req.batch, s.n, p, device=dev, dtype=dt, keep=False)
        y = apply_target(s.target, x @ a) + s.noise * eps
        gen = seeded_generator(s.seed, TRAINING_QUERIES, t)
        xq = to_device(torch.randn(s.queries, p, generator=gen, dtype=torch.float32), dev).to(dt)
        with torch.set_grad_enabled(t < req.steps):
            fit = ensemble_loss(
                head_estimates(heads.wq, heads.wk, x, y, xq, scale, distance),
                heads.alpha(),
                apply_target(s.target, xq @ a),
            )
            penalty = diversity_penalty(heads.wk) if req.penalty > 0 else torch.zeros((), device=dev, dtype=dt)
            loss = fit + req.penalty * penalty
        losses.append(float(fit.detach()))
        if t % req.record_every == 0 or t == req.steps:
            record = _evaluate(heads, s, a, scale, distance, tick, req.record_work)
            result["steps"].append(t)
            result["loss"].append(float(np.mean(losses)))
            result["penalty"].append(float(diversity_penalty(heads.wk.detach())))  # P, whatever λ is
            for key in RECORDED[2:]:
                result[key].append(record[key])
            losses = []
            if partial is not None:
                partial(result_of(TrainingResult, {**result, **_describe(req, p)}))
        if t == req.steps:
            break
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if req.orthonormal:
            retract(heads.wq)
            if heads.wk is not heads.wq:
                retract(heads.wk)
        tick(step_work)
    if progress is not None:
        progress(1.0)
    final = heads.wk.detach().to("cpu", torch.float64).numpy()
    return result_of(TrainingResult, {**result, **_describe(req, p), "final_heads": final.tolist()})


def _describe(req: TrainingRequest, p: int) -> dict[str, Any]:
    s = req.base
    return {
        "p": p,
        "H": s.H,
        "d_k": s.d_k,
        "seed": s.seed,
        "total_steps": req.steps,
        "penalty_weight": req.penalty,
        "init": req.init,
        "notes": [
            "loss: the batch's ensemble squared error against m(x*) at fresh query points (mean since the last "
            "record); mse/bias2/variance/covariance: held-out, on the base scenario's own Monte Carlo draws",
            "HDI, overlaps and principal angles are those of the keys' projections' column spaces",
        ],
    }
