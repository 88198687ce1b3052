"""What watching a job costs the server: the job core's bookkeeping per poll, and long-polls at scale.

Measured in one run:
  bookkeeping  one 8-cell surface submitted with `?wait=60` to the embedded API (in this process): cache
               keys read, sha256 job ids computed and cache writes, per cell and per answer the client got; target: reads <= 2 per cell + 1 per poll, one hash per cell
  long-polls   a running surface watched by 1,000 concurrent `GET /api/v1/jobs/{id}?wait=60` (aiohttp),
               while `/api/v1/health` is asked every 50 ms: its p50 and p99, embedded (`headdiv serve`) and
               scaled (`headdiv serve` + one `headdiv worker` on Redis, skipped when none answers);
               target: p99 <= 50 ms

Run: `python bench/bench_job_core.py` (about two minutes on 2 cores); `--watchers N`, `--modes embedded`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
import httpx  # noqa: E402

from bench.load import redis_answers, started  # noqa: E402

CELLS = 8
HEALTH_TARGET_MS = 50.0


def surface(cells: int, seed: int, **base: Any) -> dict[str, Any]:
    return {
        "base": {"replicates": 48, "queries": 32, "n": 256, "H": 4, "seed": seed, **base},
        "x": {"param": "theta", "values": [float(3 * i) for i in range(cells)]},
        "y": {"param": "noise", "values": [0.5]},
    }


# ---------------------------------------------------------------------------------------------------------------
# Bookkeeping: counted inside the embedded server


def bookkeeping(seed: int) -> dict[str, float]:
    from fastapi.testclient import TestClient

    import headdiv.jobs.ids as ids
    from headdiv.jobs.cache.memory_cache import MemoryCache
    from headdiv.server.main import create_app
    from headdiv.server.server_settings import ServerSettings

    counts: Counter[str] = Counter()
    real_get, real_set, real_sha = MemoryCache.get, MemoryCache.set, hashlib.sha256

    def get(self: MemoryCache, key: str) -> bytes | None:
        counts["reads"] += 1
        return real_get(self, key)

    def put(self: MemoryCache, key: str, value: bytes) -> None:
        counts["writes"] += 1
        real_set(self, key, value)

    class CountingHashlib:
        @staticmethod
        def sha256(data: bytes = b"") -> Any:
            counts["hashes"] += 1
            return real_sha(data)

    settings = ServerSettings(redis_url=None, warm_up=False, warm_start=False)
    with TestClient(create_app(settings, mount_dashboard=False)) as client:
        client.post("/api/v1/simulations?wait=60", json={"H": 2, "n": 16, "replicates": 2, "queries": 2})  # warm
        MemoryCache.get, MemoryCache.set = get, put  # type: ignore[method-assign]
        ids.hashlib = CountingHashlib  # type: ignore[assignment]
        try:
            polls = 0
            r = client.post("/api/v1/surfaces?wait=60", json=surface(CELLS, seed))
            polls += 1
            job = r.json()["job_id"]
            while r.json()["status"] not in ("finished", "failed", "canceled"):
                r = client.get(f"/api/v1/jobs/{job}?wait=60")
                polls += 1
            assert r.json()["status"] == "finished", r.text
        finally:
            MemoryCache.get, MemoryCache.set = real_get, real_set  # type: ignore[method-assign]
            ids.hashlib = hashlib  # type: ignore[assignment]
    return {"cells": CELLS, "answers": polls, **counts}


# ---------------------------------------------------------------------------------------------------------------
# Long-polls at scale: against a real server


async def watch_and_measure(url: str, watchers: int, seconds: float, seed: int) -> dict[str, float]:
    body = surface(24, seed, replicates=256, n=1024)  # a minute or more of work: it runs throughout
    async with httpx.AsyncClient(base_url=url, timeout=30) as api:
        job = (await api.post("/api/v1/surfaces", json=body)).json()["job_id"]
        deadline = time.monotonic() + 60
        while (await api.get(f"/api/v1/jobs/{job}")).json()["status"] != "running":
            assert time.monotonic() < deadline, "the surface never started"
            await asyncio.sleep(0.1)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:

            async def long_poll() -> None:
                async with session.get(f"{url}/api/v1/jobs/{job}?wait=60") as resp:
                    await resp.read()

            polls = [asyncio.create_task(long_poll()) for _ in range(watchers)]
            await asyncio.sleep(2.0)  # every long-poll is in and waiting
            latencies: list[float] = []
            stop = time.monotonic() + seconds
            while time.monotonic() < stop:
                started_at = time.perf_counter()
                async with session.get(f"{url}/api/v1/health") as resp:
                    await resp.read()
                latencies.append((time.perf_counter() - started_at) * 1000)
                await asyncio.sleep(0.05)
            await api.delete(f"/api/v1/jobs/{job}")
            await asyncio.wait(polls, timeout=90)
            for task in polls:
                task.cancel()
    latencies.sort()
    return {
        "p50": statistics.median(latencies),
        "p95": latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))],
        "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
        "samples": len(latencies),
    }


def long_polls(mode: str, redis_url: str, watchers: int, seconds: float, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as logs, started(mode, redis_url, seed, Path(logs), settle_s=30) as url:
        return asyncio.run(watch_and_measure(url, watchers, seconds, seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--modes", nargs="+", default=["embedded", "redis"], choices=["embedded", "redis"])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args(argv)
    seed = secrets.randbelow(1_000_000)

    counted = bookkeeping(seed)
    cells, answers = counted["cells"], counted["answers"]
    reads_target = 2 * cells + answers
    print(f"bookkeeping: one {cells:.0f}-cell surface submitted with ?wait=60, {answers:.0f} answer(s)")
    print(f"  {'':<22} {'total':>7} {'per cell':>9}  target")
    print(
        f"  {'cache keys read':<22} {counted['reads']:>7.0f} {counted['reads'] / cells:>9.1f}  "
        f"<= {reads_target:.0f} ({'met' if counted['reads'] <= reads_target else 'MISSED'})"
    )
    print(
        f"  {'sha256 job ids':<22} {counted['hashes']:>7.0f} {counted['hashes'] / cells:>9.1f}  "
        f"<= {cells + 1:.0f} ({'met' if counted['hashes'] <= cells + 1 else 'MISSED'})"
    )
    print(f"  {'cache writes':<22} {counted['writes']:>7.0f} {counted['writes'] / cells:>9.1f}")

    print(f"\nlong-polls: {args.watchers} x GET /jobs/{{id}}?wait=60 on a running surface; /health every 50 ms")
    print(f"  {'set-up':<10} {'health p50':>11} {'health p95':>11} {'health p99':>11}  target")
    for mode in args.modes:
        if mode == "redis" and (why := redis_answers(args.redis_url)) is not None:
            print(f"  {mode:<10} skipped: no Redis at {args.redis_url} ({why})")
            continue
        m = long_polls(mode, args.redis_url, args.watchers, args.seconds, seed + (mode == "redis"))
        verdict = "met" if m["p99"] <= HEALTH_TARGET_MS else "MISSED"
        print(
            f"  {mode:<10} {m['p50']:>8.1f} ms {m['p95']:>8.1f} ms {m['p99']:>8.1f} ms  p99 <= {HEALTH_TARGET_MS:.0f} ms "
            f"({verdict})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
