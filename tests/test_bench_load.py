"""bench/load.py works: it starts both set-ups itself, drives them, and reports without errors.

Only that it runs and that no request failed is asserted: its latencies are measured figures for
docs/performance.md, not something a unit test on a shared machine can hold to a number.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


ROW = re.compile(
    r"^(?P<setup>embedded|redis) +(?P<rps>\d+) .* (?P<cpu>[\d.]+) ms +(?P<errors>\d+)  (met|MISSED)$", re.M
)


def run_load(*args: str) -> str:
    env = {
        **os.environ,
        "HEADDIV_WARM_UP": "0",
        "HEADDIV_WARM_START": "0",
        "HEADDIV_COMPILE": "off",
        "HEADDIV_DEVICE": "cpu",
    }
    common = ["--settle", "0", "--duration", "2", "--clients", "6", "--new-share", "0.1"]
    done = subprocess.run(
        [sys.executable, "bench/load.py", *common, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=220,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: a latency target missed, still a report
    return done.stdout


def rows(out: str) -> dict[str, re.Match[str]]:
    found = {m["setup"]: m for m in ROW.finditer(out)}
    for setup, row in found.items():
        assert int(row["errors"]) == 0, f"{setup}: {out}"
        assert int(row["rps"]) > 0 and float(row["cpu"]) > 0, out
    return found


@pytest.mark.timeout(240)
def test_load_script_drives_both_setups_without_errors(redis_url: str) -> None:
    out = run_load("--redis-url", redis_url)
    assert set(rows(out)) == {"embedded", "redis"}, out
    health = re.findall(r"^== (\w+): http://\S+ (\{.*\})$", out, re.M)
    assert [name for name, _ in health] == ["embedded", "redis"]
    assert "'queue': 'inline'" in health[0][1] and "'queue': 'rq'" in health[1][1] and "'workers': 1" in health[1][1]
    assert "6 aiohttp clients" in out


@pytest.mark.timeout(120)
def test_load_script_runs_the_same_traffic_through_httpx() -> None:
    out = run_load("--modes", "embedded", "--client", "httpx")
    assert set(rows(out)) == {"embedded"}, out
    assert "6 httpx clients" in out
