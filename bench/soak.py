"""Embedded memory under varied traffic: the server's resident memory, sampled while clients keep asking.

Starts `headdiv serve` (embedded) with a small result cache (`--cache-mib`, 16 by default), then for
`--minutes` keeps `--clients` threads busy with new simulations (random seeds, H up to 64: results of very
different sizes), small surfaces, repeated requests (cache hits), job polls and class polls, and samples the
server's RSS (/proc) every `--every` seconds. Prints the samples and the growth after the first minute
(warm-up: torch, compiled kernels, Dash's bundles), which should stay flat: results live only in the bounded
cache, and records keep outcomes.

Run: `python bench/soak.py` (ten minutes) or `python bench/soak.py --minutes 2`.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def traffic(url: str, stop: threading.Event, counts: dict[str, int], seed: int) -> None:
    rng = random.Random(seed)
    api = f"{url}/api/v1"
    with httpx.Client(timeout=60) as c:
        while not stop.is_set():
            roll = rng.random()
            try:
                if roll < 0.45:  # a new simulation: its result is new and sized by H
                    body = {"H": rng.choice([1, 4, 16, 64]), "replicates": 8, "queries": 8, "n": 64}
                    c.post(f"{api}/simulations", params={"wait": 30}, json={**body, "seed": rng.randrange(1 << 30)})
                    counts["new"] += 1
                elif roll < 0.7:  # a repeated one: a cache hit (or a recomputation once evicted)
                    c.post(f"{api}/simulations", params={"wait": 30}, json={"seed": rng.randrange(20), "n": 64})
                    counts["repeat"] += 1
                elif roll < 0.8:  # a small surface
                    base = {"replicates": 8, "queries": 8, "n": 64, "seed": rng.randrange(1 << 30)}
                    surface = {
                        "base": base,
                        "x": {"param": "theta", "values": [0, 45, 90]},
                        "y": {"param": "H", "values": [2, 4]},
                    }
                    c.post(f"{api}/surfaces", params={"wait": 30}, json=surface)
                    counts["surface"] += 1
                elif roll < 0.9:  # a class poll, a token and an answer
                    poll = c.post(
                        f"{api}/polls", json={"topic": "why-many-heads/3", "choices": ["falls", "stays", "rises"]}
                    )
                    if poll.status_code == 201:
                        pid = poll.json()["id"]
                        token = c.post(f"{api}/polls/{pid}/voters", json={}).json().get("voter")
                        c.post(f"{api}/polls/{pid}/answers", json={"choice": "stays", "voter": token})
                    counts["poll"] += 1
                else:
                    c.get(f"{api}/health")
                    counts["health"] += 1
            except httpx.HTTPError:
                counts["errors"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--every", type=float, default=15.0)
    parser.add_argument("--cache-mib", type=int, default=16)
    args = parser.parse_args()
    port = free_port()
    env = {
        **os.environ,
        "HEADDIV_CACHE_MAX_BYTES": str(args.cache_mib << 20),
        "HEADDIV_WARM_START": "0",
        "HEADDIV_PORT": str(port),
        "HEADDIV_MAX_CLIENT_FAST_JOBS": "1000",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "headdiv.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        stop = threading.Event()
        counts = {k: 0 for k in ("new", "repeat", "surface", "poll", "health", "errors")}
        threads = [
            threading.Thread(target=traffic, args=(url, stop, counts, i), daemon=True) for i in range(args.clients)
        ]
        for t in threads:
            t.start()
        started = time.monotonic()
        samples: list[tuple[float, float]] = []
        print(f"cache bound {args.cache_mib} MiB, {args.clients} clients, {args.minutes:g} minutes")
        while (elapsed := time.monotonic() - started) < args.minutes * 60:
            samples.append((elapsed, rss_mib(server.pid)))
            print(f"{elapsed / 60:5.1f} min  RSS {samples[-1][1]:7.1f} MiB  requests {dict(counts)}", flush=True)
            time.sleep(args.every)
        stop.set()
        for t in threads:
            t.join(timeout=60)
        samples.append((time.monotonic() - started, rss_mib(server.pid)))
        warm = [rss for at, rss in samples if at >= 60] or [samples[-1][1]]
        print(
            f"after the first minute: RSS {min(warm):.1f} to {max(warm):.1f} MiB (growth {max(warm) - warm[0]:+.1f} MiB); "
            f"requests {dict(counts)}"
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
