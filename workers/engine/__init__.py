"""The torch compute engine: scenarios in, the numbers of MODEL.md out.

Public API (everything else in this package is an implementation detail):

- `simulate(scenario, *, device=None, dtype=None) -> dict`: one Monte Carlo run (issue 3's result keys).
- `run_surface(request, *, progress=None, should_cancel=None, device=None, dtype=None) -> dict`
- `run_architecture(request, *, progress=None, should_cancel=None, device=None, dtype=None) -> dict`
- `run_diversity_sweep(request, *, progress=None, should_cancel=None, device=None, dtype=None) -> dict`
- `architecture_theory(query: TheoryQuery) -> dict`: closed-form curves of MODEL.md section 7.
- `hdi_report(matrices) -> dict`: HDI, overlap matrix and principal angles of any head matrices.
- `run_job(kind, payload, *, progress=None, should_cancel=None) -> dict`: dispatch by job kind
  (`JOB_KINDS`), used by the in-process runner and the RQ task alike.
- `warm_up()`: compile the NW step ahead of the first request.
- `JobCancelled`: raised between steps when `should_cancel()` turns true.

`progress` receives a float in [0, 1]; `should_cancel` is polled between steps.
"""

from workers.engine.dispatch import JOB_KINDS, run_job
from workers.engine.diversity import hdi_report
from workers.engine.errors import EngineError, JobCancelled
from workers.engine.nw import warm_up
from workers.engine.simulate import simulate
from workers.engine.sweeps import run_architecture, run_diversity_sweep, run_surface
from workers.engine.theory import architecture_theory

__all__ = [
    "JOB_KINDS",
    "EngineError",
    "JobCancelled",
    "architecture_theory",
    "hdi_report",
    "run_architecture",
    "run_diversity_sweep",
    "run_job",
    "run_surface",
    "simulate",
    "warm_up",
]
