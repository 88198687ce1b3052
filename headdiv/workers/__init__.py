"""headdiv's compute side: what runs jobs and measures models.

- `engine`: pure functions from a validated request to a result (torch), with their runner tables;
- `runner`: the one runner, which computes a job and publishes its record as it goes (`run_and_publish`: the
  embedded backend's threads and the RQ task; `run_job`, one job here: the command line and the Python API);
- `assembly`: a multi-cell job's result from its cells' summaries (torch-free, so the API can assemble);
- `queue`: the RQ worker process and its tasks;
- `models`: trained Transformers' attention weights, read and measured;
- `instant_reports`: the server's one road to the cheap reports (HDI, theory, lessons, model weights) and to the
  engine's warm-up, speed and device;
- `docs`: the tables of docs/ generated from the registries.

Importing this package is cheap: torch is only imported by `headdiv.workers.engine`, and by the queue worker's
device report (`headdiv.workers.queue.device_info`).
"""

from headdiv.version import ENGINE_VERSION, __version__

__all__ = ["ENGINE_VERSION", "__version__"]
