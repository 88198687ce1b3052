"""What a worker says about itself at every heartbeat (its device and memory), and how the API reads it back.

Torch-free on purpose: the worker measures (`headdiv.workers.queue.device_info`) and writes one JSON value per
worker under `worker_info_key`, with the same expiry as RQ's own worker record; the API only reads those values,
for the workers RQ still lists, so health never imports torch nor shows a worker that is gone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from pydantic import BaseModel, Field, ValidationError
from redis import Redis
from redis.client import Pipeline

from headdiv.jobs.keys import worker_info_key
from headdiv.jobs.rq_conventions import worker_device


class WorkerInfo(BaseModel):
    """One runner of jobs, as health shows it: a `headdiv worker` process (scaled) or the API itself (embedded)."""

    name: str = Field(description="The RQ worker's name, `headdiv.<device>.<host>.<pid>` ('embedded' in one process).")
    device: str = Field(description="Where it computes: 'cpu', or 'cuda:0 (NVIDIA H200)' with the GPU's name.")
    memory_total_bytes: int | None = Field(
        None, description="The GPU's total memory (torch.cuda.mem_get_info); null on the CPU."
    )
    memory_free_bytes: int | None = Field(
        None, description="The GPU's free memory at the worker's last heartbeat; null on the CPU."
    )
    rss_bytes: int | None = Field(None, description="The process's resident memory at its last heartbeat.")
    reported_at: float | None = Field(
        None, description="Unix time of that heartbeat (null when the worker has not reported yet)."
    )


def process_rss() -> int | None:
    """This process's resident set size in bytes (Linux /proc), None where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def publish(connection: Redis | Pipeline, info: WorkerInfo, ttl_s: int) -> None:
    """Store `info` for `ttl_s` seconds (on a Redis client or a pipeline)."""
    connection.set(worker_info_key(info.name), info.model_dump_json(), ex=ttl_s)


def read_all(redis: Redis, names: Sequence[str]) -> list[WorkerInfo]:
    """What each of these workers last reported, in name order; a worker that has not yet reported (or is not
    ours) shows the device its name carries and no memory."""
    ordered = sorted(names)
    raw = redis.mget([worker_info_key(n) for n in ordered]) if ordered else []
    out = []
    for name, value in zip(ordered, raw, strict=True):
        info = None
        if value:
            try:
                info = WorkerInfo.model_validate_json(value)
            except ValidationError:  # written by another version: fall back to the name
                info = None
        out.append(info or WorkerInfo(name=name, device=worker_device(name) or "unknown"))
    return out


def this_process(name: str, device: str, memory: tuple[int | None, int | None] = (None, None)) -> WorkerInfo:
    """A report for this process now."""
    total, free = memory
    return WorkerInfo(
        name=name,
        device=device,
        memory_total_bytes=total,
        memory_free_bytes=free,
        rss_bytes=process_rss(),
        reported_at=round(time.time(), 3),
    )
