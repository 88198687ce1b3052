"""The dashboard as a person feels it: headless Chromium (Playwright) against a server this script starts.

    python bench/browser.py                     # starts `headdiv serve` on a free port, measures, stops it
    python bench/browser.py --url http://host:8050   # a server that is already running

It prints p50/p95 of:
  slider -> figure     a key press on the sidebar's theta slider (the default scenario, Ensemble tab: each
                       press is a new scenario, computed) until the slice chart is redrawn with new data
  cached first view    navigation to the default page (its result already cached; fresh browser context,
                       so the bundles are fetched too) until the first chart draws data; beneath it, how
                       much of that was the page's load event, and the same navigation again with the
                       bundles in the browser's cache
  first partial        the default surface with a seed never computed before, from the key press that
                       starts its job until the heatmap shows some cells and not yet all of them
and the number of `_dash-update-component` requests the browser sent per slider key press (counted from
the press until the page has been quiet for a second).

Chromium is Debian's (/usr/bin/chromium, or --chromium); Playwright drives it, no browser download.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Processes, free_port, headdiv_command, wait_healthy  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
CALLBACK = "_dash-update-component"
SLICE = '[id*=\'"name":"ens-slice"\'] .js-plotly-plot'
HEAT = '[id*=\'"name":"surf-heat"\'] .js-plotly-plot'
TARGETS = {"slider -> figure": 150.0, "cached first view": 1000.0, "first partial": 500.0}


@contextlib.contextmanager
def started(log_dir: Path) -> Iterator[str]:
    """`headdiv serve` (embedded, warm start on as a user gets it) on a free port; yield its URL; stop it."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    env.update({"HEADDIV_HOST": "127.0.0.1", "HEADDIV_PORT": str(port), "PYTHONUNBUFFERED": "1"})
    procs = Processes(log_dir / "serve.log")
    try:
        procs.start([*headdiv_command(), "serve"], env)
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, procs, workers=0)
        yield url
        procs.check()
    finally:
        procs.stop()


def settle(url: str, limit_s: float = 600) -> None:
    """Until every computation of the warm start is done (each is asked for; a running one is joined), so
    the measurements do not share the CPU with it and the first views are the cached ones a newcomer gets."""
    from headdiv.dashboard.warm import warm_requests

    deadline = time.monotonic() + limit_s
    with httpx.Client(base_url=url + "/api/v1", timeout=90) as client:
        for path, body in warm_requests():
            while time.monotonic() < deadline:
                state = client.post(path, params={"wait": 30}, json=body)
                if state.status_code in (200, 202) and state.json().get("status") in ("finished", "failed"):
                    break
                time.sleep(0.5 if state.status_code in (200, 202) else 2.0)  # 429: the server is busy


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def slice_y(page: Any) -> str:
    return str(
        page.evaluate(
            "(s) => { const g = document.querySelector(s); return JSON.stringify(g && g.data && g.data.map(t => t.y)); }",
            SLICE,
        )
    )


def wait_changed(page: Any, before: str) -> None:
    page.wait_for_function(
        "([s, b]) => { const g = document.querySelector(s); return g && g.data && g.data.length"
        " && JSON.stringify(g.data.map(t => t.y)) !== b; }",
        arg=[SLICE, before],
        polling="raf",
    )


def quiet(page: Any, counter: list[float], seconds: float = 1.0) -> None:
    """Until no callback request has gone out for `seconds`."""
    while True:
        last = counter[-1] if counter else 0.0
        if time.perf_counter() - last >= seconds:
            return
        page.wait_for_timeout(100)


def measure(url: str, chromium: str, presses: int, views: int, surfaces: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    names = ("slider -> figure", "cached first view", "  of which page load", "  bundles in browser cache")
    out: dict[str, list[float]] = {k: [] for k in (*names, "first partial", "requests per key press")}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        sent: list[float] = []

        def fresh_page() -> Any:
            context = browser.new_context(viewport={"width": 1500, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.on("request", lambda r: sent.append(time.perf_counter()) if CALLBACK in r.url else None)
            return page

        # the default page once, so its result is cached (warm start does it too, if it has finished)
        page = fresh_page()
        page.goto(url + "/")
        page.wait_for_function(
            "(s) => { const g = document.querySelector(s); return g && g.data && g.data.length; }", arg=SLICE
        )
        page.context.close()

        drawn = "(s) => { const g = document.querySelector(s); return g && g.data && g.data.length; }"
        for _ in range(views):
            page = fresh_page()
            t0 = time.perf_counter()
            page.goto(url + "/")
            out["  of which page load"].append(1000 * (time.perf_counter() - t0))
            page.wait_for_function(drawn, arg=SLICE)
            out["cached first view"].append(1000 * (time.perf_counter() - t0))
            # the same again in this browser: its bundles now come from the browser's cache
            t0 = time.perf_counter()
            page.goto(url + "/")
            page.wait_for_function(drawn, arg=SLICE)
            out["  bundles in browser cache"].append(1000 * (time.perf_counter() - t0))
            page.context.close()

        page = fresh_page()
        page.goto(url + "/")
        page.wait_for_function(
            "(s) => { const g = document.querySelector(s); return g && g.data && g.data.length; }", arg=SLICE
        )
        quiet(page, sent)
        page.focus("#sc-theta [role=slider]")
        for _ in range(presses):
            before = slice_y(page)
            n0 = len(sent)
            t0 = time.perf_counter()
            page.keyboard.press("ArrowLeft")
            wait_changed(page, before)
            out["slider -> figure"].append(1000 * (time.perf_counter() - t0))
            quiet(page, sent)
            out["requests per key press"].append(float(len(sent) - n0))
        page.context.close()

        page = fresh_page()
        page.goto(url + "/?tab=surfaces")
        page.wait_for_function(
            "(s) => { const g = document.querySelector(s); return g && g.data && g.data.length"
            " && g.data[0].z && g.data[0].z.flat().every(v => v !== null); }",
            arg=HEAT,
        )
        page.evaluate("() => { document.getElementById('advanced').open = true; }")  # the seed box is in there
        for _ in range(surfaces):
            page.fill("#sc-seed", str(1000 + secrets.randbelow(10**6)))
            t0 = time.perf_counter()
            page.press("#sc-seed", "Enter")
            page.wait_for_function(
                "(s) => { const g = document.querySelector(s); if (!g || !g.data || !g.data.length) return false;"
                " const z = (g.data[0].z || []).flat(); return z.some(v => v === null) && z.some(v => v !== null); }",
                arg=HEAT,
                polling="raf",
            )
            out["first partial"].append(1000 * (time.perf_counter() - t0))
            page.wait_for_function(
                "(s) => { const g = document.querySelector(s); return g && g.data && g.data[0].z"
                " && g.data[0].z.flat().every(v => v !== null); }",
                arg=HEAT,
                timeout=120_000,
            )
        page.context.close()
        browser.close()
    return out


def report(results: dict[str, list[float]]) -> None:
    print(f"\n{'measure':<26} {'n':>3} {'p50':>10} {'p95':>10}  target")
    for name, values in results.items():
        if not values:
            print(f"{name:<26} {0:>3} {'-':>10} {'-':>10}")
            continue
        p50, p95 = statistics.median(values), pct(values, 0.95)
        if name == "requests per key press":
            verdict = "met" if max(values) <= 3 else "MISSED"
            print(f"{name:<26} {len(values):>3} {p50:>10.0f} {p95:>10.0f}  <= 3: {verdict} (max {max(values):.0f})")
            continue
        target = TARGETS.get(name.strip(), TARGETS["cached first view"])
        verdict = "met" if p50 <= target else "MISSED"
        row = f"{name:<26} {len(values):>3} {p50:>7.0f} ms {p95:>7.0f} ms"
        print(row if name.startswith("  of") else f"{row}  p50 <= {target:.0f} ms: {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server (default: start `headdiv serve` on a free port)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--presses", type=int, default=20, help="slider key presses")
    ap.add_argument("--views", type=int, default=5, help="cached first views")
    ap.add_argument("--surfaces", type=int, default=3, help="cold surfaces")
    args = ap.parse_args()
    if args.url:
        settle(args.url.rstrip("/"))
        results = measure(args.url.rstrip("/"), args.chromium, args.presses, args.views, args.surfaces)
    else:
        with tempfile.TemporaryDirectory() as tmp, started(Path(tmp)) as url:
            settle(url)
            results = measure(url, args.chromium, args.presses, args.views, args.surfaces)
    report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
