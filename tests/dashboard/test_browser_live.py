"""Live computation in the browser: a surface fills in cell by cell, a cell computed by a surface is a
cache hit for the Ensemble view, and a slider key press costs at most three requests to the Dash server.

Each test uses a seed of its own, so the cells it watches were never computed before in the session.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from tests.dashboard.test_browser import SMALL, chart_data, wait_chart, wait_idle, wait_text

pytestmark = [pytest.mark.timeout(300), pytest.mark.browser]
CALLBACK = "_dash-update-component"

# Every text #surf-status shows, recorded as it changes (a job may move on between two looks).
RECORD_STATUS = """
new MutationObserver(() => {
  const e = document.getElementById("surf-status");
  const seen = (window.__surfStatus = window.__surfStatus || []);
  if (e && e.innerText && seen[seen.length - 1] !== e.innerText) seen.push(e.innerText);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def _seed() -> int:
    return 10_000 + secrets.randbelow(10**8)


def test_surface_fills_in_as_its_cells_arrive(page: Any, server_url: str) -> None:
    # the default scenario (35 cells of full size): slow enough that the job is seen running
    page.set_default_timeout(240_000)  # a loaded machine: the whole surface may take a while
    page.add_init_script(RECORD_STATUS)
    page.goto(f"{server_url}/?tab=surfaces&seed={_seed()}")
    some_not_all = (
        "(() => { const z = data[0].z.flat(); return z.some(v => v === null) && z.some(v => v !== null); })()"
    )
    wait_chart(page, "surf-heat", some_not_all)
    partial = chart_data(page, "surf-heat")[0]["z"]
    cells = [v for row in partial for v in row]
    assert len(cells) == 35 and None in cells and any(isinstance(v, float) for v in cells)
    assert "NaN" not in page.inner_text("#view-surfaces")
    wait_chart(page, "surf-heat", "data[0].z.flat().every(v => v !== null)")
    wait_idle(page, "surf")
    statuses = page.evaluate("() => window.__surfStatus")
    running = [s for s in statuses if s.startswith("running") and s.endswith("/ 35 cells")]
    assert running, f"no 'k / 35 cells' progress among {statuses}"
    assert statuses[-1].startswith("computed")
    final = [v for row in chart_data(page, "surf-heat")[0]["z"] for v in row]
    assert all(isinstance(v, float) for v in final)


def test_a_cell_of_a_surface_is_a_cache_hit_for_the_ensemble_view(page: Any, server_url: str) -> None:
    seed = _seed()
    page.goto(f"{server_url}/?tab=surfaces&{SMALL}&seed={seed}")
    wait_chart(page, "surf-heat", "data[0].z.flat().every(v => v !== null)")
    wait_idle(page, "surf")
    # theta = 15, H = 8 is a cell of the default grid (theta x H), and not the page's own scenario
    page.goto(f"{server_url}/?tab=ensemble&{SMALL}&seed={seed}&theta=15&H=8")
    wait_chart(page, "ens-slice", "data.filter(t => t.legendgroup === 'heads').length === 8")
    wait_text(page, "#sim-status", r"^from cache$")


@pytest.mark.parametrize("preset", [False, True], ids=["scenario", "leaving-a-preset"])
def test_a_slider_key_press_costs_at_most_three_requests(page: Any, server_url: str, preset: bool) -> None:
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.post_data or "") if CALLBACK in r.url else None)
    if preset:  # "Identical heads": the first press leaves it (its story goes), the second comes back
        page.goto(f"{server_url}/?theta=0")
        wait_text(page, "#tour-step-title", r"^Identical heads$")
    else:
        page.goto(f"{server_url}/?tab=ensemble&{SMALL}&seed={_seed()}")
    wait_chart(page, "ens-slice")
    wait_idle(page, "sim")
    for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):
        before = chart_data(page, "ens-slice")[0]["y"]
        hdi = page.inner_text("#hl-hdi")
        sent.clear()
        page.focus("#sc-theta [role=slider]")
        page.keyboard.press(key)
        wait_chart(page, "ens-slice", "JSON.stringify(data[0].y) !== JSON.stringify(arg)", before)
        page.wait_for_function("(h) => document.getElementById('hl-hdi').innerText !== h", arg=hdi)
        wait_idle(page, "sim")
        assert 1 <= len(sent) <= 3, f"{len(sent)} requests for one key press: {[s[:120] for s in sent]}"
