"""headdiv: an interactive lab for head diversity in multi-head attention (docs/model.md).

    import headdiv
    r = headdiv.simulate(H=8, d_k=4, theta=45)   # computed here (or on a server: headdiv.connect(url))
    r.summary(); r.figure(); r.url(); r.command()

The calls (`simulate`, `surface`, `architecture`, `sweep`, `covariance`, `train`, `hdi`, `theory`, `heads`,
`compare_heads`, `local_models`), `connect`, `show` and the `Result` they return are documented in docs/python.md
(`headdiv.lab`). They are loaded on first use, so `import headdiv` stays light: no torch, no Dash, until a
computation runs.

One package in floors, ground first, imports pointing down (CONTRIBUTING.md, "Layout"; `tests/test_layering.py`):

- `version`: the one version of headdiv, a leaf.
- `i18n`: every word a person reads, in their language: the catalogues (gettext, Babel) and the languages.
- `schemas`: the ground floor, torch-free: pydantic models at the edges and the registries they are built from.
- `plumbing`: shared machinery that is no vocabulary: bounded caches, work kept on disk, request identity.
- `jobs`: the job protocol every door shares, torch-free: kinds, state, cells, ids, Redis keys, the result cache.
- `workers`: the compute side: the torch engine, the one runner of a job, the queue worker, trained models.
- `figures`: the Plotly figure builders: a result in, a figure out.
- `client`: the one HTTP client of the API, for the dashboard and for `headdiv.connect(url)`.
- `dashboard`: the Dash front end; it talks to the API over HTTP.
- `server`: the FastAPI app (the API under /api/v1, the job backends); it mounts the dashboard.
- `lab`: this Python API.
- `cli`: the `headdiv` command line.

The Python API computes as the server does (jobs through `headdiv.workers.runner`, reports through
`headdiv.workers.instant_reports`) and draws with the same figure builders.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from headdiv.version import __version__

_FROM = {
    **dict.fromkeys(
        (
            "simulate",
            "surface",
            "architecture",
            "sweep",
            "covariance",
            "train",
            "hdi",
            "theory",
            "heads",
            "compare_heads",
            "local_models",
            "connect",
            "Lab",
            "InvalidRequest",
            "JobFailed",
            "ServerUnreachable",
        ),
        "headdiv.lab",
    ),
    "show": "headdiv.lab.show",
    "Result": "headdiv.lab.python_result",
    "Summary": "headdiv.lab.python_result",
}
__all__ = ["__version__", *_FROM]

if TYPE_CHECKING:  # what the names are, for type checkers and editors (loaded lazily at run time)
    from headdiv.lab import InvalidRequest as InvalidRequest
    from headdiv.lab import JobFailed as JobFailed
    from headdiv.lab import Lab as Lab
    from headdiv.lab import ServerUnreachable as ServerUnreachable
    from headdiv.lab import architecture as architecture
    from headdiv.lab import compare_heads as compare_heads
    from headdiv.lab import connect as connect
    from headdiv.lab import covariance as covariance
    from headdiv.lab import hdi as hdi
    from headdiv.lab import heads as heads
    from headdiv.lab import local_models as local_models
    from headdiv.lab import simulate as simulate
    from headdiv.lab import surface as surface
    from headdiv.lab import sweep as sweep
    from headdiv.lab import theory as theory
    from headdiv.lab import train as train
    from headdiv.lab.python_result import Result as Result
    from headdiv.lab.python_result import Summary as Summary
    from headdiv.lab.show import show as show


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module 'headdiv' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
