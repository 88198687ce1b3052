"""Engine speed and memory, measured side by side in one run.

For each shape (R, H, queries, n, d_k) it times, on the same inputs:
  engine  - the engine's NW step (`nw_attention`, compiled, with the MAW statistics it always computes)
  numpy   - a float64 NumPy loop over replicates and heads (what a user's own script does)
  sdpa    - the fastest bare torch attention call: SDPA with the value padded to d_k
  floor   - one torch.exp over the same R*H*queries*n float32 elements (and, for reference, the same
            exp into a preallocated output: "exp out=", which skips the page faults of a new tensor)
and prints times, ratios and the peak extra memory of the engine's NW step (torch's CPU profiler: its
allocations less its frees, in time order), then the end-to-end `simulate` time of the default scenario
and of S1. The engine is given its keys transposed, (B, d_k, n), the layout a simulation writes them in.

Run: `python bench/bench_engine.py` (about two minutes on 2 cores, compilation included).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import torch
import torch.nn.functional as F

from bench.timing import median_time

SHAPES = {
    "S1": (200, 8, 64, 512, 8),
    "S2": (200, 8, 64, 2048, 8),
    "S3": (100, 16, 64, 512, 32),
}


def inputs(shape: tuple[int, int, int, int, int], seed: int = 0) -> tuple[torch.Tensor, ...]:
    r, h, q, n, d = shape
    g = torch.Generator().manual_seed(seed)
    qq = torch.randn(r * h, q, d, generator=g) / math.sqrt(d)
    kk = torch.randn(r * h, n, d, generator=g)
    kb = torch.zeros(r * h, n)
    y = torch.randn(r * h, n, generator=g)
    return qq, kk, kb, y


def numpy_loop(qq: np.ndarray, kk: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty(qq.shape[:2])
    for b in range(qq.shape[0]):
        s = qq[b] @ kk[b].T
        w = np.exp(s - s.max(axis=1, keepdims=True))
        out[b] = (w @ y[b]) / w.sum(axis=1)
    return out


def peak_extra_mb_tracked(shape_name: str) -> float:
    """Bytes the NW step allocates beyond its inputs and outputs, from torch's CPU profiler."""
    from headdiv.workers.engine.nw import nw_attention

    qq, kk, kb, y = inputs(SHAPES[shape_name])
    kt = kk.transpose(1, 2).contiguous()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        nw_attention(qq, kt, kb, y, with_stats=True, transposed=True)
    # self, not inclusive, memory: an allocation is reported by every op it is nested in (contiguous ->
    # clone -> empty_like), so summing inclusive figures counts it several times
    live = peak = 0
    for ev in sorted(prof.events(), key=lambda e: e.time_range.start):
        live += ev.self_cpu_memory_usage
        peak = max(peak, live)
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-numpy", action="store_true")
    args = parser.parse_args()
    os.environ["HEADDIV_COMPILE"] = "on"
    from headdiv.schemas import Scenario
    from headdiv.workers.engine.nw import nw_attention, warm_up
    from headdiv.workers.engine.simulation import simulate

    t = time.perf_counter()
    compiled = warm_up()
    print(
        f"torch {torch.__version__}, threads {torch.get_num_threads()}, compiled={compiled} "
        f"in {time.perf_counter() - t:.1f}s (excluded below)"
    )
    print(
        f"{'shape':6} {'engine ms':>10} {'floor ms':>9} {'sdpa ms':>8} {'numpy ms':>9} "
        f"{'eng/floor':>9} {'numpy/eng':>9} {'sdpa/eng':>8} {'extra MB':>8} {'exp out= ms':>11}"
    )
    for name in args.shapes:
        shape = SHAPES[name]
        qq, kk, kb, y = inputs(shape)
        kt = kk.transpose(1, 2).contiguous()  # the layout the engine writes its keys in (montecarlo._inputs)
        engine = median_time(lambda: nw_attention(qq, kt, kb, y, with_stats=True, transposed=True), args.repeat)  # noqa: B023
        scores = torch.randn(qq.shape[0], qq.shape[1], kk.shape[1])
        floor = median_time(lambda: torch.exp(scores), args.repeat)  # noqa: B023
        out = torch.empty_like(scores)
        floor_out = median_time(lambda: torch.exp(scores, out=out), args.repeat)  # noqa: B023
        d = shape[4]
        v = torch.zeros(kk.shape[0], kk.shape[1], d)
        v[..., 0] = y
        sdpa = median_time(lambda: F.scaled_dot_product_attention(qq, kk, v, scale=1.0), args.repeat)  # noqa: B023
        if args.skip_numpy:
            numpy_t = float("nan")
        else:
            qn, kn, yn = qq.double().numpy(), kk.double().numpy(), y.double().numpy()
            numpy_t = median_time(lambda: numpy_loop(qn, kn, yn), 1)  # noqa: B023
        extra = peak_extra_mb_tracked(name)
        print(
            f"{name:6} {engine * 1e3:10.1f} {floor * 1e3:9.1f} {sdpa * 1e3:8.1f} {numpy_t * 1e3:9.1f} "
            f"{engine / floor:9.2f} {numpy_t / engine:9.1f} {sdpa / engine:8.2f} {extra:8.1f} {floor_out * 1e3:11.1f}"
        )
    for label, scenario in (("default", Scenario()), ("S1", Scenario(replicates=200, H=8, queries=64, n=512, d_k=8))):
        e2e = median_time(lambda: simulate(scenario), args.repeat)  # noqa: B023
        print(f"simulate {label:8} end-to-end {e2e * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
