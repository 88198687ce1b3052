"""A `headdiv serve` (or any command serving the API) started in a subprocess, for tests that need the real
process: waited for until its health answer says it is ready, its log kept, stopped afterwards."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx


def answers(health: dict[str, Any]) -> bool:
    """Ready once the health route answers at all."""
    return True


@contextmanager
def serving(
    command: list[str],
    url: str,
    env: dict[str, str],
    log_path: Path,
    cwd: Path | None = None,
    ready: Callable[[dict[str, Any]], bool] = answers,
    timeout_s: float = 120,
) -> Iterator[None]:
    """Run `command` (which serves `url`), yield once `ready(health)` holds, then stop it. A process that
    exits, or is not ready within `timeout_s`, fails the test with the end of its log."""
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=cwd or log_path.parent, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            assert process.poll() is None, f"exited with {process.returncode}:\n{log_path.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"not ready after {timeout_s} s:\n{log_path.read_text()[-3000:]}"
            try:
                health = httpx.get(f"{url}/api/v1/health", timeout=5)
                if health.status_code == 200 and ready(health.json()):
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
