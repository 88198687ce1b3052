"""Seeded draws: training sets, query points and random heads.

Every replicate gets its own generator seeded from (seed, stream, index), so replicate r's data do
not depend on how replicates are chunked for memory, and the NumPy reference in the tests can ask for
exactly the draws the engine used.
"""

from __future__ import annotations

import torch

TRAINING = 1
QUERIES = 2
RANDOM_GEOMETRY = 3
SLICE_POINTS = 61
_MASK = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def derive_seed(seed: int, stream: int, index: int) -> int:
    """A well-mixed 63-bit seed for one (stream, index) of a scenario's seed."""
    return _splitmix64(_splitmix64(_splitmix64(seed) ^ stream) ^ index) >> 1


def seeded_generator(seed: int, stream: int, index: int, device: torch.device) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(derive_seed(seed, stream, index))
    return gen


def training_sets(
    seed: int, start: int, stop: int, n: int, p: int, *, device: torch.device, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs X (R, n, p) ~ N(0, I_p) and noise eps (R, n) ~ N(0, 1) for replicates start..stop-1.

    Drawn in float32 whatever the working dtype, so float32 and float64 runs see the same data and
    differ only by rounding (and because torch's vectorised float32 sampler is ~5x faster than its
    float64 one: sampling is a large share of a simulation).
    """
    x = torch.empty(stop - start, n, p, device=device, dtype=torch.float32)
    eps = torch.empty(stop - start, n, device=device, dtype=torch.float32)
    gen = torch.Generator(device=device)
    for i, r in enumerate(range(start, stop)):
        gen.manual_seed(derive_seed(seed, TRAINING, r))
        torch.randn(n, p, generator=gen, out=x[i])
        torch.randn(n, generator=gen, out=eps[i])
    return x.to(dtype), eps.to(dtype)


def query_points(seed: int, queries: int, p: int, *, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """The fixed query points x*_j (queries, p), drawn once per scenario."""
    gen = seeded_generator(seed, QUERIES, 0, device)
    return torch.randn(queries, p, generator=gen, device=device, dtype=torch.float32).to(dtype)
