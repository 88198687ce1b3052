"""The decomposition of a batch of cells, measured side by side in one run on this machine's CPU:

  batched  `BatchMoments` (engine/batch_moments.py): every cell's moments, gated terms, baselines and the
           direct MSE of five fixed weightings, reduced in float64 torch where the draws lie
  numpy    what the engine did before: the draws copied to float64 NumPy, then `decomposition` cell by cell

on the same random draws of C cells of S1's shape (R 200, H 8, queries 64; one gating scheme). Prints the
median of five runs of each and their ratio, and the largest difference between the two (float64 rounding).
On a GPU the batched form is what `bench/bench_gpu.py`'s surface measures.

Run: `python bench/bench_decomposition.py [--cells 64]` (seconds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch

from bench.timing import median_time
from headdiv.workers.engine import decomposition as dec
from headdiv.workers.engine.batch_moments import BatchMoments
from headdiv.workers.engine.draws import BatchDraws

R, H, Q, S, K = 200, 8, 64, 61, 5


def draws(cells: int) -> BatchDraws:
    g = torch.Generator().manual_seed(0)
    gate = torch.rand(cells, R, H, Q, generator=g)
    return BatchDraws(
        estimates=torch.randn(cells, R, H, Q, generator=g),
        gates={"maw": gate / gate.sum(dim=2, keepdim=True)},
        big=torch.randn(cells, R, Q, generator=g),
        truth=torch.randn(cells, Q, generator=g, dtype=torch.float64),
        slice_t=torch.linspace(-3, 3, S),
        slice_truth=torch.zeros(cells, S, dtype=torch.float64),
        slice_heads=torch.zeros(cells, H, S),
        slice_gates={"maw": torch.zeros(cells, H, S)},
        big_dims=[H] * cells,
    )


def batched(d: BatchDraws, alphas: np.ndarray) -> tuple[float, float]:
    reduced = BatchMoments(d)
    sums = reduced.sums()
    direct = reduced.direct(alphas, list(range(len(sums))))
    return float(sums[-1].moments.cbar[0, 1]), float(direct[-1, -1, 0])


def per_cell(d: BatchDraws, alphas: np.ndarray) -> tuple[float, float]:
    out = (0.0, 0.0)
    for c, cell in enumerate(d.on_host()):
        m = dec.moments(cell.estimates, cell.truth)
        contrib = cell.gates["maw"] * cell.estimates
        dec.moments(contrib, cell.truth / H)
        dec.replicate_se(dec.per_replicate_mse(contrib.sum(axis=1), cell.truth))
        dec.single_estimator(cell.big, cell.truth)
        mse = [dec.direct_mse(cell.estimates, cell.truth, a) for a in alphas[c]]
        out = (float(m.cbar[0, 1]), mse[-1][0])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=64)
    args = parser.parse_args()
    d = draws(args.cells)
    alphas = np.random.default_rng(0).dirichlet(np.ones(H), size=(args.cells, K))
    new, old = batched(d, alphas), per_cell(d, alphas)
    fast = median_time(lambda: batched(d, alphas))
    slow = median_time(lambda: per_cell(d, alphas))
    print(f"{args.cells} cells of (R {R}, H {H}, queries {Q}), {torch.get_num_threads()} CPU threads")
    print(f"batched (torch float64)   {fast * 1e3:8.1f} ms   {fast / args.cells * 1e3:.2f} ms a cell")
    print(f"per cell (NumPy float64)  {slow * 1e3:8.1f} ms   {slow / args.cells * 1e3:.2f} ms a cell")
    print(f"per cell / batched        {slow / fast:8.2f}")
    print(f"largest difference        {max(abs(a - b) for a, b in zip(new, old, strict=True)):.1e}")


if __name__ == "__main__":
    main()
