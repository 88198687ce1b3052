"""The start-up tax: what `headdiv serve` costs the machine in its first minute, and what a person meets then.

Measured side by side in one run, each a fresh `headdiv serve` (embedded, defaults) on a free port:
  off      HEADDIV_CACHE_DIR=off: nothing kept, every start computes everything again (as before)
  first    an empty folder of kept work: this start computes and keeps (the first start of a version); once
           counted, it is left to finish its background work (its first views, the compiled kernels built
           for the next start at the lowest priority) before it is stopped, as a server left running does
  again    the same folder: the shared answers' encodings, the engine's speed and compiled kernels and the
           warm start's results are read back (every later start of the version)
For each: seconds until /api/v1/health answers, the server's CPU seconds (all its threads and children) in
the first `--seconds` after that, and, asked through the API 2 s after health, the wall time of the
dashboard's default simulation (what a person who opens the page as the URL is printed waits for its
numbers) and then of the same at θ one step on (their first key press: a new computation).

Run: `python bench/bench_startup.py` (about five minutes on 2 cores, more while the first start builds its kernels).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import embedded_server  # noqa: E402
from headdiv.dashboard import warm_requests  # noqa: E402

DEFAULT = next(body for path, body in warm_requests() if path == "/simulations")
"""The dashboard's default simulation (what its first view draws)."""
PRESSED = {**DEFAULT, "theta": float(DEFAULT["theta"]) + 1}


def _cpu(pid: int) -> float:
    """CPU seconds of a process and its children (user + system, reaped children included)."""
    pids = [pid, *map(int, subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split())]
    total = 0.0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def _simulated(url: str, body: dict) -> float:
    t = time.perf_counter()
    answer = httpx.post(url + "/api/v1/simulations", params={"wait": 60}, json=body, timeout=90)
    assert answer.status_code == 200 and answer.json()["status"] == "finished", answer.text
    return time.perf_counter() - t


SETTLE_LIMIT_S = 900.0


def _settle(pid: int) -> None:
    """Until the server and its children have used under 0.05 s of CPU a second for 6 s running with no
    kernel build among its children (built last, at the lowest priority: on a busy machine its process may
    be starved, not done; the quiet moment it waits for is 1.5 s); at most `SETTLE_LIMIT_S`."""
    deadline = time.monotonic() + SETTLE_LIMIT_S
    quiet_since: float | None = None
    before = _cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = _cpu(pid)
        building = subprocess.run(["pgrep", "-P", str(pid), "-f", "kernel_build"], capture_output=True).stdout
        if now - before < 0.05 and not building.strip():
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= 6.0:
                return
        else:
            quiet_since = None
        before = now


def one_start(kept: str, seconds: float, settle: bool = False) -> tuple[float, float, float, float]:
    """(seconds to health, CPU seconds in the `seconds` after it, the default simulation's and the key press's
    wall seconds); with `settle`, the server is then left to finish its background work before it stops."""
    with embedded_server({**os.environ, "HEADDIV_CACHE_DIR": kept}) as (url, proc, to_health):
        healthy = time.monotonic()
        base = _cpu(proc.pid)
        time.sleep(max(0.0, healthy + 2.0 - time.monotonic()))
        first, pressed = _simulated(url, DEFAULT), _simulated(url, PRESSED)
        time.sleep(max(0.0, healthy + seconds - time.monotonic()))
        cpu = _cpu(proc.pid) - base
        if settle:
            _settle(proc.pid)
        return to_health, cpu, first, pressed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long after health the CPU is counted")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="headdiv-bench-kept-")
    starts = (("off", "off", False), ("first", folder, True), ("again", folder, False))
    rows = [(name, one_start(kept, args.seconds, settle)) for name, kept, settle in starts]
    off_cpu = rows[0][1][1]
    print(
        f"| start | to health | server CPU in the {args.seconds:g} s after | / off "
        "| default simulation 2 s after health | then θ + 1 |"
    )
    print("|---|---|---|---|---|---|")
    for name, (health, cpu, first, pressed) in rows:
        print(
            f"| {name} | {health:.1f} s | {cpu:.1f} s | {cpu / off_cpu:.2f} | {first * 1000:.0f} ms "
            f"| {pressed * 1000:.0f} ms |"
        )


if __name__ == "__main__":
    main()
