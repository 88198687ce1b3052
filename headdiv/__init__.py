"""headdiv: an interactive lab for head diversity in multi-head attention (docs/model.md).

One package, three parts, imports pointing one way: `headdiv.dashboard` (the Dash front end, HTTP only)
-> `headdiv.server` (the API, job submission, the CLI) -> `headdiv.workers` (schemas, job protocol, torch
engine, queue worker). Importing `headdiv` loads none of them, so it stays light (no torch).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
