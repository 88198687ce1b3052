"""`headdiv worker`: an RQ worker that loads torch once, never forks, and keeps its job visibly alive.

RQ's default worker forks a work horse per job; with torch (and CUDA, which must not be initialised
before a fork) that is slow and unsafe, so this one subclasses `SimpleWorker` and runs jobs in its
own process. Because the job then blocks the main loop, a heartbeat thread refreshes the job's
StartedJobRegistry entry every few seconds with a short TTL: if the process is SIGKILLed the entry
expires within `heartbeat_ttl_s`, and the next maintenance pass (any worker's, or the API's, every
`maintenance_interval_s`) retries the job or fails it as abandoned - within two minutes in all,
however long the job's own `job_timeout` is. One worker per GPU: start each with its own
`CUDA_VISIBLE_DEVICES`; the device itself comes from `HEADDIV_DEVICE` (schemas.settings).

A worker takes small jobs first (the fast queue), then the others, then background work (the low
queue); one started with `--fast-lane` takes small jobs only, so they never wait behind long ones.
After its warm-up it measures its engine speed and publishes it with every heartbeat, for the API's
admission control (`headdiv.server.admission`); every heartbeat also publishes its device and memory
(`headdiv.jobs.worker_info`), which GET /api/v1/health lists per worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time

from redis.client import Pipeline
from redis.exceptions import RedisError
from rq import Queue, SimpleWorker, worker_registration
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.worker import WorkerStatus

from headdiv.jobs.keys import speed_key, worker_info_key
from headdiv.jobs.redis_client import connect
from headdiv.jobs.rq_conventions import worker_name
from headdiv.jobs.worker_info import publish, this_process
from headdiv.workers.queue.device_info import describe_memory, device_probe
from headdiv.workers.queue.worker_settings import WorkerSettings, get_worker_settings

log = logging.getLogger(__name__)


class HeaddivWorker(SimpleWorker):
    """SimpleWorker with a short, continuously refreshed registry TTL for the running job."""

    heartbeat_ttl_s: int = 30
    shutdown_asked: bool = False
    """Set on SIGTERM/SIGINT, idle or busy (RQ's own flag is only set when a job is running)."""
    speed: float | None = None
    """Engine speed of this process (work units per second), once measured: class-wide, because a worker
    rebuilt after a lost connection computes on the same machine."""

    def request_stop(self, signum: int, frame: object) -> None:
        self.shutdown_asked = True
        super().request_stop(signum, frame)

    def heartbeat(self, timeout: int | None = None, pipeline: Pipeline | None = None) -> None:
        """RQ's heartbeat, plus re-registration: if Redis was restarted empty, the worker shows up again
        in the worker sets (and in /health) at its next heartbeat instead of never."""
        super().heartbeat(timeout, pipeline)
        if not self.shutdown_asked:
            worker_registration.register(self, pipeline)
            if self.speed is not None:
                (pipeline or self.connection).set(speed_key(self.name), repr(self.speed), ex=self.worker_ttl + 60)
            self._report(pipeline, timeout or self.worker_ttl + 60)

    def register_birth(self) -> None:
        """RQ's registration, plus the first report of device and memory (so health has it at once)."""
        super().register_birth()
        self._report(None, self.worker_ttl + 60)

    def register_death(self) -> None:
        super().register_death()
        with contextlib.suppress(RedisError):
            self.connection.delete(worker_info_key(self.name))

    def _report(self, pipeline: Pipeline | None, ttl_s: int) -> None:
        """Publish this worker's device and memory now, for as long as its RQ record lives."""
        probe = device_probe()
        publish(pipeline or self.connection, this_process(self.name, probe.label, probe.memory()), ttl_s)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        return self.heartbeat_ttl_s

    def execute_job(self, job: Job, queue: Queue) -> None:
        execution = self.prepare_execution(job)
        stop = threading.Event()
        beat = threading.Thread(
            target=self._keep_alive, args=(job, execution, stop), name="headdiv-heartbeat", daemon=True
        )
        beat.start()
        try:
            self.perform_job(job, queue, execution)
        finally:
            stop.set()
            beat.join()
        self.set_state(WorkerStatus.IDLE)

    def _keep_alive(self, job: Job, execution: object, stop: threading.Event) -> None:
        while not stop.wait(self.job_monitoring_interval):
            try:
                self.maintain_heartbeats(job, execution)  # type: ignore[arg-type]
            except RedisError as exc:  # Redis away for a moment: the next beat tries again
                log.warning("heartbeat for job %s failed: %s", job.id, exc)


def _forgotten(worker: HeaddivWorker) -> bool:
    """Unregister a worker this process no longer runs; False when Redis refuses (full, or away)."""
    try:
        worker.register_death()
    except Exception:  # a full or absent Redis: best effort, asked again later
        return False
    return True


def build_worker(
    redis_url: str, queue_names: list[str] | None, settings: WorkerSettings, generation: int = 0
) -> HeaddivWorker:
    """The worker; `generation` > 0 names a worker restarted in the same process (its earlier name may still
    be registered: RQ refuses a second birth under one name)."""
    connection = connect(redis_url, max(settings.redis_socket_timeout_s, 5.0))
    names = queue_names or [settings.fast_queue_name, settings.queue_name, settings.low_queue_name]
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in names]
    worker = HeaddivWorker(
        queues,
        name=worker_name(
            device_probe().kind, socket.gethostname() + (f"-{generation}" if generation else ""), os.getpid()
        ),
        connection=connection,
        serializer=JSONSerializer,
        maintenance_interval=settings.maintenance_interval_s,
        job_monitoring_interval=settings.heartbeat_interval_s,
        # the blocking dequeue lasts worker_ttl - 15 s; keep it short so maintenance runs on time
        worker_ttl=settings.maintenance_interval_s + 15,
        default_result_ttl=settings.result_ttl_s,
    )
    worker.heartbeat_ttl_s = settings.heartbeat_ttl_s
    return worker


def _warm_up(settings: WorkerSettings) -> None:
    """Compile the engine, then measure its speed (unless configured): before the first job, if it is quick."""
    from headdiv.workers.engine.speed import engine_speed
    from headdiv.workers.instant_reports import warm_up

    warm_up()
    if HeaddivWorker.speed is None:
        try:
            HeaddivWorker.speed = engine_speed()
            log.info("engine speed: %.3g work units per second", HeaddivWorker.speed)
        except Exception:
            log.warning("engine speed not measured; the API will not bound jobs by it", exc_info=True)


def run_worker(redis_url: str, queue_names: list[str] | None = None, *, burst: bool = False) -> None:
    """Run a worker until it is told to stop (SIGTERM/SIGINT), or, with `burst`, until the queue is empty.

    If Redis goes away the worker waits and reconnects rather than exiting.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = get_worker_settings()
    probe = device_probe()
    log.info("computing on %s%s", probe.label, describe_memory(probe.memory()))
    HeaddivWorker.speed = settings.work_per_s
    if settings.warm_up:
        threading.Thread(target=_warm_up, args=(settings,), name="headdiv-warm-up", daemon=True).start()
    delay, generation = 1.0, 0
    stale: list[HeaddivWorker] = []  # earlier names a full Redis kept registered: health would count them
    while True:
        worker: HeaddivWorker | None = None
        try:
            worker = build_worker(redis_url, queue_names, settings, generation)
            stale = [old for old in stale if not _forgotten(old)]
            worker.work(burst=burst, logging_level="INFO")
        except (RedisError, ValueError) as exc:
            # unreachable, or full (`noeviction` at maxmemory refuses writes: OutOfMemoryError); a ValueError is
            # RQ refusing a name a crashed loop left registered. Either way: wait, and come back as a new worker
            if isinstance(exc, ValueError) and "active worker named" not in str(exc):
                raise
            log.warning("Redis unusable (%s); retrying in %.0f s", exc, delay)
            if worker is not None and not _forgotten(worker):
                stale.append(worker)  # Redis refused its death too: asked again once it takes writes
            generation += 1
            time.sleep(delay)
            delay = min(delay * 2, 30.0)
            continue
        if burst or worker.shutdown_asked:
            return
        log.warning("worker loop ended (Redis lost?); reconnecting in %.0f s", delay)
        time.sleep(delay)
        delay = min(delay * 2, 30.0)
