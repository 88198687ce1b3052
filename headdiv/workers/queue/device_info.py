"""The worker's device, named for people ('cuda:0 (NVIDIA H200)'), and its memory at each heartbeat.

This is the worker's side of health (`headdiv.jobs.worker_info` is the torch-free side the API reads):
it loads torch, so only `headdiv worker` imports it, after it has set its CPU priority and OpenMP policy.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeviceProbe:
    kind: str
    """'cpu' or 'cuda': what the worker's name carries."""
    index: int | None
    """The CUDA device index (None on the CPU)."""
    label: str
    """'cpu', or 'cuda:<index> (<GPU name>)'."""

    def memory(self) -> tuple[int | None, int | None]:
        """(total, free) bytes of the GPU now, from torch.cuda.mem_get_info; (None, None) on the CPU or on error."""
        if self.index is None:
            return None, None
        import torch

        from headdiv.workers.engine.device import gpu_memory

        try:
            return gpu_memory(torch.device("cuda", self.index)) or (None, None)
        except Exception as exc:  # a heartbeat must never fail for a measurement
            log.warning("GPU memory not read: %s", exc)
            return None, None


@lru_cache(maxsize=1)
def device_probe() -> DeviceProbe:
    """Resolve the engine's device once in this process (HEADDIV_DEVICE; raises EngineError when unusable)."""
    import torch

    from headdiv.workers.engine.device import resolve_device

    device = resolve_device(None)
    if device.type != "cuda":
        return DeviceProbe(device.type, None, device.type)
    index = device.index if device.index is not None else torch.cuda.current_device()
    return DeviceProbe("cuda", index, f"cuda:{index} ({torch.cuda.get_device_name(index)})")


def describe_memory(memory: tuple[int | None, int | None]) -> str:
    """', 139.8 GiB GPU memory (139.1 GiB free)' or '' on the CPU: for the start-up line."""
    total, free = memory
    if total is None or free is None:
        return ""
    return f", {total / 2**30:.1f} GiB GPU memory ({free / 2**30:.1f} GiB free)"
