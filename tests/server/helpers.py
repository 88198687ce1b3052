"""Real processes for the service tests: RQ workers, uvicorn servers and private redis-servers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis
import uvicorn
from fastapi import FastAPI

from headdiv.server.http_guard import Server, uvicorn_config
from headdiv.server.server_settings import ServerSettings

ROOT = Path(__file__).resolve().parents[2]

# Small scenarios keep the suite fast on two cores; a fresh seed per run keeps job ids (and so the
# cache entries in a shared Redis) private to this run.
RUN_SEED = secrets.randbelow(2**31)
SMALL: dict[str, Any] = {"replicates": 4, "queries": 4, "n": 32, "seed": RUN_SEED}


def small(**overrides: Any) -> dict[str, Any]:
    return {**SMALL, **overrides}


def slow_surface(cells: int = 6, **base: Any) -> dict[str, Any]:
    """A surface that takes a few seconds on this machine, long enough to watch, kill or cancel."""
    return {
        "base": {"replicates": 32, "queries": 32, "n": 512, "H": 8, "seed": RUN_SEED, **base},
        "x": {"param": "theta", "values": [float(5 * i) for i in range(cells)]},
        "y": {"param": "noise", "values": [0.1, 0.5, 1.0, 2.0]},
    }


def overlong_surface(seed: int) -> dict[str, Any]:
    """A surface of minutes on this machine (one cell alone takes seconds): far past a 1 s job limit on any
    machine, however its cells are batched, shared or fanned out."""
    return slow_surface(12, replicates=512, n=2048, seed=seed)


def maximal_simulation(**overrides: Any) -> dict[str, Any]:
    """A simulation near the work budget that spends it on two huge replicates (minutes on this machine): the
    engine can only stop it or report its progress from inside the attention step."""
    return {"replicates": 2, "H": 64, "queries": 256, "n": 65536, "d_k": 1, "seed": RUN_SEED, **overrides}


def poll(client: Any, job_id: str, until: tuple[str, ...] | Callable[[dict[str, Any]], bool], timeout: float) -> dict:
    """The job's state once it is in one of the statuses `until` (or `until(state)` holds); TimeoutError if not
    within `timeout` seconds."""
    done = until if callable(until) else (lambda body: body["status"] in until)
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/jobs/{job_id}").json()
        if done(body):
            return body
        time.sleep(0.05)
    raise TimeoutError(f"job {job_id} still {body.get('status')} ({body.get('progress')}) after {timeout} s")


def watch_surface(client: Any, timeout: float = 180) -> tuple[dict[str, Any], list[float]]:
    """Submit `slow_surface(6)` and poll it until it finishes: its last state and every progress seen."""
    r = client.post("/api/v1/surfaces", json=slow_surface(6))
    assert r.status_code == 202 and r.headers["location"].endswith(r.json()["job_id"]), r.text
    job_id = r.json()["job_id"]
    seen: list[float] = []
    body: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/jobs/{job_id}").json()
        seen.append(body["progress"])
        if body["status"] == "finished":
            break
        time.sleep(0.05)
    assert body["status"] == "finished", body
    return body, seen


def in_own_loop(main: Callable[[], Any]) -> Any:
    """`asyncio.run(main())` on an event loop of its own thread: a session's browser fixture (Playwright's
    sync API) keeps a loop running in the main thread, where `asyncio.run` refuses to start another."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def worker_env(redis_url: str, queue: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "REDIS_URL": redis_url,
            "HEADDIV_QUEUE_NAME": queue,
            "HEADDIV_MAINTENANCE_INTERVAL_S": "2",
            "HEADDIV_HEARTBEAT_INTERVAL_S": "1",
            "HEADDIV_HEARTBEAT_TTL_S": "4",
            "HEADDIV_CACHE_TTL_S": "600",  # results of test runs do not linger in a shared Redis
            "HEADDIV_WARM_UP": "0",
            "HEADDIV_WARM_START": "0",
            "HEADDIV_COMPILE": "off",
            "HEADDIV_DEVICE": "cpu",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


class WorkerProcess:
    """`run_worker` in a real subprocess (the same code `headdiv worker` runs)."""

    def __init__(self, redis_url: str, queue: str, log_path: Path, *, fast_lane: bool = False, **env: str) -> None:
        """A worker of the app's queues (fast, main, low) named after `queue`; with `fast_lane`, of small jobs only."""
        queues = [f"{queue}.fast"] if fast_lane else None
        code = f"from headdiv.workers.queue.worker import run_worker; run_worker({redis_url!r}, {queues!r})"
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=worker_env(redis_url, queue, **env),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.redis_url = redis_url
        self.queue = queues[0] if queues else queue

    @property
    def name_prefix(self) -> str:
        return f".{self.proc.pid}"

    def wait_registered(self, timeout: float = 60) -> None:
        from rq import Queue, Worker

        conn = redis.Redis.from_url(self.redis_url)
        queue = Queue(self.queue, connection=conn)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited early: {self.log_path.read_text()[-2000:]}")
            if any(w.name.endswith(self.name_prefix) for w in Worker.all(connection=conn, queue=queue)):
                return
            time.sleep(0.2)
        raise TimeoutError(f"worker did not register: {self.log_path.read_text()[-2000:]}")

    def successful_jobs(self) -> int:
        from rq import Queue, Worker

        conn = redis.Redis.from_url(self.redis_url)
        for w in Worker.all(connection=conn, queue=Queue(self.queue, connection=conn)):
            if w.name.endswith(self.name_prefix):
                return int(w.successful_job_count)
        raise LookupError("worker not registered")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()


class ServerThread:
    """A real uvicorn server on a free port (or `port`), in a thread of the test process; with `settings`, it
    is configured as `headdiv serve` configures it (the guarded protocol and its limits)."""

    def __init__(self, app: FastAPI, *, port: int | None = None, settings: ServerSettings | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        if settings is not None:
            config = uvicorn_config(app, settings, "127.0.0.1", self.port, log_level="warning")
        else:
            config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self.server = Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


class RedisServer:
    """A private redis-server on a free port that a test may stop and start (never the shared one)."""

    def __init__(self, workdir: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise FileNotFoundError("redis-server is not installed")
        self.binary = binary
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    return
            time.sleep(0.05)
        raise RuntimeError("private redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


@contextlib.contextmanager
def workers(
    redis_url: str, queue: str, log_dir: Path, count: int = 1, *, fast_lane: bool = False, **env: str
) -> Iterator[list[WorkerProcess]]:
    log_dir.mkdir(parents=True, exist_ok=True)
    procs = [
        WorkerProcess(redis_url, queue, log_dir / f"worker-{queue}-{i}.log", fast_lane=fast_lane, **env)
        for i in range(count)
    ]
    try:
        for p in procs:
            p.wait_registered()
        yield procs
    finally:
        for p in procs:
            p.stop()


def run_async(coro: Any) -> Any:
    """asyncio.run in a thread of its own: a browser test's Playwright may own this thread's loop."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
