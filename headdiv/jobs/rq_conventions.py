"""The conventions of the RQ queue that the API (which enqueues) and the workers (which run) share."""

from __future__ import annotations

TASK = "headdiv.workers.queue.tasks.run"
"""The function RQ calls for every job, by name: the API never imports it."""
CELLS_TASK = "headdiv.workers.queue.tasks.run_cells"
"""The function RQ calls for one chunk of the cells of a job fanned out across workers."""


def worker_name(device: str, host: str, pid: int) -> str:
    """Workers are named `headdiv.<device>.<host>.<pid>`, so health can say where jobs compute."""
    return f"headdiv.{device.replace('.', '_')}.{host}.{pid}"


def worker_device(name: str) -> str | None:
    """The device part of a worker's name (None for a worker that is not ours)."""
    parts = name.split(".")
    return parts[1] if len(parts) >= 3 and parts[0] == "headdiv" else None
