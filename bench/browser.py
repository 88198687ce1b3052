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

Then, per view whose charts follow the hand (Ensemble, Weighting), side by side in the same run: with the
live path (`headdiv/dashboard/drawing/live.py`, `assets/live.js`) and with only the release's drawing (the requests
of a movement and those asked ahead blocked in the browser: the charts wait for the three Dash callback
waves of the release, as before the live path existed):
  key press -> viewport     a θ key press (a new value each time), in the page: from the keydown event to the
                            frame in which every chart inside the viewport (1440x900) shows new data, p50
  key press -> every chart  the same until every chart of the view shows new data (those below the fold too),
                            p50 / max; and, beside it, as Playwright sees it (its press and its polling included)
  drag redraws/s            redraws of the view's first chart while θ is dragged across 40% of its track in
                            2 s at a hand's pace (moves follow the clock), and whether the values drawn are
                            in the thumb's order
  release -> final          mouse up until every chart of the view shows the released value's figure (0 when
                            each already did)
  requests per movement     requests (live and Dash callbacks) per key press, until a second of quiet
and the server's draw counter: states drawn more than once (each distinct state is drawn once).

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

from bench.drawn import IN_VIEWPORT, VIEW_DRAWN  # noqa: E402
from bench.load import Processes, free_port, headdiv_command, wait_healthy  # noqa: E402
from bench.timing import host_reference_ms  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
CALLBACK = "_dash-update-component"
SLICE = '[id*=\'"name":"ens-slice"\'] .js-plotly-plot'
HEAT = '[id*=\'"name":"surf-heat"\'] .js-plotly-plot'
TARGETS = {"slider -> figure": 150.0, "cached first view": 1000.0, "first partial": 500.0}
LIVE_TARGETS = {"viewport": 60.0, "every chart": 120.0, "release": 300.0}
"""ms: a key press until the charts in the viewport show it (p50), until every chart does (p50); a drag's release
until every chart shows the released value."""
LIVE_VIEWS = {
    "ensemble": "[id^='view-ensemble'] .js-plotly-plot",
    "weighting": "[id^='view-weighting'] .js-plotly-plot",
}
LIVE = "/_live?"
DRAG_S = 2.0
"""How long the drag lasts, by the clock."""
PER_CHART = (
    "(s) => [...document.querySelectorAll(s)].map((g) => JSON.stringify((g.data || []).map((t) => [t.x, t.y, t.z])))"
)
"""Each chart's data, to see when every chart of a view has been redrawn with new numbers."""
IN_PAGE = f"""(s) => {{ const charts = () => [...document.querySelectorAll(s)];
  const before = charts().map((g) => g.data);
  window.__keyToView = null; window.__keyToFrame = null;
  document.addEventListener('keydown', (e) => {{
    const down = e.timeStamp, seen = charts().map({IN_VIEWPORT});
    const tick = () => {{ // performance.now(), not the frame's timestamp: that is its vsync, before a long task ends
      const now = performance.now(), fresh = charts().map((g, i) => g.data !== before[i]);
      if (window.__keyToView === null && fresh.every((f, i) => f || !seen[i])) window.__keyToView = now - down;
      if (fresh.every(Boolean)) window.__keyToFrame = now - down;
      else requestAnimationFrame(tick);
    }};
    requestAnimationFrame(tick);
  }}, {{capture: true, once: true}}); }}"""
"""From the keydown event to the frame that paints the charts inside the viewport with new data, and to the one
that paints every chart of the view so (read as that frame's callbacks run): the latency a person meets, without
the driver's round trips."""
TRACK_DRAWS = """(s) => { window.__draws = [];
  document.querySelectorAll(s).forEach((g, i) => g.on('plotly_afterplot',
    () => window.__draws.push([performance.now(), JSON.stringify(g.data.map((t) => [t.y, t.z])), i]))); }"""
"""Every drawing of each chart of the view: [when, its data, which chart]."""


@contextlib.contextmanager
def started(log_dir: Path, extra: dict[str, str] | None = None) -> Iterator[str]:
    """`headdiv serve` (embedded, warm start on as a user gets it) on a free port; yield its URL; stop it."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    env.update({"HEADDIV_HOST": "127.0.0.1", "HEADDIV_PORT": str(port), "PYTHONUNBUFFERED": "1", **(extra or {})})
    procs = Processes(log_dir / f"serve-{port}.log")
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
    from headdiv.dashboard import warm_requests

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


def measure_live(url: str, chromium: str, presses: int) -> dict[str, dict[str, Any]]:
    """Per view and mode (live, release only): the key press, drag, release and request measures of the docstring."""
    from playwright.sync_api import sync_playwright

    out: dict[str, dict[str, Any]] = {}
    drawn: dict[str, int] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for view in LIVE_VIEWS:
            for mode in ("live", "release only"):
                out[f"{view} ({mode})"] = live_row(browser, f"{url}/?tab={view}&theta=80", view, presses, mode, drawn)
        browser.close()
    out["server"] = {"states drawn more than once": sum(1 for n in drawn.values() if n > 1), "states": len(drawn)}
    return out


def live_row(
    browser: Any,
    address: str,
    view: str,
    presses: int,
    mode: str = "live",
    drawn: dict[str, int] | None = None,
    drag: bool = True,
) -> dict[str, Any]:
    """One fresh browser context at `address` (showing `view`): the time until every chart of the view shows
    data, then `presses` θ key presses, a drag and its release (the measures of the docstring)."""
    drawn = {} if drawn is None else drawn
    charts = LIVE_VIEWS[view]
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    sent: list[float] = []

    def seen(r: Any, sent: list[float] = sent) -> None:
        if CALLBACK in r.url or LIVE in r.url:
            sent.append(time.perf_counter())

    def answered(r: Any) -> None:
        if LIVE in r.url and r.headers.get("x-headdiv-live") == "drawn":
            drawn[r.url] = drawn.get(r.url, 0) + 1

    page.on("request", seen)
    page.on("response", answered)
    if mode == "release only":  # the charts as the release draws them: no movement, nothing ahead
        page.route(f"**{LIVE}*", _release_only)
    row: dict[str, Any] = {"key press -> all charts": [], "viewport": [], "in page": [], "requests per movement": []}
    t0 = time.perf_counter()
    page.goto(address)
    page.wait_for_function(VIEW_DRAWN, arg=view)
    row["first view"] = [1000 * (time.perf_counter() - t0)]
    quiet(page, sent)
    page.focus("#sc-theta [role=slider]")
    for _ in range(presses):
        before = page.evaluate(PER_CHART, charts)
        page.evaluate(IN_PAGE, charts)
        n0 = len(sent)
        t0 = time.perf_counter()
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(
            f"([s, b]) => {{ const now = ({PER_CHART})(s);"
            " return now.length === b.length && now.every((x, i) => x !== b[i]); }",
            arg=[charts, before],
            polling="raf",
        )
        row["key press -> all charts"].append(1000 * (time.perf_counter() - t0))
        row["in page"].append(page.wait_for_function("() => window.__keyToFrame").json_value())
        row["viewport"].append(page.evaluate("() => window.__keyToView"))
        quiet(page, sent)
        row["requests per movement"].append(float(len(sent) - n0))
    if drag:
        row.update(_drag(page, charts))
    context.close()
    return row


def measure_after_start(chromium: str, presses: int, log_dir: Path, starts: int = 5) -> dict[str, dict[str, Any]]:
    """A person who opens the page 2 s after a start (a later start of this version: an earlier one kept its
    work, and someone opened the default page then), against the same person once the server is quiet (60 s
    after health), in one run: the default first view (kept), at `starts` starts (the first view moves with
    what the start-up is doing at that instant) and as many times once quiet, then key presses, a drag and
    its release on Ensemble at a seed never computed (a different one in each phase, so neither finds the
    other's results)."""
    from playwright.sync_api import sync_playwright

    kept = {"HEADDIV_CACHE_DIR": str(log_dir / "kept")}
    with started(log_dir, kept) as url:  # the version's first start: computes and keeps
        settle(url)
        # and someone opened the default page (its charts, drawn once, are kept for the next start)
        httpx.get(url + "/_live?", timeout=120).raise_for_status()
    out: dict[str, dict[str, Any]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        firsts: list[float] = []
        for _ in range(starts - 1):  # the other starts: the first view 2 s after health alone
            with started(log_dir, kept) as url:
                time.sleep(2.0)
                firsts += live_row(browser, f"{url}/", "ensemble", presses=0, drag=False)["first view"]
        with started(log_dir, kept) as url:
            healthy = time.monotonic()
            for phase, at_s, seed in (("2 s after start", 2.0, 4242), ("once quiet (60 s)", 60.0, 4343)):
                time.sleep(max(0.0, healthy + at_s - time.monotonic()))
                views = 1 if phase == "2 s after start" else starts
                first = [
                    live_row(browser, f"{url}/", "ensemble", presses=0, drag=False)["first view"][0]
                    for _ in range(views)
                ]
                row = live_row(browser, f"{url}/?seed={seed}&theta=80", "ensemble", presses)
                row["first view"] = first + (firsts if phase == "2 s after start" else [])
                row["ended after health, s"] = time.monotonic() - healthy
                out[phase] = row
        browser.close()
    return out


def report_after_start(results: dict[str, dict[str, Any]]) -> None:
    quiet_row = results["once quiet (60 s)"]
    print(f"\n{'Ensemble, this machine':<28} {'2 s after start':>16} {'once quiet':>12} {'ratio':>7}")
    start_row = results["2 s after start"]
    for name, key in (
        ("first view (kept), ms", "first view"),
        ("key press p50, ms", "key press -> all charts"),
        ("key press p50 in page, ms", "in page"),
        ("key press p50, viewport, ms", "viewport"),
        ("release -> final, ms", "release -> final"),
    ):
        a, b = statistics.median(start_row[key]), statistics.median(quiet_row[key])
        print(f"{name:<28} {a:>16.0f} {b:>12.0f} {a / max(b, 1.0):>7.2f}")
    a, b = start_row["drag redraws/s"], quiet_row["drag redraws/s"]
    print(f"{'drag redraws/s':<28} {a:>16.1f} {b:>12.1f} {b / max(a, 0.01):>7.2f}")
    print(f"{'measures ended after health':<28} {start_row['ended after health, s']:>15.1f}s")
    spread = [f"{min(r['first view']):.0f}-{max(r['first view']):.0f}" for r in (start_row, quiet_row)]
    print(
        f"first view, medians of {len(start_row['first view'])} starts / {len(quiet_row['first view'])} opens;"
        f" ranges {spread[0]} / {spread[1]} ms"
    )


def _release_only(route: Any) -> None:
    """Let through the release's own drawing, not the requests of a movement or those asked ahead."""
    headers = route.request.headers
    if "x-headdiv-move" in headers or "x-headdiv-ahead" in headers:
        route.abort()
    else:
        route.continue_()


def _drag(page: Any, charts: str) -> dict[str, Any]:
    """θ dragged leftwards across 40% of its track in 2 s, from 90°, at a hand's pace: the thumb's position
    follows the clock, not the page (a hand does not wait for the charts), and the next move is sent a frame
    after the page took the last one, as a browser hands a busy page one pointer move per turn, the newest.
    (A fixed 40 moves with 50 ms between them, as this bench did before, waited on the page at every move:
    on a 2-vCPU host the "2 s" drag took 3-5 s, and the rate measured the driver as much as the page.)"""
    page.evaluate(TRACK_DRAWS, charts)
    thumb = page.locator(".ctl-theta [role=slider]").bounding_box()
    track = page.locator(".ctl-theta .dash-slider-track").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    t0 = page.evaluate("() => performance.now()")
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < DRAG_S:
        page.mouse.move(x - track["width"] * 0.4 * elapsed / DRAG_S, y)
        page.wait_for_timeout(16)
    page.mouse.move(x - track["width"] * 0.4, y)
    t1 = page.evaluate("() => performance.now()")
    page.mouse.up()
    page.wait_for_timeout(3000)
    draws = page.evaluate("() => window.__draws")
    during = [d for d in draws if t0 <= d[0] <= t1 and d[2] == 0]  # the first chart's
    trail = page.evaluate("() => (window.headdivLive || {trail: []}).trail")
    thetas = [int(dict(p.split("=") for p in q.split("&"))["theta"]) for q in trail]
    finals = page.evaluate(
        "(s) => [...document.querySelectorAll(s)].map((g) => JSON.stringify(g.data.map((t) => [t.y, t.z])))", charts
    )
    # per chart, its first drawing of the figure it ends on (t1 when none: it showed it before the release)
    reached = [next((d[0] for d in draws if d[2] == i and d[1] == final), t1) for i, final in enumerate(finals)]
    return {
        "drag redraws/s": len(during) / ((t1 - t0) / 1000),
        "drawn in order": thetas == sorted(thetas, reverse=True),
        "release -> final": [max(0.0, max(reached) - t1)],
    }


def report_live(results: dict[str, dict[str, Any]]) -> None:
    print(
        f"\n{'view (path)':<22} {'key -> viewport':>16} {'key -> every chart':>19} {'as Playwright sees':>19}"
        f" {'req/move':>9} {'drag redraws/s':>15} {'in order':>9} {'release -> final':>17}"
    )
    print(f"{'':<22} {'p50, in page':>16} {'p50 / max, in page':>19} {'it, p50 / p95':>19}")
    for name, row in results.items():
        if name == "server":
            continue
        keys, inside, view = row["key press -> all charts"], row["in page"], row["viewport"]
        print(
            f"{name:<22} {statistics.median(view):>13.0f} ms"
            f" {statistics.median(inside):>7.0f} / {max(inside):>5.0f} ms"
            f" {statistics.median(keys):>8.0f} / {pct(keys, 0.95):>5.0f} ms"
            f" {statistics.mean(row['requests per movement']):>9.1f} {row['drag redraws/s']:>15.1f}"
            f" {row['drawn in order']!s:>9} {row['release -> final'][0]:>14.0f} ms"
        )
    for name, row in results.items():
        if name == "server" or "release only" in name:
            continue
        measured = {
            "viewport": statistics.median(row["viewport"]),
            "every chart": statistics.median(row["in page"]),
            "release": row["release -> final"][0],
        }
        labels = {"viewport": "key press -> viewport p50", "every chart": "-> every chart p50", "release": "release"}
        said = [
            f"{label} <= {LIVE_TARGETS[what]:.0f} ms: {'met' if measured[what] <= LIVE_TARGETS[what] else 'MISSED'}"
            for what, label in labels.items()
        ]
        print(f"{name}: " + "; ".join(said))
    server = results["server"]
    print(f"server: {server['states']} states drawn, {server['states drawn more than once']} of them more than once")


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
    ap.add_argument("--views", type=int, default=5, help="cached first views (with --after-start: starts)")
    ap.add_argument("--surfaces", type=int, default=3, help="cold surfaces")
    ap.add_argument("--only-live", action="store_true", help="only the live-charts measures")
    ap.add_argument(
        "--after-start", action="store_true", help="2 s after a start against once quiet (starts its own servers)"
    )
    args = ap.parse_args()
    print(f"host reference: {host_reference_ms():.0f} ms of fixed Python work (bench/timing.py), before the run")
    if args.after_start:
        with tempfile.TemporaryDirectory() as log_dir:
            report_after_start(measure_after_start(args.chromium, min(args.presses, 8), Path(log_dir), args.views))
        return 0
    with contextlib.ExitStack() as stack:
        if args.url:
            url = args.url.rstrip("/")
        else:
            url = stack.enter_context(started(Path(stack.enter_context(tempfile.TemporaryDirectory()))))
        settle(url)
        if not args.only_live:
            report(measure(url, args.chromium, args.presses, args.views, args.surfaces))
        report_live(measure_live(url, args.chromium, args.presses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
