"""An independent float64 NumPy reference of docs/model.md, written with plain loops.

It shares only the random draws with the engine (`training_sets`, `query_points` and, for the
`random` geometry, the raw Gaussian matrix): heads, targets, kernels, bandwidths, gates, weights
and the decomposition are all re-derived here from the text of docs/model.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.linalg
import torch

from headdiv.schemas import Scenario
from headdiv.workers.engine.sampling import RANDOM_GEOMETRY, query_points, seeded_generator, training_sets

CPU = torch.device("cpu")


def heads(s: Scenario) -> list[np.ndarray]:
    d, H = s.d_k, s.H
    if s.geometry == "random":
        gen = seeded_generator(s.seed, RANDOM_GEOMETRY, 0)
        raw = torch.randn(H, s.p, d, generator=gen, dtype=torch.float64).numpy()
        return [np.linalg.qr(raw[h])[0] for h in range(H)]
    p = (H + 1) * d

    def block(b: int) -> np.ndarray:
        u = np.zeros((p, d))
        u[b * d : (b + 1) * d, :] = np.eye(d)
        return u

    out = []
    for h in range(H):
        if s.geometry == "shared_dims":
            k = s.shared_dims
            w = np.concatenate([block(0)[:, :k], block(h + 1)[:, : d - k]], axis=1)
        else:
            if s.geometry == "equiangular":
                phi = math.acos(math.sqrt(math.cos(math.radians(s.theta))))
            else:
                phi = math.radians(s.tilts[h])  # type: ignore[index]
            w = math.cos(phi) * block(0) + math.sin(phi) * block(h + 1)
        out.append(w)
    return out


def signal(s: Scenario, p: int) -> np.ndarray:
    a = np.zeros(p)
    if s.signal == "spread" and s.geometry != "random":
        for b in range(s.H + 1):
            a[b * s.d_k] = 1.0
    else:
        a[0] = 1.0
    return a / np.linalg.norm(a)


def f(target: str, t: np.ndarray) -> np.ndarray:
    return {"constant": 0 * t, "linear": t, "sine": np.sin(2 * t), "quadratic": t**2}[target]


def nw_weights(s: Scenario, q: np.ndarray, keys: np.ndarray, d: int) -> np.ndarray:
    if s.kernel == "gaussian":
        h = {"paper": 1 / math.sqrt(d), "scott": s.n ** (-1 / (d + 4)), "fixed": s.bandwidth}[s.bandwidth_rule]
        logits = np.array([-np.sum((q - k) ** 2) / (2 * h * h) for k in keys])
    else:
        logits = np.array([q @ k / (s.temperature * math.sqrt(d)) for k in keys])
    w = np.exp(logits - logits.max())
    return w / w.sum()


def gate_score(w: np.ndarray, beta: float) -> float:
    nz = w[w > 0]
    entropy = -np.sum(nz * np.log(nz))
    return (1 + 10 * beta) * (0.5 * np.var(w) + 0.3 * w.max() + 0.2 * np.sum(w**2) - 0.4 * entropy)


def softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max())
    return e / e.sum()


def simulate(s: Scenario) -> dict[str, Any]:
    W = heads(s)
    p, H, R, Q = W[0].shape[0], s.H, s.replicates, s.queries
    # copies: the engine shares drawn sets between runs, and the AR(1) chain below writes into x
    x, eps = (t.numpy().copy() for t in training_sets(s.seed, 0, R, s.n, p, device=CPU, dtype=torch.float64))
    if s.dependence == "ar1":  # the same i.i.d. draws as innovations, chained one token after another
        z, c = x.copy(), math.sqrt(1.0 - s.phi**2)
        for i in range(1, s.n):
            x[:, i] = s.phi * x[:, i - 1] + c * z[:, i]
    xq = query_points(s.seed, Q, p, device=CPU, dtype=torch.float64).numpy()
    a = signal(s, p)
    truth = f(s.target, xq @ a)
    big = scipy.linalg.orth(np.concatenate(W, axis=1))
    D = big.shape[1]

    E = np.zeros((R, H, Q))
    G = np.zeros((R, H, Q))
    BIG = np.zeros((R, Q))
    for r in range(R):
        y = f(s.target, x[r] @ a) + s.noise * eps[r]
        for j in range(Q):
            scores = np.zeros(H)
            for h in range(H):
                w = nw_weights(s, xq[j] @ W[h], x[r] @ W[h], s.d_k)
                E[r, h, j] = w @ y
                scores[h] = gate_score(w, s.beta)
            G[r, :, j] = softmax(scores)
            BIG[r, j] = nw_weights(s, xq[j] @ big, x[r] @ big, D) @ y

    mean = E.mean(axis=0)
    B = mean - truth
    C = np.zeros((H, H))
    for h in range(H):
        for g in range(H):
            C[h, g] = np.mean([np.mean((E[:, h, j] - mean[h, j]) * (E[:, g, j] - mean[g, j])) for j in range(Q)])
    head_mse = np.array([np.mean(B[h] ** 2) + C[h, h] for h in range(H)])
    order = sorted(range(H), key=lambda h: (head_mse[h], h))

    def normalise(v: np.ndarray) -> np.ndarray:
        return v / v.sum()

    alphas = {"uniform": np.full(H, 1 / H)}
    geo = np.zeros(H)
    fib_seq = [1.0, 1.0]
    while len(fib_seq) < H:
        fib_seq.append(fib_seq[-1] + fib_seq[-2])
    fib = np.zeros(H)
    for rank, h in enumerate(order):
        geo[h] = s.rho**rank
        fib[h] = fib_seq[H - 1 - rank]
    alphas["geometric"] = normalise(geo)
    alphas["fibonacci"] = normalise(fib)
    M = C + sum(np.outer(B[:, j], B[:, j]) for j in range(Q)) / Q
    alphas["optimal"] = normalise(np.linalg.pinv(M, rcond=1e-7) @ np.ones(H))  # same singular cut-off

    def direct(est: np.ndarray) -> tuple[float, float, float, float]:
        """mse, bias2, variance (of the combined estimate), se from draws est (R, Q)."""
        per_rep = np.array([np.mean((est[r] - truth) ** 2) for r in range(R)])
        mu = est.mean(axis=0)
        return per_rep.mean(), np.mean((mu - truth) ** 2), np.mean(est.var(axis=0)), per_rep.std(ddof=1) / math.sqrt(R)

    weightings = {}
    for name, alpha in alphas.items():
        ens = np.einsum("h,rhj->rj", alpha, E)
        mse, bias2, var_total, se = direct(ens)
        variance = sum(alpha[h] ** 2 * C[h, h] for h in range(H))
        weightings[name] = {
            "alpha": alpha,
            "mse": mse,
            "bias2": bias2,
            "variance": variance,
            "covariance": var_total - variance,
            "se": se,
        }
    gated = np.sum(G * E, axis=1)
    mse, bias2, var_total, se = direct(gated)
    weightings["maw"] = {"mse": mse, "bias2": bias2, "se": se}

    big_mu = BIG.mean(axis=0)
    sd = np.sqrt(np.diag(C))
    corr = C / np.outer(sd, sd)
    chosen = s.weights
    alpha = alphas[chosen] if chosen != "maw" else G.mean(axis=(0, 2))
    return {
        "E": E,
        "weightings": weightings,
        "heads": [
            {"mse": head_mse[h], "bias2": np.mean(B[h] ** 2), "variance": C[h, h], "se": direct(E[:, h])[3]}
            for h in range(H)
        ],
        "covariance_matrix": C,
        "correlation_matrix": corr,
        "mean_correlation": float(np.mean(corr[~np.eye(H, dtype=bool)])) if H > 1 else None,
        "effective_heads": np.mean(np.diag(C)) / (alpha @ C @ alpha),
        "big_head": {"mse": np.mean((big_mu - truth) ** 2) + np.mean(BIG.var(axis=0)), "dim": D, "se": direct(BIG)[3]},
        "p": p,
        "W": W,
    }
