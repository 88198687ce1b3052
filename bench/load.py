"""Load test of a running headdiv server: mixed cache-hit / new-job / poll traffic from N clients.

    python bench/load.py http://127.0.0.1:8050 [--clients 50] [--duration 20] [--think 0.1] [--procs 2]

Each client loops for `--duration` seconds, sleeping `--think` seconds between requests (a person
dragging a slider, not a flood), and picks:
- cache-hit (the rest, 78% by default): POST /api/v1/simulations of one of a few scenarios warmed up before the run;
  must answer 200 with `cached: true`;
- new-job (`--new-share`, 2% by default): POST /api/v1/simulations of a small scenario never asked
  before (a fresh seed); must answer 200 or 202. Even a tiny simulation costs ~50 ms of CPU on this
  2-core machine, so new work is kept to what the machine can compute (~5 jobs/s); more only
  measures the engine's queue, not the API;
- poll (20%): GET /api/v1/jobs/{id} of a job this client submitted; must answer 200 or 202.
It prints requests/s, p50/p99 latency per kind, and errors (any other status, or a failed request).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import httpx

HOT = [{"H": h, "theta": t, "replicates": 32, "queries": 32, "n": 128} for h in (2, 4, 8) for t in (15.0, 45.0)]
MIX = [("cache-hit", 0.78), ("new-job", 0.02), ("poll", 0.2)]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k, _ in MIX})
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k, _ in MIX})
    examples: list[str] = field(default_factory=list)

    def error(self, kind: str, what: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {what}")


def pick(rng: random.Random) -> str:
    x = rng.random()
    for kind, share in MIX:
        if x < share:
            return kind
        x -= share
    return MIX[-1][0]


async def client_loop(
    c: httpx.AsyncClient, idx: int, stop_at: float, think: float, stats: Stats, warm_ids: list[str]
) -> None:
    rng = random.Random(idx)
    mine: list[str] = list(warm_ids)  # polls start on the warmed jobs; new jobs join as they are made
    seq = 0
    while time.monotonic() < stop_at:
        kind = pick(rng)
        t0 = time.perf_counter()
        try:
            if kind == "cache-hit":
                r = await c.post("/api/v1/simulations", json=rng.choice(HOT))
                ok = r.status_code == 200 and b'"cached":true' in r.content
            elif kind == "new-job":
                seq += 1
                body = {"replicates": 8, "queries": 8, "n": 64, "seed": (idx * 1_000_003 + seq) % 2**32}
                r = await c.post("/api/v1/simulations", json=body)
                ok = r.status_code in (200, 202)
                if ok:
                    mine.append(r.json()["job_id"])
            else:
                r = await c.get(f"/api/v1/jobs/{rng.choice(mine[-5:])}")
                ok = r.status_code in (200, 202)
            elapsed = time.perf_counter() - t0
            if ok:
                stats.latencies[kind].append(elapsed)
            else:
                stats.error(kind, f"HTTP {r.status_code} {r.text[:120]}")
        except httpx.HTTPError as exc:
            stats.error(kind, f"{type(exc).__name__}: {exc}")
        await asyncio.sleep(think * (0.5 + rng.random()))


async def warm(url: str, unique: int) -> tuple[dict[str, object], list[str]]:
    """Health, then the hot scenarios computed once (waiting for them): these are the cache hits."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as c:
        health = (await c.get("/api/v1/health")).json()
        warm_ids: list[str] = []
        for scenario in HOT:
            r = await c.post("/api/v1/simulations", json={**scenario, "seed": unique}, params={"wait": 60})
            if r.status_code != 200:
                raise RuntimeError(f"warm-up failed: {r.status_code} {r.text[:200]}")
            warm_ids.append(r.json()["job_id"])
    return health, warm_ids


async def drive(url: str, first: int, clients: int, duration: float, think: float, warm_ids: list[str]) -> Stats:
    stats = Stats()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as c:
        stop_at = time.monotonic() + duration
        await asyncio.gather(*(client_loop(c, first + i, stop_at, think, stats, warm_ids) for i in range(clients)))
    return stats


def drive_process(
    url: str, first: int, clients: int, duration: float, think: float, warm_ids: list[str], mix: list[tuple[str, float]]
) -> Stats:
    """One load-generating process (the generator costs more CPU than the server: spread it)."""
    MIX[:] = mix
    return asyncio.run(drive(url, first, clients, duration, think, warm_ids))


def main(url: str, clients: int, duration: float, think: float, unique: int, procs: int) -> int:
    for scenario in HOT:
        scenario["seed"] = unique
    try:
        health, warm_ids = asyncio.run(warm(url, unique))
    except (RuntimeError, httpx.HTTPError) as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"server {url}: {health}")
    shares = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    firsts = [unique * 1000 + sum(shares[:i]) for i in range(procs)]
    t0 = time.monotonic()
    with ProcessPoolExecutor(max_workers=procs) as pool:
        futures = [
            pool.submit(drive_process, url, first, n, duration, think, warm_ids, list(MIX))
            for first, n in zip(firsts, shares, strict=True)
            if n
        ]
        parts = [f.result() for f in futures]
    wall = time.monotonic() - t0
    stats = Stats()
    for part in parts:
        for kind, _ in MIX:
            stats.latencies[kind] += part.latencies[kind]
            stats.errors[kind] += part.errors[kind]
        stats.examples += part.examples[: max(0, 5 - len(stats.examples))]
    total = sum(len(v) for v in stats.latencies.values()) + sum(stats.errors.values())
    mix = ", ".join(f"{k} {v:.0%}" for k, v in MIX)
    print(f"{clients} clients in {procs} processes, {wall:.1f} s, think {think * 1000:.0f} ms, mix {mix}")
    print(f"{total} requests, {total / wall:.0f} req/s")
    print(f"{'kind':<10} {'count':>7} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind, _ in MIX:
        lat = sorted(stats.latencies[kind])
        if lat:
            p50 = statistics.median(lat) * 1000
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] * 1000
        else:
            p50 = p99 = float("nan")
        print(f"{kind:<10} {len(lat):>7} {len(lat) / wall:>7.0f} {p50:>8.1f} {p99:>8.1f} {stats.errors[kind]:>7}")
    for line in stats.examples:
        print("  error:", line)
    return 1 if sum(stats.errors.values()) else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="base URL of a running server, e.g. http://127.0.0.1:8050")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of traffic")
    parser.add_argument("--think", type=float, default=0.1, help="mean pause between a client's requests (s)")
    parser.add_argument("--seed", type=int, default=None, help="makes the run's scenarios unique (default: time)")
    parser.add_argument("--procs", type=int, default=2, help="load-generating processes")
    parser.add_argument("--new-share", type=float, default=0.02, help="share of requests that are new jobs")
    args = parser.parse_args()
    MIX[:] = [("cache-hit", 0.8 - args.new_share), ("new-job", args.new_share), ("poll", 0.2)]
    unique = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    sys.exit(main(args.url.rstrip("/"), args.clients, args.duration, args.think, unique, max(1, args.procs)))
