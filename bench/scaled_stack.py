"""The processes of `bench/gpu_scaled.py`: a private redis-server, `headdiv serve` and `headdiv worker`, each in
its own session with its output in a file, a log with times, one deadline for the run, and a clean-up that
leaves nothing running."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


class Failed(Exception):
    """A check failed: the run stops, and its reason is the last line."""


class Run:
    """The log, the deadline and the children of one run."""

    def __init__(self, budget_s: float, workdir: Path) -> None:
        self.t0 = time.monotonic()
        self.deadline = self.t0 + budget_s
        self.workdir = workdir
        self.lines: list[str] = []
        self.children: list[tuple[str, subprocess.Popen[bytes], Path]] = []

    def log(self, message: str) -> None:
        line = f"[{time.monotonic() - self.t0:6.1f}s] {message}"
        self.lines.append(line)
        print(line, flush=True)

    def left(self, want: float) -> float:
        """`want` seconds, or what is left of the budget if less; Failed when nothing is left."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Failed("the run's time budget is spent")
        return min(want, left)

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        path = self.workdir / f"{name}.log"
        with open(path, "ab") as out:
            proc = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.children.append((name, proc, path))
        self.log(f"started {name} (pid {proc.pid}): {shlex.join(argv)}")
        return proc

    def tail(self, proc: subprocess.Popen[bytes], lines: int = 15) -> str:
        for _, p, path in self.children:
            if p is proc:
                text = path.read_text(errors="replace").splitlines()[-lines:]
                return "\n".join(f"    | {line}" for line in text)
        return ""

    def lines_of(self, name: str, *needles: str) -> list[str]:
        """The lines of a child's output that contain one of `needles` (case-insensitive)."""
        for child, _, path in self.children:
            if child == name and path.exists():
                text = path.read_text(errors="replace").splitlines()
                return [line for line in text if any(n.lower() in line.lower() for n in needles)]
        return []

    def show_tails(self) -> None:
        """The last lines of every child's output (RQ's registry chatter left out): for a failed run."""
        for name, _, path in self.children:
            if path.exists():
                text = [line for line in path.read_text(errors="replace").splitlines() if "cleaning" not in line]
                self.log(f"last lines of {name}:\n" + "\n".join(f"    | {line}" for line in text[-12:]))

    def stop_all(self) -> None:
        """SIGTERM every child's process group still alive, SIGKILL what is left after 5 s; never raises."""
        alive = [(n, p) for n, p, _ in self.children if p.poll() is None]
        for _, p in alive:
            _signal_group(p, signal.SIGTERM)
        end = time.monotonic() + 5
        for name, p in alive:
            try:
                p.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(p, signal.SIGKILL)
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    print(f"warning: {name} (pid {p.pid}) did not die", flush=True)
        for _, p, _ in self.children:  # the SIGKILLed worker's group too (a stray child of it, if any)
            _signal_group(p, signal.SIGKILL)

    def save(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "log.txt").write_text("\n".join(self.lines) + "\n")
        for name, _, path in self.children:
            if path.exists():
                shutil.copyfile(path, out / f"{name}.log")


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def find_redis(given: str | None) -> str:
    for candidate in (given, shutil.which("redis-server"), str(ROOT / ".gpu/redis/redis-server")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)  # not resolved: redis-server is often a link that acts on its name
    raise Failed("no redis-server: pass --redis-server PATH (none on the PATH, none at .gpu/redis/redis-server)")


def start_redis(run: Run, binary: str) -> str:
    import redis

    port = free_port()
    env = dict(os.environ)
    libs = Path(binary).resolve().parent
    if any(libs.glob("*.so*")):  # a carried binary brings its libraries beside it
        env["LD_LIBRARY_PATH"] = ":".join(filter(None, [str(libs), env.get("LD_LIBRARY_PATH")]))
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    argv += ["--maxmemory-policy", "noeviction", "--dir", str(run.workdir)]
    proc = run.start("redis", argv, env)
    client = redis.Redis(port=port, socket_connect_timeout=0.5, socket_timeout=2)
    end = time.monotonic() + run.left(15)
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise Failed(f"redis-server exited with status {proc.returncode}\n{run.tail(proc)}")
        try:
            if client.ping():
                version = client.info("server").get("redis_version")
                run.log(f"redis {version} answers on port {port}")
                return f"redis://127.0.0.1:{port}/0"
        except redis.RedisError:
            time.sleep(0.1)
    raise Failed(f"redis-server did not answer within 15 s\n{run.tail(proc)}")


def service_env(redis_url: str, device: str, compile_mode: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "REDIS_URL": redis_url,
            "HEADDIV_WARM_UP": "0",
            "HEADDIV_WARM_START": "0",
            "HEADDIV_COMPILE": compile_mode,
            "HEADDIV_DEVICE": device,
            "HEADDIV_MAINTENANCE_INTERVAL_S": "2",
            "HEADDIV_HEARTBEAT_INTERVAL_S": "1",
            "HEADDIV_HEARTBEAT_TTL_S": "4",
            "HEADDIV_JOB_RETRIES": "1",
            # budgets high enough for a fast GPU's surfaces (the surfaces are sized by time, not by these)
            "HEADDIV_MAX_WORK": "1e12",
            "HEADDIV_MAX_JOB_WORK": "1e15",
            "HEADDIV_MAX_CLIENT_WORK": "1e16",
            "HEADDIV_MAX_QUEUED_WORK": "1e16",
            "PYTHONUNBUFFERED": "1",
        }
    )
    if device == "cuda":
        env.setdefault("CUDA_VISIBLE_DEVICES", "0")
    return env


def start_server(run: Run, env: dict[str, str]) -> httpx.Client:
    port = free_port()
    argv = [sys.executable, "-m", "headdiv.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = run.start("server", argv, env)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=httpx.Timeout(30, connect=2))
    end = time.monotonic() + run.left(60)
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise Failed(f"headdiv serve exited with status {proc.returncode}\n{run.tail(proc)}")
        try:
            health = client.get("/api/v1/health").json()
            run.log(f"server answers on port {port}: queue {health['queue']}, cache {health['cache']}")
            if health["queue"] != "rq":
                raise Failed(f"the server is not in scaled mode: {health}")
            return client
        except httpx.TransportError:
            time.sleep(0.2)
    raise Failed(f"headdiv serve did not answer within 60 s\n{run.tail(proc)}")


def start_worker(
    run: Run, client: httpx.Client, env: dict[str, str], name: str
) -> tuple[subprocess.Popen[bytes], dict]:
    """A `headdiv worker`, once health lists it (with its device report): its process and that report."""
    # its warm-up measures its engine speed (nothing to compile with HEADDIV_COMPILE=off) unless it is given
    env = {"HEADDIV_WARM_UP": "1", **{k: v for k, v in env.items() if k != "HEADDIV_WARM_UP"}}
    proc = run.start(name, [sys.executable, "-m", "headdiv.cli", "worker"], env)
    suffix = f".{proc.pid}"
    end = time.monotonic() + run.left(90)
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise Failed(f"{name} exited with status {proc.returncode}\n{run.tail(proc)}")
        details = client.get("/api/v1/health").json().get("worker_details", [])
        mine = [w for w in details if w["name"].endswith(suffix)]
        if mine and mine[0].get("reported_at"):
            for line in run.tail(proc, 40).splitlines():
                if "headdiv worker:" in line:
                    run.log(f"{name} says: {line.strip(' |')}")
            run.log(f"{name} registered as {mine[0]['name']}")
            return proc, mine[0]
        time.sleep(0.2)
    raise Failed(f"{name} did not register within 90 s\n{run.tail(proc)}")
