"""Seeded draws: training sets, query points and random heads.

Every replicate gets its own generator seeded from (seed, stream, index), so replicate r's data do
not depend on how replicates are chunked for memory, and the NumPy reference in the tests can ask for
exactly the draws the engine used.

Every draw is made by torch's CPU generator and then moved to the working device: CUDA's generator
(Philox) gives other numbers for the same seed, so a seed would name two different experiments, and a
result cached by its request would depend on which worker computed it first. With one generator, CPU and
CUDA runs see the same data and differ only by float rounding (tested in tests/engine with
HEADDIV_TEST_DEVICE=cuda). The price, measured on an H200 (README, "On a GPU"): the draws and their copy
are most of a small simulation there (S1: 15 of 24 ms).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from itertools import pairwise

import torch

from headdiv.workers.settings import get_engine_settings

TRAINING = 1
QUERIES = 2
RANDOM_GEOMETRY = 3
SLICE_POINTS = 61
_MASK = (1 << 64) - 1


@lru_cache(maxsize=1)
def _sampler_threads() -> int:
    """The engine's compute threads when configured (one per worker sharing a machine), else up to 4."""
    return get_engine_settings().threads or max(1, min(4, os.cpu_count() or 1))


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_sampler_threads(), thread_name_prefix="headdiv-sampler")


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def derive_seed(seed: int, stream: int, index: int) -> int:
    """A well-mixed 63-bit seed for one (stream, index) of a scenario's seed."""
    return _splitmix64(_splitmix64(_splitmix64(seed) ^ stream) ^ index) >> 1


def seeded_generator(seed: int, stream: int, index: int) -> torch.Generator:
    """The CPU generator of one (stream, index) of a scenario's seed (the module's docstring says why CPU)."""
    gen = torch.Generator()
    gen.manual_seed(derive_seed(seed, stream, index))
    return gen


def to_device(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A CPU tensor on `device`: through page-locked memory to a GPU (one asynchronous copy), itself on the CPU."""
    if device.type == "cpu":
        return t
    return (t if t.is_pinned() else t.pin_memory()).to(device, non_blocking=True)


def ar1_chain(z: torch.Tensor, phi: float) -> torch.Tensor:
    """Stationary AR(1) chains along dimension 1 of z (R, n, p) of i.i.d. N(0, 1) innovations:
    x_0 = z_0, x_i = φ x_(i-1) + √(1-φ²) z_i, so every x_i ~ N(0, I) and corr(x_i, x_(i+k)) = φ^k.

    Computed as a doubling scan (x_i += φ^s x_(i-s) for s = 1, 2, 4, ...): log2(n) whole-tensor steps
    instead of n small ones, on any device. φ = 0 returns z itself (the i.i.d. draws, bit for bit).
    """
    if phi == 0:
        return z
    x = z * math.sqrt(1.0 - phi * phi)
    x[:, 0] = z[:, 0]
    n, s, power = z.shape[1], 1, phi
    while s < n and power > 0:
        x = torch.cat([x[:, :s], x[:, s:] + power * x[:, :-s]], dim=1)
        s, power = 2 * s, power * power
    return x


def training_sets(
    seed: int,
    start: int,
    stop: int,
    n: int,
    p: int,
    *,
    device: torch.device,
    dtype: torch.dtype,
    phi: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs X (R, n, p) ~ N(0, I_p) and noise eps (R, n) ~ N(0, 1) for replicates start..stop-1.

    With `phi` > 0 the n inputs of a training set form the AR(1) chain of `ar1_chain` (docs/model.md
    section 9), built from the very draws an i.i.d. scenario of the same seed uses, in the working dtype.

    Drawn in float32 whatever the working dtype, so float32 and float64 runs see the same data and
    differ only by rounding (and because torch's vectorised float32 sampler is ~5x faster than its
    float64 one: sampling is a large share of a simulation).
    """
    pinned = device.type == "cuda"  # drawn straight into page-locked memory: one asynchronous copy over
    x = torch.empty(stop - start, n, p, dtype=torch.float32, pin_memory=pinned)
    eps = torch.empty(stop - start, n, dtype=torch.float32, pin_memory=pinned)

    def draw(rows: range) -> None:
        gen = torch.Generator()
        for r in rows:
            gen.manual_seed(derive_seed(seed, TRAINING, r))
            torch.randn(n, p, generator=gen, out=x[r - start])
            torch.randn(n, generator=gen, out=eps[r - start])

    # torch's CPU sampler is single-threaded and releases the GIL: split the replicates over the
    # cores (each replicate has its own seed, so the split cannot change the numbers).
    threads = min(_sampler_threads(), stop - start)
    if threads > 1 and (stop - start) * n * p >= 1 << 16:
        bounds = [start + (stop - start) * i // threads for i in range(threads + 1)]
        list(_pool().map(draw, [range(a, b) for a, b in pairwise(bounds)]))
    else:
        draw(range(start, stop))
    return ar1_chain(to_device(x, device).to(dtype), phi), to_device(eps, device).to(dtype)


def query_points(seed: int, queries: int, p: int, *, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """The fixed query points x*_j (queries, p), drawn once per scenario."""
    gen = seeded_generator(seed, QUERIES, 0)
    return to_device(torch.randn(queries, p, generator=gen, dtype=torch.float32), device).to(dtype)
