"""Which device and dtype the engine computes on (setting `device`: auto | cpu | cuda)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch

from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.errors import EngineError

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


def resolve_device(name: str | None) -> torch.device:
    """'auto' takes CUDA when present; asking for CUDA without one is an error, not a silent CPU run."""
    apply_threads()
    choice = name or get_engine_settings().device
    if choice == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if choice == "cuda" and not torch.cuda.is_available():
        raise EngineError("device: 'cuda' was asked for but no CUDA device is available")
    if choice not in ("cpu", "cuda"):
        raise EngineError(f"device: expected auto, cpu or cuda, got {choice!r}")
    return torch.device(choice)


def apply_threads() -> None:
    """Give torch the configured number of compute threads (one per worker when several share a machine)."""
    threads = get_engine_settings().threads
    if threads is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def resolve_dtype(name: str | None) -> torch.dtype:
    choice = name or get_engine_settings().dtype
    if choice not in _DTYPES:
        raise EngineError(f"dtype: expected float32 or float64, got {choice!r}")
    return _DTYPES[choice]


GIB = float(1 << 30)
MEMORY_SHARE = 16
"""A chunk of training data and keys, or a block of scores, takes at most 1/16 of the GPU's free memory:
a run holds about one chunk and three score blocks (the memory note of `montecarlo`), so it stays well inside
what is free even when other workers share the card."""


def block_bytes(device: torch.device) -> tuple[int, int]:
    """(chunk_bytes, score_bytes) for `device`: the CPU's are sized for its caches; a GPU's are larger (one
    block must fill the chip, and each block costs a few kernel launches) but bounded by its free memory."""
    s = get_engine_settings()
    if device.type != "cuda":
        return s.chunk_bytes, s.score_bytes
    _, free = gpu_memory(device) or (0, 0)
    cap = max(1 << 20, free // MEMORY_SHARE)
    return min(s.cuda_chunk_bytes, cap), min(s.cuda_score_bytes, cap)


def gpu_memory(device: torch.device) -> tuple[int, int] | None:
    """(total, free) bytes of a GPU now; None for the CPU."""
    if device.type != "cuda":
        return None
    free, total = torch.cuda.mem_get_info(device)
    return int(total), int(free)


def memory_report(device: torch.device) -> str:
    """'40.1 of 139.8 GiB free' for a GPU; '' for the CPU."""
    memory = gpu_memory(device)
    return "" if memory is None else f"{memory[1] / GIB:.1f} of {memory[0] / GIB:.1f} GiB free"


_RELEASERS: list[Callable[[], None]] = []


def on_out_of_memory(release: Callable[[], None]) -> Callable[[], None]:
    """Register `release` to give back what the engine keeps on a device when that device runs out."""
    _RELEASERS.append(release)
    return release


@contextlib.contextmanager
def out_of_memory_as_error(device: torch.device) -> Iterator[None]:
    """A GPU that runs out of memory fails the run with a reason, and the worker lives on: the cached
    blocks and whatever the engine keeps (`on_out_of_memory`) are released so that the next job starts with
    the memory free."""
    try:
        yield
    except torch.OutOfMemoryError:
        for release in _RELEASERS:
            release()
        if device.type == "cuda":
            torch.cuda.empty_cache()
        raise EngineError(
            f"the {device} device ran out of memory ({memory_report(device) or 'none left'}); other work may "
            "share it: ask for fewer replicates, queries or training points, or run it again later"
        ) from None
