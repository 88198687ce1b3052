"""One entry point per job kind, so the in-process runner and the RQ task run work the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from workers.schemas import ArchitectureRequest, DiversitySweepRequest, Scenario, SurfaceRequest

Progress = Callable[[float], None]
ShouldCancel = Callable[[], bool]

JOB_KINDS: dict[str, type[BaseModel]] = {
    "simulation": Scenario,
    "surface": SurfaceRequest,
    "architecture": ArchitectureRequest,
    "diversity_sweep": DiversitySweepRequest,
}


def run_job(
    kind: str,
    payload: dict[str, Any],
    *,
    progress: Progress | None = None,
    should_cancel: ShouldCancel | None = None,
    device: str | None = None,
    dtype: str | None = None,
) -> dict[str, Any]:
    """Validate `payload` as the body of `kind` and compute it (a JSON-ready dict)."""
    from workers.engine.simulate import simulate
    from workers.engine.sweeps import run_architecture, run_diversity_sweep, run_surface

    if kind not in JOB_KINDS:
        raise ValueError(f"unknown job kind {kind!r}; expected one of {sorted(JOB_KINDS)}")
    request = JOB_KINDS[kind].model_validate(payload)
    if isinstance(request, Scenario):
        if progress:
            progress(0.0)
        result = simulate(request, device=device, dtype=dtype)
        if progress:
            progress(1.0)
        return result
    runner = {
        SurfaceRequest: run_surface,
        ArchitectureRequest: run_architecture,
        DiversitySweepRequest: run_diversity_sweep,
    }[type(request)]
    return runner(request, progress=progress, should_cancel=should_cancel, device=device, dtype=dtype)  # type: ignore[operator]
