"""The torch compute engine: scenarios in, the numbers of docs/model.md out.

Public API (everything else in this package is an implementation detail):

- `simulate(scenario, *, device=None, dtype=None) -> dict`: one Monte Carlo run.
- `simulate_many(scenarios, *, device, dtype, should_cancel, progress)`: many runs, batched where the
  NW step's shapes agree; yields `(index, result)` as each batch finishes.
- `assemble`: a multi-cell job's result from its cells' summaries (`surface`, `architecture`,
  `diversity_sweep`).
- `run_covariance(request, **hooks) -> dict`: the covariance lab (Lemma 4.1 against the measured covariance).
- `architecture_theory(query: TheoryQuery) -> dict`: closed-form curves of docs/model.md section 7.
- `hdi_report(matrices) -> dict`: HDI, overlap matrix and principal angles of any head matrices.
- `run_training(request, *, progress, should_cancel, device, dtype, partial) -> dict`: the training lab.
- `warm_up()`: compile the NW step ahead of the first request.
- `measure_speed(device=None) -> float`: this process's engine speed, in work units per second.
- `EngineError`, `JobCancelled`: a request the engine refuses; a run stopped on request.

Names are imported on first use (PEP 562), so the torch-free parts (`assemble`, `theory`,
`decomposition`, `diversity`, `errors`) load without torch: the API assembles partial results with them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from headdiv.workers.engine import assemble
    from headdiv.workers.engine.covariance import run_covariance
    from headdiv.workers.engine.diversity import hdi_report
    from headdiv.workers.engine.errors import EngineError, JobCancelled
    from headdiv.workers.engine.nw import warm_up
    from headdiv.workers.engine.simulation import simulate, simulate_many
    from headdiv.workers.engine.speed import measure_speed
    from headdiv.workers.engine.theory import architecture_theory
    from headdiv.workers.engine.training import run_training

_EXPORTS = {
    "assemble": "headdiv.workers.engine",
    "simulate": "headdiv.workers.engine.simulation",
    "simulate_many": "headdiv.workers.engine.simulation",
    "run_covariance": "headdiv.workers.engine.covariance",
    "architecture_theory": "headdiv.workers.engine.theory",
    "hdi_report": "headdiv.workers.engine.diversity",
    "run_training": "headdiv.workers.engine.training",
    "warm_up": "headdiv.workers.engine.nw",
    "measure_speed": "headdiv.workers.engine.speed",
    "EngineError": "headdiv.workers.engine.errors",
    "JobCancelled": "headdiv.workers.engine.errors",
}

__all__ = [
    "EngineError",
    "JobCancelled",
    "architecture_theory",
    "assemble",
    "hdi_report",
    "measure_speed",
    "run_covariance",
    "run_training",
    "simulate",
    "simulate_many",
    "warm_up",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'headdiv.workers.engine' has no attribute {name!r}")
    if module == __name__:  # a submodule
        return importlib.import_module(f"{__name__}.{name}")
    return getattr(importlib.import_module(module), name)
