"""Removing a private queue from a shared Redis: what a bench and a test that made one leave behind.

A run names its queues after itself (`<queue>`, `<queue>.fast`, `<queue>.low`, as `JobSettings` derives
them), so removing them and every job they hold, waiting or deferred, touches nobody else's work.
"""

from __future__ import annotations

import contextlib

import redis


def delete_queue(redis_url: str, queue: str) -> None:
    """A run's queues (main, fast lane and low priority) and every job they hold, waiting or deferred."""
    from rq import Queue
    from rq.job import Job

    conn = redis.Redis.from_url(redis_url)
    with contextlib.suppress(redis.RedisError):
        for name in (queue, f"{queue}.fast", f"{queue}.low"):
            q = Queue(name, connection=conn)
            for registry in (q.deferred_job_registry, q.scheduled_job_registry, q.started_job_registry):
                for job_id in registry.get_job_ids():
                    with contextlib.suppress(Exception):
                        Job.fetch(job_id, connection=conn).delete()
            q.delete(delete_jobs=True)
