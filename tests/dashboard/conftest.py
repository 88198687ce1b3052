"""Fixtures of the dashboard tests: a real `headdiv serve` app in a subprocess and real headless Chromium.

The browser tests drive the dashboard exactly as a user does, against the app the `headdiv serve`
command runs (uvicorn with the `headdiv.server.main:create_app` factory), so the URL sync, the API calls and
the job polling are all the real ones.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import plotly.graph_objects as go
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _patient_waits() -> None:
    """A wait's predicate that reads an element not rendered yet (`null.innerText`) means "not yet", not a
    failure: Playwright ends a wait at the first exception its predicate throws, so under load (the page a
    moment slower) such a wait failed where a quicker page passed. Every function-shaped predicate of these
    tests is wrapped so that a TypeError counts as false and the wait goes on (to its timeout, which still
    fails a condition that never comes)."""
    from playwright.sync_api import Page

    original = Page.wait_for_function
    if getattr(original, "patient", False):
        return

    def wait_for_function(self: Any, expression: str, **options: Any) -> Any:
        text = expression.strip()
        if text.startswith(("(", "function", "async")):
            expression = (
                f"(__arg) => {{ try {{ return ({text})(__arg); }} "
                "catch (e) { if (e instanceof TypeError) return false; throw e; } }"
            )
        return original(self, expression, **options)

    wait_for_function.patient = True  # type: ignore[attr-defined]
    Page.wait_for_function = wait_for_function  # type: ignore[method-assign]


_patient_waits()
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def drawn_numbers(fig: go.Figure) -> list[float]:
    """Every number a figure draws (x, y, z of each trace), to check none is NaN or infinite."""
    out: list[float] = []
    for trace in fig.data:
        for key in ("x", "y", "z"):
            values = getattr(trace, key, None)
            if values is None:
                continue
            for v in np.asarray(values, dtype=object).ravel():
                if isinstance(v, (list, tuple)):
                    out += [float(x) for x in v if isinstance(x, (int, float))]
                elif isinstance(v, (int, float)) and not isinstance(v, bool):
                    out.append(float(v))
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """Base URL of a freshly started embedded headdiv app (API + dashboard), stopped after the session."""
    port = _free_port()
    env = {
        **os.environ,
        "HEADDIV_PORT": str(port),
        "HEADDIV_WARM_UP": "0",
        "HEADDIV_WARM_START": "0",  # tests watch computations happen: nothing is precomputed
        "HEADDIV_COMPILE": "off",
        "HEADDIV_DEVICE": "cpu",
    }
    env.pop("REDIS_URL", None)
    env.pop("CACHE_REDIS_URL", None)
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "dashboard-server.log", "w")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "headdiv.server.main:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the server exited with {proc.returncode}; see {log.name}")
            try:
                if httpx.get(url + "/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not answer within 90 s; see {log.name}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


@contextmanager
def standalone_dashboard(api_url: str, **options: Any) -> Iterator[str]:
    """The dashboard served on its own (as `headdiv dashboard` does), talking to the API at `api_url`: the
    URL of its page. `options` go to `create_dash_app`."""
    import threading

    from werkzeug.serving import make_server

    from headdiv.dashboard.page.app import create_dash_app

    server = make_server("127.0.0.1", 0, create_dash_app(api_url, **options).server, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


@contextmanager
def dashboard_against_a_dead_api() -> Iterator[str]:
    """`headdiv dashboard` alone, pointed at a port where nothing listens: the URL of its page."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    with standalone_dashboard(f"http://127.0.0.1:{dead}") as url:
        yield url


def value_point(page: Any, control: str, value: float, lo: float, hi: float) -> tuple[float, float]:
    """Where a pointer presses a slider (`.ctl-<control>`) to set `value`: Radix maps the pointer's place
    along the slider's root to its range, so the thumb's own centre may be a step away (its in-bounds offset)."""
    root = page.locator(f".ctl-{control} .dash-slider-root").bounding_box()
    thumb = page.locator(f".ctl-{control} [role=slider]").bounding_box()
    return root["x"] + root["width"] * (value - lo) / (hi - lo), thumb["y"] + thumb["height"] / 2
