"""Which device and dtype the engine computes on (setting `device`: auto | cpu | cuda)."""

from __future__ import annotations

import torch

from headdiv.workers.errors import EngineError
from headdiv.workers.settings import get_engine_settings

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
