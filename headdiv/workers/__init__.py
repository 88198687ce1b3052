"""headdiv's compute side: what runs jobs and measures models.

- `engine`: pure functions from a validated request to a result (torch), with their runner tables;
- `runner`: `run`, the one function that computes a job and publishes its record as it goes (the embedded
  backend's threads, the RQ task, the command line and the Python API all call it);
- `assembly`: a multi-cell job's result from its cells' summaries (torch-free, so the API can assemble);
- `queue`: the RQ worker process and its tasks;
- `models`: trained Transformers' attention weights, read and measured;
- `instant_reports`: the server's one road to the cheap reports (HDI, theory, lessons, model weights);
- `docs`: the tables of docs/ generated from the registries.

Importing this package is cheap: torch is only imported by `headdiv.workers.engine`.
"""

from headdiv.version import ENGINE_VERSION, __version__

__all__ = ["ENGINE_VERSION", "__version__"]
