"""Prove the scaled set-up end to end on one machine (a GPU one, or this CPU): Redis, `headdiv serve`, `headdiv
worker`, the HTTP API, worker health, and the recovery of a job whose worker is SIGKILLed mid-job.

What it does, each step timed and logged, within a hard bound on the whole run (`--budget`, 150 s):

1. starts a private `redis-server` (its own port, no persistence), `headdiv serve` (its own port, no warm-up,
   no warm start) and one `headdiv worker` on `--device` (on CUDA pinned with CUDA_VISIBLE_DEVICES=0); the
   worker measures its engine speed at start-up (HEADDIV_WARM_UP=1 with HEADDIV_COMPILE=off: no compiling),
   which sizes the surfaces below for the device;
2. through the API (httpx): a simulation (its result must name the device), a surface of 24 cells sized to
   take several seconds (`--surface-s`; run again bigger, twice at most, if it was much quicker: its speed
   sizes step 4), and a diversity sweep; each must finish with every cell;
3. GET /api/v1/health must list the worker with its device ('cpu', 'cuda:0 (<GPU name>)') and memory (the
   GPU's total and free bytes on CUDA, the process's resident memory everywhere);
4. a second, larger surface (`--kill-surface-s`; one that ends before it can be caught mid-job is submitted
   again four times bigger, twice at most): once it shows progress (some cells done, not all) the worker is
   SIGKILLed and a new one started; the job must still finish with all its cells. Recovery is the project's own: the worker
   refreshes the running job's registry entry every HEADDIV_HEARTBEAT_INTERVAL_S; when it stops, the entry
   expires after HEADDIV_HEARTBEAT_TTL_S and the next maintenance pass (every HEADDIV_MAINTENANCE_INTERVAL_S,
   the API's or a worker's) retries the lost chunk (HEADDIV_JOB_RETRIES=1); the cells it had finished are
   cached. This script sets those to 1 s, 4 s and 2 s (as the tests do), so recovery takes seconds. The
   work budgets (HEADDIV_MAX_WORK, _MAX_JOB_WORK, _MAX_CLIENT_WORK, _MAX_QUEUED_WORK) are raised so that a fast
   GPU's surfaces are not refused.

It prints `SCALED E2E: PASS`, or `FAIL: <reason>` and exits 1. Every child runs in its own session and is
killed at the end, on failure, on Ctrl-C or SIGTERM too. With OUT set, the log and each child's output are
written under $OUT/scaled/.

    python3 bench/gpu_scaled.py                      # cuda when torch sees a GPU, else cpu
    .venv/bin/python bench/gpu_scaled.py --device cpu
    PYTHONPATH=/tmp/site:$PWD OUT=/tmp/out python3 bench/gpu_scaled.py --device cuda --redis-server .gpu/redis/redis-server

Needs only what `headdiv serve` and `headdiv worker` need (the `headdiv` package importable, torch, Redis's
server binary); the console script is not used: children run `python -m headdiv.cli`.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.scaled_stack import Failed, Run, find_redis, service_env, start_redis, start_server, start_worker  # noqa: E402

SHAPE: dict[str, Any] = {"H": 8, "d_k": 4, "queries": 64, "n": 4096}
"""The surfaces' cell shape (that of the worker's speed calibration); replicates size them."""
CELL_WORK = SHAPE["H"] * SHAPE["queries"] * SHAPE["n"] * (SHAPE["d_k"] + 3)
"""Work units of one replicate of one cell (the engine's work measure: R * H * queries * n * (d_k + 3))."""
MAX_REPLICATES = 5000
FALLBACK_SPEED = {"cpu": 2e8, "cuda": 5e10}
"""Work units per second assumed when the worker has not published its measured speed in time."""


def wait_speed(run: Run, client: httpx.Client, device: str) -> float:
    """The worker's measured engine speed (published with its heartbeat once its warm-up measured it)."""
    end = time.monotonic() + run.left(45)
    while time.monotonic() < end:
        speed = client.get("/api/v1/health").json().get("speed")
        if speed:
            run.log(f"worker's measured engine speed: {speed:.3g} work units/s")
            return float(speed)
        time.sleep(0.3)
    run.log(f"WARNING: no measured speed within 45 s; assuming {FALLBACK_SPEED[device]:.3g} work units/s")
    return FALLBACK_SPEED[device]


def surface(cells_x: int, replicates: int, seed: int) -> dict[str, Any]:
    return {
        "base": {**SHAPE, "replicates": replicates, "seed": seed},
        "x": {"param": "theta", "values": [round(90 * i / max(1, cells_x - 1), 3) for i in range(cells_x)]},
        "y": {"param": "noise", "values": [0.25, 0.5, 1.0, 2.0]},
    }


def sized(speed: float, seconds: float, cells_x: int) -> tuple[int, int]:
    """(columns, replicates) of a surface of 4 rows that takes about `seconds` at `speed`: more columns (up to
    25) before more replicates than MAX_REPLICATES would be needed."""
    per_cell = speed * seconds / (4 * cells_x)
    replicates = round(per_cell / CELL_WORK)
    while replicates > MAX_REPLICATES and cells_x < 25:
        cells_x = min(25, cells_x + 5)
        replicates = round(speed * seconds / (4 * cells_x) / CELL_WORK)
    return cells_x, max(2, min(MAX_REPLICATES, replicates))


def submit(run: Run, client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(path, json=body)
    if r.status_code not in (200, 202):
        raise Failed(f"POST {path} answered {r.status_code}: {r.text[:500]}")
    job: dict[str, Any] = r.json()
    run.log(f"POST {path} -> {r.status_code}, job {job['job_id'][:12]} {job['status']}")
    return job


def finish(run: Run, client: httpx.Client, job_id: str, timeout: float, what: str) -> dict[str, Any]:
    """Poll the job (long polls of up to 10 s) until it ends; Failed unless it finished."""
    end = time.monotonic() + run.left(timeout)
    body: dict[str, Any] = {}
    while time.monotonic() < end:
        wait = max(0.1, min(10.0, end - time.monotonic()))
        body = client.get(f"/api/v1/jobs/{job_id}", params={"wait": round(wait, 1)}, timeout=wait + 10).json()
        if body["status"] in ("finished", "failed", "canceled"):
            break
    if body.get("status") != "finished":
        raise Failed(f"{what} did not finish in {timeout:.0f} s: {_brief(body)}")
    return body


def _brief(body: dict[str, Any]) -> str:
    return str({k: body.get(k) for k in ("status", "progress", "cells", "error")})


def check_cells(body: dict[str, Any], total: int, what: str) -> None:
    cells = body.get("cells") or {}
    mse = body["result"]["metrics"]["mse"]
    missing = sum(v is None for row in mse for v in row)
    if cells.get("total") != total or cells.get("done") != total or missing:
        raise Failed(f"{what}: expected all {total} cells, got cells={cells} and {missing} empty in the result")


def show_worker(run: Run, w: dict[str, Any]) -> None:
    gib = 2**30
    mem = ""
    if w.get("memory_total_bytes") is not None:
        mem = f", GPU memory {w['memory_free_bytes'] / gib:.1f} of {w['memory_total_bytes'] / gib:.1f} GiB free"
    rss = f", RSS {w['rss_bytes'] / 2**20:.0f} MiB" if w.get("rss_bytes") else ""
    run.log(f"health: worker {w['name']} on {w['device']}{mem}{rss}")


def check_health(run: Run, client: httpx.Client, device: str) -> None:
    health = client.get("/api/v1/health").json()
    run.log(f"health: status {health['status']}, workers {health['workers']}, device {health['device']}")
    if health["status"] != "ok" or health["workers"] != 1 or len(health.get("worker_details", [])) != 1:
        raise Failed(f"health is not ok with one worker: {health}")
    (w,) = health["worker_details"]
    show_worker(run, w)
    if not (w["device"] == device or w["device"].startswith(f"{device}:")):
        raise Failed(f"health names device {w['device']!r}, not {device!r}")
    if not w.get("rss_bytes"):
        raise Failed(f"health reports no resident memory: {w}")
    if device == "cuda":
        total, free = w.get("memory_total_bytes"), w.get("memory_free_bytes")
        if not (total and free is not None and 0 < free <= total):
            raise Failed(f"health reports no sane GPU memory: {w}")


def kill_mid_job(run: Run, client: httpx.Client, victim: subprocess.Popen[bytes], job_id: str, total: int) -> bool:
    """SIGKILL the worker once the job has some cells done but not all: True, or False when the job ended first."""
    end = time.monotonic() + run.left(60)
    body: dict[str, Any] = {}
    while time.monotonic() < end:
        body = client.get(f"/api/v1/jobs/{job_id}").json()
        done = (body.get("cells") or {}).get("done", 0)
        if body["status"] in ("finished", "failed", "canceled"):
            run.log(f"the surface ended before the kill ({_brief(body)})")
            return False
        if 0 < done < total:
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait(timeout=10)
            run.log(
                f"SIGKILLed worker pid {victim.pid} with {done}/{total} cells done, progress {body['progress']:.2f}"
            )
            return True
        time.sleep(0.05)
    raise Failed(f"no cell of the surface was done within 60 s: {_brief(body)}")


def first_surface(run: Run, client: httpx.Client, speed: float, target_s: float, seed: int) -> float:
    """Surface 1, sized to take about `target_s` at `speed`, every cell checked; grown and run again (at most
    twice) while it takes under half that (a speed measured on a tiny run is launch overheads). Its throughput."""
    for attempt in range(3):
        cols, reps = sized(speed, target_s, 6)
        work = 4 * cols * reps * CELL_WORK
        run.log(f"surface 1: {4 * cols} cells of {reps} replicates ({work:.3g} work units, ~{work / speed:.1f} s)")
        t = time.monotonic()
        job_id = submit(run, client, "/api/v1/surfaces", surface(cols, reps, seed + attempt))["job_id"]
        body = finish(run, client, job_id, 90, "surface 1")
        seconds = time.monotonic() - t
        check_cells(body, 4 * cols, "surface 1")
        speed = work / seconds
        run.log(f"surface 1 finished in {seconds:.2f} s with all {4 * cols} cells: {speed:.3g} work units/s")
        if seconds >= target_s / 2 or reps >= MAX_REPLICATES:
            break
        speed *= 2  # overheads weigh less on a bigger run: aim past the target rather than short of it again
    return speed


def scenario_steps(run: Run, client: httpx.Client, env: dict[str, str], args: argparse.Namespace) -> None:
    device = args.device
    seed = secrets.randbelow(2**31)
    worker, _ = start_worker(run, client, env, "worker-1")
    speed = wait_speed(run, client, device)

    t = time.monotonic()
    job = submit(run, client, "/api/v1/simulations", {"H": 8, "d_k": 4, "theta": 60, "replicates": 64, "seed": seed})
    body = finish(run, client, job["job_id"], 60, "the simulation")
    result_device = str(body["result"].get("device"))
    run.log(f"simulation finished in {time.monotonic() - t:.2f} s on {result_device}, mse {body['result'].get('mse')}")
    if not result_device.startswith(device):
        raise Failed(f"the simulation ran on {result_device!r}, not {device!r}")

    throughput = first_surface(run, client, speed, args.surface_s, seed + 10)

    t = time.monotonic()
    sweep = {"thetas": [0, 30, 60, 90], "base": {"replicates": 64, "seed": seed + 2}}
    body = finish(run, client, submit(run, client, "/api/v1/sweeps/diversity", sweep)["job_id"], 60, "the sweep")
    points = body["result"].get("points") or []
    if len(points) != 4:
        raise Failed(f"the sweep has {len(points)} points, not 4")
    run.log(f"sweep finished in {time.monotonic() - t:.2f} s with {len(points)} points")

    check_health(run, client, device)

    for attempt in range(3):  # a surface that ends before the kill is run again, four times the size
        cols, reps = sized(throughput * 4**attempt, args.kill_surface_s, 10)
        total = 4 * cols
        work = total * reps * CELL_WORK
        run.log(f"surface 2: {total} cells of {reps} replicates ({work:.3g} work units, ~{work / throughput:.1f} s)")
        t = time.monotonic()
        job_id = submit(run, client, "/api/v1/surfaces", surface(cols, reps, seed + 20 + attempt))["job_id"]
        if kill_mid_job(run, client, worker, job_id, total):
            break
    else:
        raise Failed("every surface 2 ended before the worker could be killed mid-job")
    killed_at = time.monotonic()
    env2 = {**env, "HEADDIV_WORK_PER_S": repr(speed)}  # the same machine: no second measurement
    start_worker(run, client, env2, "worker-2")
    body = finish(run, client, job_id, 120, "surface 2 after the kill")
    check_cells(body, total, "surface 2")
    run.log(
        f"surface 2 finished with all {total} cells {time.monotonic() - killed_at:.1f} s after the kill "
        f"({time.monotonic() - t:.1f} s in all)"
    )
    show_recovery(run)
    health = client.get("/api/v1/health").json()
    run.log(f"health after recovery: {health['status']}, {health['workers']} worker(s) listed")


def show_recovery(run: Run) -> None:
    """Which chunk the killed worker was running, and whether the new worker ran it again (RQ's retry)."""
    started = [line for line in run.lines_of("worker-1", "surface") if "cells (" in line]
    lost = started[-1].rsplit("(", 1)[-1].rstrip(")") if started else ""
    for line in run.lines_of("worker-2", "cells (", "Successfully completed", "abandon", "error", "Traceback"):
        run.log(f"worker-2: {line[24:]}")
    if lost and run.lines_of("worker-2", f"Job OK ({lost})"):
        run.log(f"the lost chunk {lost[:12]}...{lost[-11:]} was retried and completed by worker-2")
    else:
        run.log(f"the lost chunk {lost or '?'} was not rerun as such: the surface computed the cells it left")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--device", choices=["cpu", "cuda"], default=None, help="default: cuda if torch sees a GPU")
    parser.add_argument("--redis-server", default=None, help="redis-server binary (PATH, then .gpu/redis/)")
    parser.add_argument("--budget", type=float, default=150.0, help="hard bound on the whole run, seconds")
    parser.add_argument("--surface-s", type=float, default=5.0, help="target duration of surface 1, seconds")
    parser.add_argument("--kill-surface-s", type=float, default=12.0, help="target duration of surface 2, seconds")
    parser.add_argument("--compile", choices=["off", "auto", "on"], default="off", help="HEADDIV_COMPILE")
    args = parser.parse_args(argv)

    out_dir = Path(os.environ["OUT"]) / "scaled" if os.environ.get("OUT") else None
    workdir = Path(tempfile.mkdtemp(prefix="headdiv-scaled-"))
    run = Run(args.budget, workdir)

    def on_signal(signum: int, frame: object) -> None:
        raise Failed(f"stopped by signal {signal.Signals(signum).name}")

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
        signal.signal(sig, on_signal)
    signal.alarm(int(args.budget) + 5)  # a hard stop even if a call hangs past every deadline
    reason = ""
    try:
        if args.device is None:
            import torch

            args.device = "cuda" if torch.cuda.is_available() else "cpu"
        run.log(f"python {sys.version.split()[0]}, device {args.device}, budget {args.budget:.0f} s, logs in {workdir}")
        redis_url = start_redis(run, find_redis(args.redis_server))
        env = service_env(redis_url, args.device, args.compile)
        client = start_server(run, env)
        try:
            scenario_steps(run, client, env, args)
        finally:
            client.close()
    except Failed as exc:
        reason = str(exc)
    except Exception as exc:  # anything unexpected is a failure with its type, never a traceback alone
        reason = f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)  # the clean-up below runs to its end
        run.stop_all()
    if reason:
        run.show_tails()
    run.log(f"children stopped; {time.monotonic() - run.t0:.1f} s in all")
    run.log("SCALED E2E: PASS" if not reason else f"FAIL: {reason}")
    if out_dir is not None:
        try:
            run.save(out_dir)
            print(f"log and children's output in {out_dir}", flush=True)
        except OSError as exc:
            print(f"could not write {out_dir}: {exc}", flush=True)
    return 1 if reason else 0


if __name__ == "__main__":
    raise SystemExit(main())
