"""What a run costs, part by part, in work units: the measure of the work budget, the fast lane and
admission's time limit.

Each part of a run is counted in its own natural unit (attention weights, coordinates of training points
drawn, flops of the key maps, products of the heads' moments, training sets, runs) and weighted by what
one of those costs in work units. The unit is fixed by the speed calibration (`engine.speed`): its run's
work equals its NW count replicates*H*queries*n*(d_k+3), the measure the budgets were first set in. The
weights are fitted by `bench/bench_cost.py --fit` (least squares on relative error over the corners of
the schemas, on a CPU) and that bench checks the estimate against measured time at every corner, so it
tracks time within a small factor whichever part dominates: the NW step of a big surface, drawing 5,000
training sets of two points, the moments of 64 heads, the SVD of dense heads, or a fixed cost per run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.geometries import GEOMETRIES
from headdiv.schemas.scenario_fields import ScenarioFields


@dataclass(frozen=True)
class Part:
    """One part of a run's cost: what it counts, in what unit, and what one unit is worth."""

    label: str
    """What the part is, as the work budget's message names it."""
    count: str
    """Its count as a formula of the scenario's fields."""
    lower: str
    """The fields that lower it."""
    weight: float
    """Work units per unit of the count (fitted by bench/bench_cost.py --fit)."""


PARTS: dict[str, Part] = {
    "nw": Part("the NW steps", "replicates*H*queries*n*(d_k+3)", "replicates, H, queries, n or d_k", 0.094),
    "scores": Part("the attention weights", "replicates*(H+1)*queries*n", "replicates, H, queries or n", 2.6),
    # A score costs more the more heads a run has (measured: 2-3x from H = 8 to H = 64 at equal scores).
    "head_scores": Part(
        "the attention weights of many heads", "replicates*(H+1)*queries*n*H", "H, replicates, queries or n", 0.19
    ),
    "draws": Part(
        "drawing the training sets",
        "replicates*n*p, times 1 + log2(n)/4 for AR(1) chains, twice for sets drawn alone",
        "replicates, n or p",
        2.8,
    ),
    "keys": Part(
        "the keys' matrix products",
        "replicates*(n+queries)*p*(H*d_k + min(p, H*d_k)) flops for dense heads, replicates*(n+queries)*d_k*(H+1)*H"
        " for the big head of block heads",
        "replicates, n, H or d_k (or p)",
        0.028,
    ),
    "gathers": Part(
        "gathering the block heads' keys", "replicates*(n+queries)*2*H*d_k", "replicates, n, H or d_k", 11.0
    ),
    "moments": Part("the heads' moments", "replicates*queries*H^2", "replicates, queries or H", 1.9),
    "sets": Part("handling each training set", "replicates", "replicates", 1.9e4),
    "run": Part("the run's fixed cost", "1 per run", "nothing (it is fixed)", 4.7e6),
    "layout": Part(
        "building the heads",
        "p*D*min(p, D) + p*D^2/20 + H*p*d_k^2 flops for dense heads (D = H*d_k), none for block heads",
        "H, d_k or p",
        1.1,
    ),
    "steps": Part("each training step's fixed cost", "steps", "steps", 1.4e6),
    "records": Part("each record's fixed cost", "records", "steps, or raise record_every", 2.1e6),
}
"""Every part of a job's cost: a simulation's, then a training's own."""


def scenario_counts(s: ScenarioFields) -> dict[str, float]:
    """Each part's count for one simulation of `s` (docs/model.md sections 1-4: the NW step of every head
    and of the big head, the training sets, the key maps, the heads' moments, the geometry's construction)."""
    geometry = GEOMETRIES[s.geometry].of(s)
    R, H, Q, n, d, p = float(s.replicates), s.H, s.queries, s.n, s.d_k, geometry.ambient_dim(s)
    chain = 1.0 + (math.log2(n) / 4 if s.ar1_phi > 0 else 0.0)  # each doubling step: one pass over the chain
    # The sampler draws the sets of a chunk on parallel threads (one seed per set); a set too large to share
    # a chunk is drawn alone, on one thread (half the speed on two cores, measured by bench/bench_cost.py).
    alone = 8.0 * n * (p + H * (d + 2)) > get_engine_settings().chunk_bytes
    flops, gathered = geometry.key_map_cost(s)
    return {
        "nw": R * H * Q * n * (d + 3),
        "scores": R * (H + 1) * Q * n,
        "head_scores": R * (H + 1) * Q * n * H,
        "draws": R * n * p * chain * (2.0 if alone else 1.0),
        "keys": R * (n + Q) * flops,
        "gathers": R * (n + Q) * gathered,
        "moments": R * Q * H * H,
        "sets": R,
        "run": 1.0,
        "layout": geometry.layout_flops(s),
    }


def weighted(counts: dict[str, float]) -> dict[str, float]:
    """Each part in work units."""
    return {name: PARTS[name].weight * c for name, c in counts.items()}


def work_of(counts: dict[str, float]) -> float:
    """The work units of counted parts: the measure every request's `work` is."""
    return sum(weighted(counts).values())


def summed(terms: Iterable[tuple[float, dict[str, float]]]) -> dict[str, float]:
    """The counts of a job made of parts, each (times, its counts): a training's steps and records, a
    lab's angles."""
    total: dict[str, float] = {}
    for times, counts in terms:
        for name, c in counts.items():
            total[name] = total.get(name, 0.0) + times * c
    return total


def dominant(counts: dict[str, float]) -> Part:
    """The part that costs the most: the one to lower first."""
    parts = weighted(counts)
    return PARTS[max(parts, key=lambda name: parts[name])]


def docs_table() -> str:
    """The Markdown table of the parts in docs/engine.md (a test keeps the two in step)."""
    rows = ["| part | counted as | weight (work units each) | lowered by |", "|---|---|---|---|"]
    rows += [f"| {p.label} | `{p.count}` | {p.weight:g} | {p.lower} |" for p in PARTS.values()]
    return "\n".join(rows)
