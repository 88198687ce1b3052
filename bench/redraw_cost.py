"""What one chart's redraw costs the page, by the way it is asked of Plotly: the choice `assets/live.js` makes.

    python bench/redraw_cost.py              # Ensemble at 1440x900, θ 59 <-> 61, 12 redraws per chart and way

A fresh embedded `headdiv serve`, one Debian Chromium page on Ensemble; the two states' live answers are taken
from the tab's memory, and each of the view's charts is redrawn from one state to the other and back, awaiting
each drawing, three ways in turn (twice over, so neither order nor warmth favours one):
- `react`: `Plotly.react(gd, data, layout)` with the answer's figure, what live.js does (Plotly diffs the
  figure against the one it shows and redoes what changed);
- `restyle y`: `Plotly.restyle(gd, {y: [...]})`, only the traces' y (what changes when θ moves);
- `restyle x,y`: the same with x.
It prints the median milliseconds per chart (the first two redraws of each left out) and their sum per view.
Plotly builds the hover layer on hover, not at a drawing, so a held key rebuilds none either way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import CHROMIUM_ARGS  # noqa: E402
from bench.drawn import VIEW_DRAWN  # noqa: E402
from bench.load import embedded_server, wait_quiet  # noqa: E402

WAYS = ("react", "restyle y", "restyle x,y")
REDRAW = """async ([way, n]) => {
  const figures = (answer) => { const out = {};
    answer.parts.forEach((p) => Object.keys(p.charts).forEach((k) => { out[k] = p.charts[k]; })); return out; };
  const a = figures(await window.headdivLive.answer({theta: 59}));
  const b = figures(await window.headdivLive.answer({theta: 61}));
  const out = {};
  for (const name of Object.keys(a)) {
    const gd = document.querySelector(`[id*='"name":"${name}"'] .js-plotly-plot`);
    if (!gd || !b[name]) continue;
    out[name] = [];
    for (let i = 0; i < n; i++) {
      const f = i % 2 ? a[name] : b[name], t0 = performance.now();
      if (way === "react") await window.Plotly.react(gd, f.data, f.layout);
      else if (way === "restyle y") await window.Plotly.restyle(gd, {y: f.data.map((t) => t.y)});
      else await window.Plotly.restyle(gd, {x: f.data.map((t) => t.x), y: f.data.map((t) => t.y)});
      out[name].push(performance.now() - t0);
    }
  }
  return out;
}"""
"""Each chart of the view redrawn `n` times between the two states one way: milliseconds per redraw, by chart."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--redraws", type=int, default=12)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    medians: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    with embedded_server({**os.environ}) as (url, _proc, _):
        wait_quiet(120)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            page.goto(f"{url}/?tab=ensemble&theta=60&replicates=20&queries=16")
            page.wait_for_function(VIEW_DRAWN, arg="ensemble", timeout=120_000)
            for _ in range(2):
                for way in WAYS:
                    times = page.evaluate(REDRAW, [way, args.redraws])
                    medians[way].append({name: statistics.median(t[2:]) for name, t in times.items()})
            browser.close()
    for way in WAYS:
        per_chart = {name: statistics.mean(run[name] for run in medians[way]) for name in medians[way][0]}
        shown = ", ".join(f"{name} {ms:.1f}" for name, ms in per_chart.items())
        print(f"{way:<12} per view {sum(per_chart.values()):5.1f} ms   per chart: {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
