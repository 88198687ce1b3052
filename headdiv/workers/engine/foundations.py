"""The foundations lessons: cheap, seeded, closed-form-checkable numbers behind scaled dot-product attention.

Four lessons, each a pure function of a small validated query:

- `scaling_lesson`: why scores are divided by sqrt(d_k) - unscaled dot products of unit-variance vectors
  have variance d_k, scaled ones variance 1; cosine similarity concentrates at 0 as d_k grows.
- `softmax_lesson`: softmax as a Boltzmann distribution with temperature T - uniform as T grows,
  arg-max as T shrinks.
- `entropy_lesson`: average attention entropy of random heads as H grows at fixed d_model, with its
  spread across heads.
- `budget_lesson`: parameters `4 d^2 + 4 d` independent of H, FLOPs and attention memory quadratic in
  the sequence length.

The query models live in `headdiv.schemas.lesson_queries` (torch-free), so the API, the dashboard and the
tests share one set of names, defaults and bounds; they keep every lesson well under 100 ms on one
CPU core: these are teaching figures, not experiments.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import torch

from headdiv.schemas.fields import StrictModel
from headdiv.schemas.lesson_queries import BudgetQuery, EntropyQuery, ScalingQuery, SoftmaxQuery
from headdiv.schemas.results.lesson_results import BudgetLesson, EntropyLesson, ScalingLesson, SoftmaxLesson
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.workers.engine.entries import Entry, entry_for
from headdiv.workers.engine.result_building import result_of

# --------------------------------------------------------------------------------------------------
# Small pure helpers
# --------------------------------------------------------------------------------------------------


def _generator(seed: int) -> torch.Generator:
    return torch.Generator(device="cpu").manual_seed(int(seed))


def _histogram(values: np.ndarray, bins: int, lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    """Counts and density on equal bins; a density so histograms of different spreads compare."""
    lo = float(values.min()) if lo is None else lo
    hi = float(values.max()) if hi is None else hi
    if hi <= lo:
        hi = lo + 1.0
    counts, edges = np.histogram(values, bins=bins, range=(lo, hi))
    width = edges[1] - edges[0]
    return {
        "edges": edges.tolist(),
        "centers": ((edges[:-1] + edges[1:]) / 2).tolist(),
        "counts": counts.tolist(),
        "density": (counts / (counts.sum() * width)).tolist(),
    }


def _normal_pdf(x: np.ndarray, var: float) -> list[float]:
    return (np.exp(-(x**2) / (2 * var)) / math.sqrt(2 * math.pi * var)).tolist()


def softmax_weights(scores: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(scores / T) in float64, shifted by the max so no temperature overflows."""
    z = np.asarray(scores, dtype=np.float64) / float(temperature)
    z = z - z.max()
    e = np.exp(z)
    return np.asarray(e / e.sum())


def entropy_nats(weights: np.ndarray) -> float:
    """Shannon entropy in nats; 0 log 0 = 0."""
    w = np.asarray(weights, dtype=np.float64)
    nz = w[w > 0]
    return float(-(nz * np.log(nz)).sum())


# --------------------------------------------------------------------------------------------------
# The four lessons
# --------------------------------------------------------------------------------------------------

COSINE_DIMS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def scaling_lesson(query: ScalingQuery) -> ScalingLesson:
    """Unscaled vs scaled dot products at d_k, and cosine similarity's spread against d_k.

    For q, k with i.i.d. N(0, 1) entries, Var(q.k) = d_k and Var(q.k / sqrt(d_k)) = 1 exactly; the
    cosine of two independent Gaussian vectors has mean 0 and variance 1/d_k.
    """
    g = _generator(query.seed)
    d = query.d_k
    # float32 draws (4x cheaper to generate), float64 sums: the variances stay exact to sampling error.
    q = torch.randn(query.samples, d, generator=g).double()
    k = torch.randn(query.samples, d, generator=g).double()
    dots = (q * k).sum(dim=1)
    scaled = dots / math.sqrt(d)
    cos = dots / (q.norm(dim=1) * k.norm(dim=1)).clamp_min(1e-300)
    dots_np, scaled_np, cos_np = dots.numpy(), scaled.numpy(), cos.numpy()

    reach = 4.0 * math.sqrt(d)
    unscaled_hist = _histogram(dots_np, query.bins, -reach, reach)
    scaled_hist = _histogram(scaled_np, query.bins, -4.0, 4.0)
    unscaled_hist["normal_pdf"] = _normal_pdf(np.asarray(unscaled_hist["centers"]), float(d))
    scaled_hist["normal_pdf"] = _normal_pdf(np.asarray(scaled_hist["centers"]), 1.0)

    # Cosine curve: a fixed-size draw per dimension so its cost does not grow with `samples`.
    per_dim = min(query.samples, 500)
    curve: dict[str, list[float]] = {"d_k": [], "mean": [], "std": [], "theory_std": [], "q05": [], "q95": []}
    for dim in COSINE_DIMS:
        a = torch.randn(per_dim, dim, generator=g).double()
        b = torch.randn(per_dim, dim, generator=g).double()
        c = ((a * b).sum(dim=1) / (a.norm(dim=1) * b.norm(dim=1)).clamp_min(1e-300)).numpy()
        curve["d_k"].append(dim)
        curve["mean"].append(float(c.mean()))
        curve["std"].append(float(c.std()))
        curve["theory_std"].append(1.0 / math.sqrt(dim))
        curve["q05"].append(float(np.quantile(c, 0.05)))
        curve["q95"].append(float(np.quantile(c, 0.95)))

    return result_of(
        ScalingLesson,
        {
            "d_k": d,
            "samples": query.samples,
            "seed": query.seed,
            "unscaled": {
                "variance": float(dots_np.var()),
                "theory_variance": float(d),
                "mean": float(dots_np.mean()),
                "histogram": unscaled_hist,
            },
            "scaled": {
                "variance": float(scaled_np.var()),
                "theory_variance": 1.0,
                "mean": float(scaled_np.mean()),
                "histogram": scaled_hist,
            },
            "cosine": {
                "variance": float(cos_np.var()),
                "theory_variance": 1.0 / d,
                "histogram": _histogram(cos_np, query.bins, -1.0, 1.0),
                "curve": curve,
            },
        },
    )


def softmax_lesson(query: SoftmaxQuery, *, curve_points: int = 81) -> SoftmaxLesson:
    """Boltzmann weights p_i proportional to exp(s_i / T), their entropy, and both temperature limits.

    As T -> infinity the weights tend to uniform (entropy log n); as T -> 0 they tend to the uniform
    distribution over the arg-max set (entropy log m for m tied maxima, 0 for a unique maximum).
    """
    s = np.asarray(query.scores, dtype=np.float64)
    n = s.size
    w = softmax_weights(s, query.temperature)
    top = np.isclose(s, s.max(), rtol=0.0, atol=1e-12)
    argmax_limit = top / top.sum()
    temps = np.logspace(-3, 3, curve_points)
    curve_entropy = [entropy_nats(softmax_weights(s, t)) for t in temps]
    curve_max = [float(softmax_weights(s, t).max()) for t in temps]
    # The Boltzmann reading: energies E_i = -s_i, free energy F = -T log Z, mean energy <E> = sum p_i E_i.
    z_shift = s.max() / query.temperature
    log_z = float(z_shift + np.log(np.exp(s / query.temperature - z_shift).sum()))
    mean_energy = float(-(w * s).sum())
    return result_of(
        SoftmaxLesson,
        {
            "scores": s.tolist(),
            "temperature": query.temperature,
            "weights": w.tolist(),
            "entropy": entropy_nats(w),
            "max_entropy": math.log(n),
            "argmax_entropy": math.log(int(top.sum())),
            "max_weight": float(w.max()),
            "log_partition": log_z,
            "mean_energy": mean_energy,
            "free_energy": -query.temperature * log_z,
            "limits": {"uniform": [1.0 / n] * n, "argmax": argmax_limit.tolist()},
            "curve": {"temperature": temps.tolist(), "entropy": curve_entropy, "max_weight": curve_max},
        },
    )


def _row_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of softmax along the last axis, from log-probabilities (no 0 log 0 issue)."""
    logp = torch.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)


def entropy_lesson(query: EntropyQuery) -> EntropyLesson:
    """Attention entropy of random heads for each H at fixed d_model.

    Per sample: X (seq_len x d_model) ~ N(0, 1); W_Q, W_K (d_model x d_model) ~ N(0, 1/d_model), so the
    projected queries and keys have unit-variance entries - the setting of the scaling lesson; head h
    uses columns h d_k : (h+1) d_k of the same projections for every H. A head's entropy is its mean
    over query rows; each H reports the
    mean and spread across its heads (all samples pooled), against the ceiling log(seq_len).
    """
    g = _generator(query.seed)
    d, n = query.d_model, query.seq_len
    pooled: dict[int, list[torch.Tensor]] = {H: [] for H in query.heads}  # per H: (sample, head) values
    for _ in range(query.samples):
        # One random layer per sample, split into H heads for every H: the comparison holds the
        # projections fixed and changes only how they are partitioned.
        x = torch.randn(n, d, generator=g)
        q_all = x @ (torch.randn(d, d, generator=g) / math.sqrt(d))
        k_all = x @ (torch.randn(d, d, generator=g) / math.sqrt(d))
        for H in query.heads:
            d_k = d // H
            scale = 1.0 / math.sqrt(d_k) if query.scaled else 1.0
            q = q_all.view(n, H, d_k).transpose(0, 1)  # H x n x d_k
            k = k_all.view(n, H, d_k).transpose(0, 1)
            pooled[H].append(_row_entropy((q @ k.transpose(1, 2)) * scale).mean(dim=1).double())
    per_h: list[dict[str, Any]] = []
    for H in query.heads:
        e = torch.cat(pooled[H]).numpy()
        per_h.append(
            {
                "H": H,
                "d_k": d // H,
                "mean": float(e.mean()),
                "std": float(e.std()),
                "min": float(e.min()),
                "max": float(e.max()),
                "q10": float(np.quantile(e, 0.1)),
                "q90": float(np.quantile(e, 0.9)),
                "head_entropies": e[:2048].tolist(),
            }
        )
    return result_of(
        EntropyLesson,
        {
            "d_model": d,
            "seq_len": n,
            "samples": query.samples,
            "seed": query.seed,
            "scaled": query.scaled,
            "max_entropy": math.log(n),
            "points": per_h,
        },
    )


def attention_params(d_model: int, *, bias: bool = True) -> int:
    """W_Q, W_K, W_V, W_O are each d_model x d_model (+ a bias of d_model): 4 d^2 (+ 4 d), whatever H."""
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


def attention_flops(d_model: int, H: int, seq_len: int) -> dict[str, int]:
    """Floating-point operations of one self-attention layer (2 per multiply-add).

    Projections Q, K, V and output: 4 matmuls of (n x d)(d x d) -> 8 n d^2. Scores Q_h K_h^T over all
    heads: 2 n^2 d. Weighted sum of values: 2 n^2 d. Softmax: about 3 operations per weight, H n^2 weights
    (max-shift and exp, sum, divide) -> 3 H n^2. Only the softmax term depends on H.
    """
    n, d = seq_len, d_model
    projections = 8 * n * d * d
    scores = 2 * n * n * d
    weighted_sum = 2 * n * n * d
    softmax = 3 * H * n * n
    return {
        "projections": projections,
        "scores": scores,
        "softmax": softmax,
        "weighted_sum": weighted_sum,
        "total": projections + scores + softmax + weighted_sum,
    }


def attention_memory(H: int, seq_len: int, bytes_per_value: int = 4) -> int:
    """Bytes of the H attention matrices (n x n each) if materialised."""
    return H * seq_len * seq_len * bytes_per_value


def _budget_row(d_model: int, H: int, n: int, bias: bool, nbytes: int) -> dict[str, Any]:
    f = attention_flops(d_model, H, n)
    return {
        "d_model": d_model,
        "H": H,
        "d_k": d_model // H,
        "seq_len": n,
        "params": attention_params(d_model, bias=bias),
        "params_per_head": 3 * d_model * (d_model // H) + (3 * (d_model // H) if bias else 0),
        "flops": f["total"],
        "flops_breakdown": f,
        "attention_bytes": attention_memory(H, n, nbytes),
    }


def budget_lesson(query: BudgetQuery) -> BudgetLesson:
    """The head budget table: the chosen layer, its curves against n, and the other divisors of d_model."""
    d, H, n = query.d_model, query.H, query.seq_len
    chosen = _budget_row(d, H, n, query.bias, query.bytes_per_value)
    lengths = sorted({2**i for i in range(4, 21) if 2**i <= max(4 * n, 16)} | {n})
    by_length = [_budget_row(d, H, m, query.bias, query.bytes_per_value) for m in lengths]
    divisors = [h for h in range(1, min(d, 4096) + 1) if d % h == 0]
    if len(divisors) > 24:  # keep the table readable: powers of two plus the chosen H
        divisors = sorted({h for h in divisors if h & (h - 1) == 0} | {H})
    by_heads = [_budget_row(d, h, n, query.bias, query.bytes_per_value) for h in divisors]
    return result_of(
        BudgetLesson,
        {
            "chosen": chosen,
            "params_formula": "4 d_model^2 + 4 d_model" if query.bias else "4 d_model^2",
            "by_length": by_length,
            "by_heads": by_heads,
        },
    )


QueryT = TypeVar("QueryT", bound=StrictModel)
AnswerT = TypeVar("AnswerT", bound=ResultModel)


LessonRunner = Entry[QueryT, AnswerT, Callable[[QueryT], AnswerT]]


def lesson_entry(
    request: type[QueryT], result: type[AnswerT], answer: Callable[[QueryT], AnswerT]
) -> LessonRunner[QueryT, AnswerT]:
    """A lesson's query model, its answer's model and the function that answers it (mypy checks the three)."""
    return Entry(request, result, answer)


LESSON_RUNNERS: tuple[LessonRunner[Any, Any], ...] = (
    lesson_entry(ScalingQuery, ScalingLesson, scaling_lesson),
    lesson_entry(SoftmaxQuery, SoftmaxLesson, softmax_lesson),
    lesson_entry(EntropyQuery, EntropyLesson, entropy_lesson),
    lesson_entry(BudgetQuery, BudgetLesson, budget_lesson),
)
"""One entry per lesson of `headdiv.schemas.lesson_queries.LESSONS` (a test checks the two agree)."""


def lesson_runner(query: QueryT) -> Callable[[QueryT], ResultModel]:
    """The function answering `query`'s lesson (a KeyError names a query model with none: a bug, not input)."""
    return cast(Callable[[QueryT], ResultModel], entry_for(LESSON_RUNNERS, query, "lesson answering").compute)
