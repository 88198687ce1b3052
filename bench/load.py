"""Load test of the headdiv API: mixed cache-hit / new-job / poll traffic from 50 clients, both set-ups.

    python bench/load.py                      # starts and measures both set-ups, one after the other
    python bench/load.py --modes embedded     # only `headdiv serve` on its own
    python bench/load.py --url http://host:8050   # a server that is already running

With no `--url` it starts each set-up itself on free ports, and stops it afterwards:
- embedded: `headdiv serve` with no REDIS_URL (in-memory cache, in-process runner);
- redis: `headdiv serve` plus one `headdiv worker`, on the Redis at `--redis-url` (default REDIS_URL, else
  redis://127.0.0.1:6379/0), with a queue of their own; skipped, saying so, when no Redis answers.
It waits for the machine to go quiet (the engine compiles in the background at start-up), so the run
measures serving, not start-up.

Each client loops for `--duration` seconds, sleeping `--think` seconds between requests (a person
dragging a slider, not a flood), and picks:
- cache-hit (the rest, 78% by default): POST /api/v1/simulations of one of a few scenarios warmed up
  before the run; must answer 200 with `cached: true`;
- new-job (`--new-share`, 2% by default): POST /api/v1/simulations of a small scenario never asked
  before (a fresh seed); must answer 200 or 202. Even a tiny simulation costs tens of ms of CPU on a
  2-core machine, so new work is kept to what the machine can compute; more only measures the queue;
- poll (20%): GET /api/v1/jobs/{id} of a job this client submitted; must answer 200 or 202.
It prints requests/s, p50/p99 latency per kind and errors (any other status, or a failed request),
then one line per set-up against the target: 0 errors and cache-hit p99 under 50 ms. Exit status 1
when a set-up missed it.

The load generator shares the machine with the server it measures, so its own cost matters: it prints
the CPU time it spent per request. The clients use aiohttp by default; `--client httpx` runs the same
traffic through httpx.AsyncClient, whose requests cost this 2-core machine about five times the CPU
(1.2 against 0.24 ms): at ~450 requests/s, half a core taken from the server under test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx

HOT = [{"H": h, "theta": t, "replicates": 32, "queries": 32, "n": 128} for h in (2, 4, 8) for t in (15.0, 45.0)]
KINDS = ("cache-hit", "new-job", "poll")
POLL_SHARE = 0.2
P99_TARGET_MS = 50.0
ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------------------------
# The clients


@dataclass(frozen=True)
class Traffic:
    """What every client does; handed to each load-generating process whole (no module state)."""

    client: str
    mix: tuple[tuple[str, float], ...]  # (kind, share), shares summing to 1
    hot: tuple[dict[str, Any], ...]  # the warmed scenarios: the cache hits
    warm_ids: tuple[str, ...]  # their job ids: the first polls
    duration: float
    think: float

    def describe(self) -> str:
        mix = ", ".join(f"{k} {v:.0%}" for k, v in self.mix)
        return f"{self.client} clients, {self.duration:.0f} s, think {self.think * 1000:.0f} ms, {mix}"

    def pick(self, rng: random.Random) -> str:
        x = rng.random()
        for kind, share in self.mix:
            if x < share:
                return kind
            x -= share
        return self.mix[-1][0]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KINDS})
    examples: list[str] = field(default_factory=list)
    client_cpu_s: float = 0.0  # CPU time the load generator itself spent

    def error(self, kind: str, what: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {what}")

    def merge(self, other: Stats) -> None:
        for kind in self.latencies:
            self.latencies[kind] += other.latencies[kind]
            self.errors[kind] += other.errors[kind]
        self.client_cpu_s += other.client_cpu_s
        self.examples += other.examples[: max(0, 5 - len(self.examples))]

    def percentile_ms(self, kind: str, q: float) -> float:
        lat = sorted(self.latencies[kind])
        if not lat:
            return float("nan")
        if q == 0.5:
            return statistics.median(lat) * 1000
        return lat[min(len(lat) - 1, int(q * len(lat)))] * 1000


Send = Callable[[str, str, dict[str, Any] | None], Awaitable[tuple[int, bytes]]]
"""One request: (method, path, JSON body) -> (status, body bytes); raises on a transport failure."""
TRANSPORT_ERRORS = (aiohttp.ClientError, httpx.HTTPError, TimeoutError)


async def client_loop(send: Send, idx: int, stop_at: float, traffic: Traffic, stats: Stats) -> None:
    rng = random.Random(idx)
    mine: list[str] = list(traffic.warm_ids)  # polls start on the warmed jobs; new jobs join as they are made
    seq = 0
    while time.monotonic() < stop_at:
        kind = traffic.pick(rng)
        body: dict[str, Any] | None
        if kind == "cache-hit":
            method, path, body = "POST", "/api/v1/simulations", rng.choice(traffic.hot)
        elif kind == "new-job":
            seq += 1
            body = {"replicates": 8, "queries": 8, "n": 64, "seed": (idx * 1_000_003 + seq) % 2**32}
            method, path = "POST", "/api/v1/simulations"
        else:
            method, path, body = "GET", f"/api/v1/jobs/{rng.choice(mine[-5:])}", None
        t0 = time.perf_counter()
        try:
            status, content = await send(method, path, body)
            elapsed = time.perf_counter() - t0
            if kind == "cache-hit":
                ok = status == 200 and b'"cached":true' in content
            else:
                ok = status in (200, 202)
            if ok:
                stats.latencies[kind].append(elapsed)
                if kind == "new-job":
                    mine.append(json.loads(content)["job_id"])
            else:
                stats.error(kind, f"HTTP {status} {content[:120]!r}")
        except TRANSPORT_ERRORS as exc:
            stats.error(kind, f"{type(exc).__name__}: {exc}")
        await asyncio.sleep(traffic.think * (0.5 + rng.random()))


def warm(url: str, hot: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """Health, then the hot scenarios computed once (waiting for them): these are the cache hits."""
    with httpx.Client(base_url=url, timeout=120) as c:
        health: dict[str, Any] = c.get("/api/v1/health").json()
        warm_ids: list[str] = []
        for scenario in hot:
            r = c.post("/api/v1/simulations", json=scenario, params={"wait": 60})
            if r.status_code != 200:
                raise RuntimeError(f"warm-up failed: {r.status_code} {r.text[:200]}")
            warm_ids.append(r.json()["job_id"])
    return health, warm_ids


async def drive(url: str, traffic: Traffic, first: int, clients: int) -> Stats:
    stats = Stats()
    stop_at = time.monotonic() + traffic.duration

    async def run_all(send: Send) -> None:
        await asyncio.gather(*(client_loop(send, first + i, stop_at, traffic, stats) for i in range(clients)))

    # Idle connections are dropped by us (2 s) before the server drops them (uvicorn: 5 s), so a request
    # never goes out on a connection the server is closing.
    if traffic.client == "httpx":
        limits = httpx.Limits(max_connections=clients, keepalive_expiry=2.0)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as hc:

            async def send_httpx(method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
                r = await hc.request(method, path, json=body)
                return r.status_code, r.content

            await run_all(send_httpx)
    else:
        connector = aiohttp.TCPConnector(limit=clients, keepalive_timeout=2.0)
        timeout = aiohttp.ClientTimeout(total=30)
        async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as ac:

            async def send_aiohttp(method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
                async with ac.request(method, path, json=body) as r:
                    return r.status, await r.read()

            await run_all(send_aiohttp)
    return stats


def drive_process(url: str, traffic: Traffic, first: int, clients: int) -> Stats:
    """One load-generating process; it counts its own CPU time, which the server under test goes without."""
    cpu0 = time.process_time()
    stats = asyncio.run(drive(url, traffic, first, clients))
    stats.client_cpu_s = time.process_time() - cpu0
    return stats


@dataclass
class Run:
    label: str
    wall: float
    stats: Stats

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.stats.latencies.values()) + sum(self.stats.errors.values())

    @property
    def errors(self) -> int:
        return sum(self.stats.errors.values())

    @property
    def client_cpu_ms(self) -> float:
        """The load generator's CPU time per request."""
        return 1000 * self.stats.client_cpu_s / max(1, self.requests)

    @property
    def met(self) -> bool:
        return self.errors == 0 and self.stats.percentile_ms("cache-hit", 0.99) < P99_TARGET_MS


def measure(label: str, url: str, args: argparse.Namespace, unique: int) -> Run:
    hot = [{**scenario, "seed": unique} for scenario in HOT]  # this run's own cache entries
    health, warm_ids = warm(url, hot)
    mix = (("cache-hit", 1 - POLL_SHARE - args.new_share), ("new-job", args.new_share), ("poll", POLL_SHARE))
    traffic = Traffic(args.client, mix, tuple(hot), tuple(warm_ids), args.duration, args.think)
    print(f"\n== {label}: {url} {health}", flush=True)
    procs = max(1, args.procs)
    shares = [args.clients // procs + (1 if i < args.clients % procs else 0) for i in range(procs)]
    firsts = [unique * 1000 + sum(shares[:i]) for i in range(procs)]
    t0 = time.monotonic()
    with ProcessPoolExecutor(max_workers=procs) as pool:
        futures = [
            pool.submit(drive_process, url, traffic, first, n) for first, n in zip(firsts, shares, strict=True) if n
        ]
        stats = Stats()
        for f in futures:
            stats.merge(f.result())
    run = Run(label, time.monotonic() - t0, stats)
    print(f"{args.clients} {traffic.describe()}, in {procs} process(es), {run.wall:.1f} s")
    print(f"{run.requests} requests, {run.requests / run.wall:.0f} req/s")
    print(f"load generator CPU: {run.client_cpu_ms:.2f} ms per request, {stats.client_cpu_s / run.wall:.0%} of a core")
    print(f"{'kind':<10} {'count':>7} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind in KINDS:
        n = len(stats.latencies[kind])
        p50, p99 = stats.percentile_ms(kind, 0.5), stats.percentile_ms(kind, 0.99)
        print(f"{kind:<10} {n:>7} {n / run.wall:>7.0f} {p50:>8.1f} {p99:>8.1f} {stats.errors[kind]:>7}")
    for line in stats.examples:
        print("  error:", line)
    return run


# ---------------------------------------------------------------------------------------------------------------
# Starting the set-ups


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def headdiv_command() -> list[str]:
    """The `headdiv` console script of this interpreter's environment (else the one on PATH)."""
    beside = Path(sys.executable).with_name("headdiv")
    found = str(beside) if beside.exists() else shutil.which("headdiv")
    if found is None:
        raise SystemExit("`headdiv` is not installed in this environment: run `make run` or `pip install -e .`")
    return [found]


@contextlib.contextmanager
def embedded_server(env: dict[str, str], limit_s: float = 120) -> Iterator[tuple[str, subprocess.Popen[bytes], float]]:
    """A fresh embedded `headdiv serve` on a free port with `env`: its URL, its process, and the seconds it took
    to answer /api/v1/health (polled every 50 ms: fine enough to time a start); stopped on exit."""
    port = free_port()
    env = {k: v for k, v in env.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    started = time.monotonic()
    proc = subprocess.Popen(
        [*headdiv_command(), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/api/v1/health", timeout=1).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() - started > limit_s:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        yield url, proc, time.monotonic() - started
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def redis_answers(url: str) -> str | None:
    """None when Redis answers at `url`, else why not."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        return str(exc)
    finally:
        client.close()
    return None


def busy_fraction(seconds: float) -> float | None:
    """Share of the machine's CPU time spent busy over `seconds` (Linux /proc/stat; None elsewhere)."""

    def sample() -> tuple[int, int]:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = values[3] + (values[4] if len(values) > 4 else 0)
        return sum(values), idle

    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return 1.0 - (idle1 - idle0) / max(1, total1 - total0)


def wait_quiet(limit_s: float) -> None:
    """Until the machine is under 15% busy for two seconds running (start-up compilation over), at most
    `limit_s`; without /proc/stat, a fixed pause instead."""
    deadline = time.monotonic() + limit_s
    quiet = 0
    while time.monotonic() < deadline and quiet < 2:
        busy = busy_fraction(1.0)
        if busy is None:
            time.sleep(min(20.0, limit_s))
            return
        quiet = quiet + 1 if busy < 0.15 else 0


class Processes:
    """Child processes with their output in one log file, stopped with SIGTERM (then SIGKILL)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []

    def start(self, args: list[str], env: dict[str, str]) -> None:
        with open(self.log, "ab") as out:
            proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        self.procs.append((" ".join(args), proc))

    def check(self) -> None:
        for command, p in self.procs:
            if p.poll() is not None:
                raise RuntimeError(f"{command} exited ({p.returncode}):\n{self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""

    def stop(self) -> None:
        for _, p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for _, p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)


def wait_healthy(url: str, procs: Processes, workers: int, limit_s: float = 120) -> None:
    """Until /api/v1/health says ok (with `workers` workers registered), or fail with the logs."""

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        procs.check()
        with contextlib.suppress(httpx.HTTPError, ValueError):
            body = httpx.get(f"{url}/api/v1/health", timeout=2).json()
            if body.get("status") == "ok" and body.get("workers", 0) >= workers:
                return
        time.sleep(0.5)
    raise RuntimeError(f"{url} did not become healthy in {limit_s:.0f} s:\n{procs.tail()}")


@contextlib.contextmanager
def started(mode: str, redis_url: str, unique: int, log_dir: Path, settle_s: float) -> Iterator[str]:
    """Start one set-up on a free port; yield its URL; stop it."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    env.update({"HEADDIV_HOST": "127.0.0.1", "HEADDIV_PORT": str(port), "PYTHONUNBUFFERED": "1"})
    if mode == "redis":
        # a queue of its own, and results that leave the shared Redis within the hour
        env.update(
            {"REDIS_URL": redis_url, "HEADDIV_QUEUE_NAME": f"headdiv-load-{unique}", "HEADDIV_CACHE_TTL_S": "3600"}
        )
    procs = Processes(log_dir / f"{mode}.log")
    try:
        if mode == "redis":
            procs.start([*headdiv_command(), "worker"], env)
        procs.start([*headdiv_command(), "serve"], env)
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, procs, workers=1 if mode == "redis" else 0)
        if settle_s > 0:
            wait_quiet(settle_s)
        yield url
        procs.check()
    finally:
        procs.stop()


# ---------------------------------------------------------------------------------------------------------------


def summary(runs: list[Run], skipped: list[str]) -> None:
    head = f"{'set-up':<10} {'req/s':>7} {'cache-hit p50':>14} {'cache-hit p99':>14} {'client CPU/req':>15}"
    print(f"\n{head} {'errors':>7}  target")
    for r in runs:
        p50, p99 = r.stats.percentile_ms("cache-hit", 0.5), r.stats.percentile_ms("cache-hit", 0.99)
        verdict = "met" if r.met else "MISSED"
        row = f"{r.label:<10} {r.requests / r.wall:>7.0f} {p50:>11.1f} ms {p99:>11.1f} ms {r.client_cpu_ms:>12.2f} ms"
        print(f"{row} {r.errors:>7}  {verdict}")
    for line in skipped:
        print(line)
    print(f"(target: 0 errors and cache-hit p99 < {P99_TARGET_MS:.0f} ms)")


def main(args: argparse.Namespace) -> int:
    unique = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    runs: list[Run] = []
    skipped: list[str] = []
    try:
        if args.url:
            runs.append(measure("server", args.url.rstrip("/"), args, unique))
        else:
            redis_url = args.redis_url or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
            with tempfile.TemporaryDirectory(prefix="headdiv-load-") as tmp:
                for mode in args.modes:
                    why = redis_answers(redis_url) if mode == "redis" else None
                    if why is not None:
                        skipped.append(f"{mode:<10} skipped: no Redis answers at {redis_url} ({why})")
                        continue
                    with started(mode, redis_url, unique, Path(tmp), args.settle) as url:
                        runs.append(measure(mode, url, args, unique))
    except (RuntimeError, httpx.HTTPError) as exc:
        print(f"load test failed: {exc}", file=sys.stderr)
        return 2
    summary(runs, skipped)
    return 0 if runs and all(r.met for r in runs) else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="measure a running server instead of starting the set-ups")
    parser.add_argument(
        "--modes",
        type=lambda s: [m for m in s.split(",") if m],
        default=["embedded", "redis"],
        help="set-ups to start, comma-separated: embedded, redis (default: both)",
    )
    parser.add_argument("--redis-url", help="Redis for the redis set-up (default: REDIS_URL, else local :6379/0)")
    parser.add_argument(
        "--settle", type=float, default=90.0, help="longest wait for the machine to go quiet after start-up (s)"
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of traffic")
    parser.add_argument("--think", type=float, default=0.1, help="mean pause between a client's requests (s)")
    parser.add_argument("--seed", type=int, default=None, help="makes the run's scenarios unique (default: random)")
    parser.add_argument("--procs", type=int, default=1, help="load-generating processes")
    parser.add_argument(
        "--client", choices=["aiohttp", "httpx"], default="aiohttp", help="HTTP client library of the load generator"
    )
    parser.add_argument("--new-share", type=float, default=0.02, help="share of requests that are new jobs")
    args = parser.parse_args(argv)
    unknown = set(args.modes) - {"embedded", "redis"}
    if unknown or not args.modes:
        parser.error(f"--modes takes embedded and/or redis, got {','.join(args.modes) or 'nothing'}")
    if not 0 <= args.new_share <= 1 - POLL_SHARE:
        parser.error(f"--new-share must lie in 0..{1 - POLL_SHARE:g}")
    return args


if __name__ == "__main__":
    sys.exit(main(parse_args()))
