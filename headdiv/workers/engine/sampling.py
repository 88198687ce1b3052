"""Seeded draws: training sets, query points and random heads.

Every replicate gets its own generator seeded from (seed, stream, index), so replicate r's data do
not depend on how replicates are chunked for memory, and the NumPy reference in the tests can ask for
exactly the draws the engine used.

Every draw is made by torch's CPU generator and then moved to the working device: CUDA's generator
(Philox) gives other numbers for the same seed, so a seed would name two different experiments, and a
result cached by its request would depend on which worker computed it first. With one generator, CPU and
CUDA runs see the same data and differ only by float rounding (tested in tests/engine with
HEADDIV_TEST_DEVICE=cuda). A counter-based generator (Philox) computed on either device was weighed and
not taken: torch offers none whose CPU and CUDA streams agree, one written in tensor operations is several
times slower than torch's vectorised CPU sampler (the CPU is where most runs happen), and it would change
every number of every seed that links and caches already name.

What keeps the draws from being a GPU run's cost instead (docs/performance.md, "On a GPU"): they are drawn on up to 8
cores when they go to a GPU (`_sampler_threads`), straight into page-locked memory and copied
once, asynchronously, so the CPU draws the next chunk while the GPU computes on the last; and a run keeps
its training sets where they were used, by content (`_kept`): the next run of the same seed, n, p and
dependence (a slider's next angle or noise level, a surface's next batch of cells) takes them from there.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from itertools import pairwise

import torch

from headdiv.plumbing.lru import ByteLRU
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.workers.engine.device import MEMORY_SHARE, gpu_memory, on_out_of_memory

TRAINING = 1
QUERIES = 2
RANDOM_GEOMETRY = 3
SLICE_POINTS = 61
_MASK = (1 << 64) - 1


GPU_SAMPLER_THREADS = 8
"""Draws bound for a GPU use up to this many cores, as nothing else of the run needs the CPU meanwhile
(measured on an H200's host, S1's draws: 4 threads 10.6-16.1 ms, 8 threads 10.3-11.5, 16 threads 12.9-13.2)."""


@lru_cache(maxsize=2)
def _sampler_threads(gpu: bool = False) -> int:
    """The engine's compute threads when configured (one per worker sharing a machine), else up to 4 for a
    CPU run (whose compute threads follow) and up to `GPU_SAMPLER_THREADS` for a GPU's."""
    return get_engine_settings().threads or max(1, min(GPU_SAMPLER_THREADS if gpu else 4, os.cpu_count() or 1))


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_sampler_threads(gpu=True), thread_name_prefix="headdiv-sampler")


Drawn = tuple[torch.Tensor, torch.Tensor]
DrawnKey = tuple[int, int, int, int, int, float, str, torch.dtype]


def _nbytes(drawn: Drawn) -> int:
    return sum(t.numel() * t.element_size() for t in drawn)


@lru_cache(maxsize=1)
def _kept() -> dict[str, ByteLRU[DrawnKey, Drawn]]:
    s = get_engine_settings()
    return {"cpu": ByteLRU(s.kept_draws_bytes, _nbytes), "cuda": ByteLRU(s.cuda_kept_draws_bytes, _nbytes)}


@on_out_of_memory
def forget_draws() -> None:
    """Drop every kept training set (a GPU that ran out of memory gives its share back)."""
    for kept in _kept().values():
        kept.clear()


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
    keep: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs X (R, n, p) ~ N(0, I_p) and noise eps (R, n) ~ N(0, 1) for replicates start..stop-1.

    With `phi` > 0 the n inputs of a training set form the AR(1) chain of `ar1_chain` (docs/model.md
    section 9), built from the very draws an i.i.d. scenario of the same seed uses, in the working dtype.

    Drawn in float32 whatever the working dtype, so float32 and float64 runs see the same data and
    differ only by rounding (and because torch's vectorised float32 sampler is ~5x faster than its
    float64 one: sampling is a large share of a simulation).

    The result is shared with every later call of the same arguments (`_kept`, the module's docstring):
    callers read it and never write into it. `keep=False` for sets no later run asks for again (a training's
    steps each draw new replicates), so they don't push out the ones that are.
    """
    key: DrawnKey = (seed, start, stop, n, p, float(phi), str(device), dtype)
    kept = _kept().get(device.type)
    found = kept.get(key) if kept is not None else None
    if found is not None:
        return found
    drawn = _draw(seed, start, stop, n, p, device=device, dtype=dtype, phi=phi)
    if keep and kept is not None and _nbytes(drawn) * MEMORY_SHARE <= (gpu_memory(device) or (0, 1 << 62))[1]:
        kept.put(key, drawn)
    return drawn


def _draw(
    seed: int, start: int, stop: int, n: int, p: int, *, device: torch.device, dtype: torch.dtype, phi: float
) -> Drawn:
    """`training_sets` drawn anew."""
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
    threads = min(_sampler_threads(gpu=pinned), stop - start)
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
