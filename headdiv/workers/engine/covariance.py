"""The covariance lab: Lemma 4.1 of the paper against the covariance the Monte Carlo measures.

Head h's estimate is m_hat_h = sum_i w_i^(h) y_i with y_i = m(x_i) + sigma eps_i, and the noise eps is
independent of the inputs, so the covariance of two heads splits exactly into

    C_hh' = Cov(sum_i w_i^(h) m(x_i), sum_i w_i^(h') m(x_i)) + sigma^2 E[sum_i w_i^(h) w_i^(h')]
            (signal part)                                       (shared-noise part)

The shared-noise part does not vanish for orthogonal heads: they still average the same noisy values,
and with independent weights E[sum_i w_i^(h) w_i^(h')] = sum_i E[w_i^(h)] E[w_i^(h')] = 1/n. Here the
shared-noise part is estimated on the very draws that give the measured covariance, and the signal part
is the rest, so the two add up to the measured covariance exactly. The lemma's bound
L^2 ||G||_F^2 / (n h^d_k p_K) is drawn beside them with the constants fixed as `constants` says.
"""

from __future__ import annotations

import math
from typing import Any, Unpack

import numpy as np
import torch

from headdiv.schemas import CovarianceRequest, Scenario
from headdiv.schemas.bandwidths import bandwidth
from headdiv.schemas.errors import JobCancelled
from headdiv.schemas.fields import canonical
from headdiv.schemas.results.lab_results import CovarianceResult
from headdiv.workers.engine.device import resolve_device, resolve_dtype
from headdiv.workers.engine.geometry import build_geometry
from headdiv.workers.engine.hooks import Hooks
from headdiv.workers.engine.montecarlo import _nw_inputs
from headdiv.workers.engine.result_building import result_of
from headdiv.workers.engine.sampling import query_points, training_sets
from headdiv.workers.engine.target_tensors import apply_target, signal_direction

LIPSCHITZ_RANGE = 3.0
"""The paper's L is a global Lipschitz constant of m; the tool takes f's largest slope on |a.x| <= 3."""
CHUNK_VALUES = 1 << 22
"""Weights held at once (replicates x heads x queries x n)."""


def lipschitz(target: str) -> float:
    """The largest |f'| on [-3, 3] (0 for the constant, 1 linear, 2 sine, 6 quadratic), by autograd on a grid."""
    t = torch.linspace(-LIPSCHITZ_RANGE, LIPSCHITZ_RANGE, 6001, dtype=torch.float64, requires_grad=True)
    f = apply_target(target, t)
    if not f.requires_grad:  # a constant target does not depend on t at all
        return 0.0
    (slope,) = torch.autograd.grad(f.sum(), t)
    return round(float(slope.abs().max()), 6)


def kernel_bandwidth(s: Scenario) -> float:
    """h of the bound: the Gaussian kernel's own, or the paper's h = 1/sqrt(d_k) for softmax (section 2.1)."""
    return bandwidth(s, s.d_k) if s.kernel == "gaussian" else 1.0 / math.sqrt(s.d_k)


def lemma_bound(s: Scenario, overlap: np.ndarray, qkeys: np.ndarray) -> np.ndarray:
    """(H, H): L^2 sum_j cos^2 theta_j / (n h^d_k) times the mean over queries of 1 / p_K(W_h^T x*),
    p_K the N(0, I_d_k) density of a head's keys (the data are Gaussian, docs/model.md section 1)."""
    d = s.d_k
    cos2 = overlap * d  # overlap s_hh' = ||Q_h^T Q_h'||_F^2 / d_k
    inv_density = np.mean((2 * math.pi) ** (d / 2) * np.exp(0.5 * np.sum(qkeys**2, axis=-1)), axis=0)  # (H,)
    scale = lipschitz(s.target) ** 2 / (s.n * kernel_bandwidth(s) ** d)
    with np.errstate(over="ignore"):
        return np.asarray(scale * cos2 * inv_density[:, None])


def _draw_moments(
    s: Scenario, device: torch.device, dtype: torch.dtype, tick: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimates E (R, H, Q), per-replicate query-mean weight overlaps O (R, H, H) and query keys (Q, H, d)."""
    geometry = build_geometry(s)
    p, H, d, n, R, nq = geometry.p, s.H, s.d_k, s.n, s.replicates, s.queries
    a = signal_direction(s, geometry, device=device, dtype=dtype)
    xq = query_points(s.seed, nq, p, device=device, dtype=dtype)
    qkeys = geometry.keys(xq)  # (Q, H, d)
    est = torch.empty(R, H, nq, device=device, dtype=torch.float64)
    over = torch.empty(R, H, H, device=device, dtype=torch.float64)
    chunk = max(1, min(R, CHUNK_VALUES // max(1, H * nq * n)))
    for r0 in range(0, R, chunk):
        r1 = min(R, r0 + chunk)
        x, eps = training_sets(s.seed, r0, r1, n, p, device=device, dtype=dtype, phi=s.ar1_phi)
        y = apply_target(s.target, x @ a) + s.noise * eps  # (Rc, n)
        keys = geometry.keys(x)  # (Rc, n, H, d)
        qs, kc, kb = _nw_inputs(s, keys.transpose(1, 2), qkeys.transpose(0, 1).unsqueeze(0), d)
        w = torch.softmax(torch.baddbmm(kb.unsqueeze(1), qs, kc.transpose(1, 2)), dim=-1)
        w = w.view(r1 - r0, H, nq, n).to(torch.float64)
        est[r0:r1] = torch.einsum("rhqn,rn->rhq", w, y.to(torch.float64))
        over[r0:r1] = torch.einsum("rhqn,rgqn->rhg", w, w) / nq
        tick((r1 - r0) * H * nq * n)
    return est.cpu().numpy(), over.cpu().numpy(), qkeys.to("cpu", torch.float64).numpy()


def _mean_se(per_replicate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over replicates and its Monte Carlo standard error (std over replicates / sqrt(R))."""
    r = per_replicate.shape[0]
    return per_replicate.mean(axis=0), per_replicate.std(axis=0, ddof=1) / math.sqrt(r)


def split(est: np.ndarray, overlaps: np.ndarray, noise: float) -> dict[str, np.ndarray]:
    """Measured covariance (1/R convention, mean over queries), shared-noise part and signal part, (H, H) each,
    with the standard errors of the first two."""
    dev = est - est.mean(axis=0, keepdims=True)
    per_rep = np.einsum("rhq,rgq->rhg", dev, dev) / est.shape[2]  # each replicate's share of C_bar
    measured, measured_se = _mean_se(per_rep)
    shared, shared_se = _mean_se(noise**2 * overlaps)
    return {
        "measured": measured,
        "measured_se": measured_se,
        "shared_noise": shared,
        "shared_noise_se": shared_se,
        "signal": measured - shared,
    }


def _pairs(H: int) -> list[tuple[int, int]]:
    return [(h, g) for h in range(H) for g in range(h + 1, H)]


def _assemble(request: CovarianceRequest, per_angle: list[dict[str, Any]]) -> CovarianceResult:
    s0 = request.scenarios()[0]
    pairs = _pairs(s0.H)
    keys = ("measured", "measured_se", "shared_noise", "shared_noise_se", "signal", "bound")
    series = [{"pair": [h, g], **{k: [float(a[k][h, g]) for a in per_angle] for k in keys}} for h, g in pairs]
    mean = {k: [float(np.mean([a[k][h, g] for h, g in pairs])) for a in per_angle] for k in keys}
    # the pairs' mean has the standard error of a mean of (correlated) pairs: at most the pairs' largest
    for k in ("measured_se", "shared_noise_se"):
        mean[k] = [float(max(a[k][h, g] for h, g in pairs)) for a in per_angle]
    points = [
        {"theta": t, "pair": f"{h + 1}-{g + 1}", "hdi": a["hdi"], **{k: float(a[k][h, g]) for k in keys}}
        for t, a in zip(request.thetas, per_angle, strict=False)
        for h, g in pairs
    ]
    return result_of(
        CovarianceResult,
        {
            "thetas": request.thetas[: len(per_angle)],
            "points": points,
            "hdi": [a["hdi"] for a in per_angle],
            "pairs": series,
            "mean_pair": mean,
            "matrices": [{k: a[k].tolist() for k in keys} for a in per_angle],
            "sigma2_over_n": s0.noise**2 / s0.n,
            "constants": {
                "L": lipschitz(s0.target),
                "h": kernel_bandwidth(s0),
                "n": s0.n,
                "d_k": s0.d_k,
                "G": "||G||_F^2 = sum_j cos^2(theta_j) (the right-hand side of (4.2); orthonormal heads)",
                "p_K": "the N(0, I_d_k) density of a head's keys at each query's key, averaged as 1/p_K over queries",
                "proportionality": 1.0,
            },
            "base": canonical(request.base),
            "complete": len(per_angle) == len(request.thetas),
        },
    )


def run_covariance(request: CovarianceRequest, /, **hooks: Unpack[Hooks]) -> CovarianceResult:
    """Every angle's measured covariance, its split and the lemma's bound, with progress and cancel."""
    device, dtype = resolve_device(hooks.get("device")), resolve_dtype(hooks.get("dtype"))
    progress, should_cancel, partial = hooks.get("progress"), hooks.get("should_cancel"), hooks.get("partial")
    angles = request.scenarios()
    total = float(sum(s.replicates * s.H * s.queries * s.n for s in angles)) or 1.0
    done = [0.0]

    def tick(values: int) -> None:
        if should_cancel and should_cancel():
            raise JobCancelled(f"cancelled after {done[0] / total:.0%} of the run")
        done[0] += values
        if progress:
            progress(min(1.0, done[0] / total))

    per_angle: list[dict[str, Any]] = []
    for s in angles:
        geometry = build_geometry(s)
        est, overlaps, qkeys = _draw_moments(s, device, dtype, tick)
        parts: dict[str, Any] = dict(split(est, overlaps, s.noise))
        overlap = geometry.overlap_matrix()
        parts["bound"] = lemma_bound(s, overlap, qkeys)
        off = overlap[~np.eye(s.H, dtype=bool)]
        parts["hdi"] = float(1.0 - off.mean())
        per_angle.append(parts)
        if partial and len(per_angle) < len(angles):
            partial(_assemble(request, per_angle))
    if progress:
        progress(1.0)
    return _assemble(request, per_angle)
