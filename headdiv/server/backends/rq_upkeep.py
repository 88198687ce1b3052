"""Scaled mode's background threads, one pair per API process: RQ's maintenance (what a worker's would do,
so abandoned jobs are retried or failed even with no worker left) and the listener that hands the runners'
announcements on Redis pub/sub to the long-polls."""

from __future__ import annotations

import contextlib
import logging
import threading

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.registry import clean_registries
from rq.worker_registration import clean_worker_registry

from headdiv.jobs.keys import EVENTS
from headdiv.server.backends.watch import JobWatch
from headdiv.server.server_settings import ServerSettings

log = logging.getLogger(__name__)


class Upkeep:
    """The threads of `RQBackend`: started with the app, stopped at its end."""

    settings: ServerSettings
    redis: Redis
    queue: Queue
    watch: JobWatch
    _stop: threading.Event
    _maintenance: threading.Thread | None
    _listener: threading.Thread | None

    def start(self) -> None:
        """Start the maintenance thread (abandoned jobs are retried or failed even with no worker left) and the
        listener that hands the runners' announcements to the long-polls."""
        if self._maintenance is None:
            self._maintenance = threading.Thread(target=self._maintain, name="headdiv-rq-maintenance", daemon=True)
            self._maintenance.start()
        if self._listener is None:
            self._listener = threading.Thread(target=self._listen, name="headdiv-rq-events", daemon=True)
            self._listener.start()

    def close(self) -> None:
        self._stop.set()
        for thread in (self._maintenance, self._listener):
            if thread is not None:
                thread.join(timeout=5)
        self._maintenance = self._listener = None

    def _listen(self) -> None:
        """One subscription per API process: each `<job id> ended|stepped` wakes that job's watchers. While
        Redis is unreachable the long-polls fall back to re-reading every `poll_interval_s`."""
        while not self._stop.is_set():
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(EVENTS)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=0.5)
                    if message is not None and isinstance(message.get("data"), bytes):
                        job, _, what = message["data"].decode().partition(" ")
                        self.watch.announce(job, ended=what == "ended")
            except (RedisError, OSError) as exc:
                log.debug("job events unavailable: %s", exc)
                self._stop.wait(1.0)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    pubsub.close()

    def _maintain(self) -> None:
        while not self._stop.wait(self.settings.maintenance_interval_s):
            try:
                self.clean_once()
            except RedisError as exc:
                log.debug("maintenance skipped: %s", exc)
            except Exception:
                log.exception("maintenance failed")

    def clean_once(self) -> None:
        """What an RQ worker's maintenance does, taken under the same lock so only one process does it."""
        if self.queue.acquire_maintenance_lock():
            try:
                clean_registries(self.queue)
                clean_worker_registry(self.queue)
            finally:
                self.queue.release_maintenance_lock()
