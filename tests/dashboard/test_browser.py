"""The dashboard in real headless Chromium against the app `headdiv serve` runs.

Small scenarios come in through the URL (replicates 20, queries 16) so each page computes in well
under a second on two cores. Each view's screenshot lands in test-artifacts/ (ignored by git); the
README's images are updated only by `make screenshots` (tests never write into the checkout).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from headdiv.figures.theme import MSE_NAME
from tests.dashboard.conftest import ARTIFACTS, dashboard_against_a_dead_api

pytestmark = [pytest.mark.timeout(180), pytest.mark.browser]
SMALL = "replicates=20&queries=16"


def query(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def text(page: Any, selector: str) -> str:
    return str(page.inner_text(selector)).strip()


def wait_text(page: Any, selector: str, pattern: str) -> None:
    """Wait until the element's text matches `pattern` (a regular expression)."""
    page.wait_for_function(
        "([sel, pat]) => { const e = document.querySelector(sel); return e && new RegExp(pat).test(e.innerText); }",
        arg=[selector, pattern],
    )


def chart_data(page: Any, name: str) -> list[dict[str, Any]]:
    """The traces a chart currently draws, read from Plotly in the page."""
    sel = f'[id*=\'"name":"{name}"\'] .js-plotly-plot'
    return list(
        page.evaluate(
            "(sel) => { const g = document.querySelector(sel); return g && g.data ? "
            "JSON.parse(JSON.stringify(g.data)) : []; }",
            sel,
        )
    )


def wait_chart(page: Any, name: str, condition: str = "true", arg: Any = None) -> None:
    """Wait until chart `name` is drawn and the JS expression `condition` (over `data`, `arg`) holds."""
    page.wait_for_function(
        '([n, arg]) => { const g = document.querySelector(`[id*=\'"name":"${n}"\'] .js-plotly-plot`);'
        f" if (!g || !g.data || !g.data.length) return false; const data = g.data; return ({condition}); }}",
        arg=[name, arg],
    )


def slider_value(page: Any, name: str) -> float:
    return float(page.get_attribute(f"#sc-{name} [role=slider]", "aria-valuenow"))


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{name}.png"), full_page=True)


def wait_idle(page: Any, prefix: str, timeout_ms: float = 30_000) -> None:
    """Wait until the view's job is done (no progress bar, body not dimmed)."""
    page.wait_for_function(
        "(p) => { const b = document.getElementById(p + '-progress');"
        " return b && b.style.display === 'none' && !document.querySelector('.busy'); }",
        arg=prefix,
        timeout=timeout_ms,
    )


def test_shared_link_applies_state_and_keyboard_moves_url_and_figures(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&H=8&theta=60&{SMALL}")
    wait_text(page, "#hl-hdi", r"^0\.75$")  # equiangular: HDI = 1 - cos^2(60) = 0.75
    assert slider_value(page, "H") == 8
    assert slider_value(page, "theta") == 60
    assert text(page, "#lbl-theta") == "60"
    wait_chart(page, "ens-slice", "data.filter(t => t.legendgroup === 'heads').length === 8")
    slice_before = chart_data(page, "ens-slice")
    assert len([t for t in slice_before if t.get("legendgroup") == "heads"]) == 8
    wait_idle(page, "sim")
    screenshot(page, "ensemble")

    # keyboard: the theta slider moves one degree, the URL follows without a reload, figures change
    marker = page.evaluate("() => (window.__headdivMarker = Math.random())")
    page.focus("#sc-theta [role=slider]")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.search.includes('theta=59')")
    expected = 1 - math.cos(math.radians(59)) ** 2
    wait_text(page, "#hl-hdi", rf"^{expected:.3g}$".replace(".", r"\."))
    assert page.evaluate("() => window.__headdivMarker") == marker, "the page reloaded"
    assert query(page)["H"] == "8"
    # the overlap heatmap follows: s_hh' = cos^2(theta) between distinct heads
    wait_chart(page, "ens-overlap", "Math.abs(data[0].z[0][1] - arg) < 1e-4", math.cos(math.radians(59)) ** 2)
    wait_chart(page, "ens-slice", "JSON.stringify(data[0].y) !== JSON.stringify(arg)", slice_before[0]["y"])

    # the back button returns to the shared state
    page.go_back()
    page.wait_for_function("() => location.search.includes('theta=60')")
    wait_text(page, "#hl-hdi", r"^0\.75$")
    assert slider_value(page, "theta") == 60
    assert page.evaluate("() => window.__headdivMarker") == marker


def test_only_the_shown_view_is_mounted_and_hidden_ones_keep_the_state_written_into_them(
    page: Any, server_url: str
) -> None:
    # dn belongs to the Diversity view: the link's value is written into it while it is not mounted
    page.goto(f"{server_url}/?tab=ensemble&dn=5&{SMALL}")
    wait_chart(page, "ens-slice")
    assert page.locator("#view-ensemble").count() == 1
    assert page.locator("#view-diversity, #view-surfaces, #view-models").count() == 0
    shown = page.locator(".js-plotly-plot").count()
    assert shown == page.locator("#view-ensemble .js-plotly-plot").count() > 0

    page.click("#tabs >> text=Diversity")
    page.wait_for_selector("#view-diversity", state="visible")
    assert page.locator("#view-ensemble").count() == 0
    assert page.get_attribute("#div-n [role=slider]", "aria-valuenow") == "5"
    assert query(page)["dn"] == "5"
    wait_idle(page, "div")

    # back on Ensemble: its charts are drawn again from what the page holds
    page.click("#tabs >> text=Ensemble")
    wait_chart(page, "ens-slice", "data.filter(t => t.legendgroup === 'heads').length === 4")
    assert page.locator("#view-diversity").count() == 0


def test_bad_url_values_show_notices_and_fall_back(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?H=abc&theta=500&geometry=cubist&{SMALL}&hide=H,explain")
    wait_text(page, "#notices", "angle θ between heads \\(°\\): 500 is above the maximum 90")
    notices = text(page, "#notices")
    assert "heads H: 'abc' is not a number" in notices
    assert "geometry: 'cubist' is not one of" in notices
    wait_text(page, "#hl-hdi", r"^1$")  # theta clamped to 90: orthogonal heads
    assert slider_value(page, "theta") == 90
    # the link is rewritten to the values used (a shared copy of it is clean), and the notices stay
    page.wait_for_function("() => !location.search.includes('abc') && location.search.includes('theta=90')")
    assert "geometry" not in query(page) and "H" not in query(page)
    assert "heads H: 'abc' is not a number" in text(page, "#notices")
    # lecture flags: the H control and the explanations are hidden, the theta control is not
    assert not page.is_visible(".ctl-H")
    assert page.is_visible(".ctl-theta")
    assert not page.is_visible("#view-ensemble .explain")
    assert page.is_visible('[id*=\'"name":"ens-bars"\']')

    # a tab click is state too: it goes into the URL, next to the lecture flags
    page.click("#tabs >> text=Weighting")
    page.wait_for_function("() => location.search.includes('tab=weighting')")
    page.wait_for_selector("#view-weighting", state="visible")
    assert page.is_hidden("#view-ensemble")
    assert query(page)["hide"] == "H,explain"


WATCH_BUSY = """
(() => {
  window.__seen = {progress: false, busy: false, charts: 1, controls: 1, explain: 1};
  const opacity = (body, sel) => { const e = body.querySelector(sel); return e ? Number(getComputedStyle(e).opacity) : 1; };
  const look = () => {
    const bar = document.getElementById('surf-progress');
    const body = document.getElementById('surfaces-body');
    if (bar && bar.style.display !== 'none') window.__seen.progress = true;
    if (body && body.classList.contains('busy')) {
      const s = window.__seen;
      s.busy = true;
      s.charts = Math.min(s.charts, opacity(body, '.chart-row .js-plotly-plot'));
      s.controls = Math.min(s.controls, opacity(body, '.view-controls'));
      s.explain = Math.min(s.explain, opacity(body, '.explain'));
    }
  };
  new MutationObserver(look).observe(document, {subtree: true, attributes: true, childList: true});
  setInterval(look, 50);  // the dimming fades in: sample it while the job runs
})();
"""
"""Records whether the surface view ever showed its progress bar and dimmed its body, and the least opacity its
charts, controls and explanation reached meanwhile: a job may finish between two polls of a test, so the
test waits for "was seen", never for "is now"."""


def test_surface_job_shows_progress_and_completes(page: Any, server_url: str) -> None:
    # big enough to outlast the first half-second wait, so the progress bar must show
    page.add_init_script(WATCH_BUSY)
    page.goto(f"{server_url}/?tab=surfaces&replicates=60&queries=32&n=2048&sx=theta&sxv=0,30,60,90&sy=H&syv=2,4,8")
    page.wait_for_function("() => window.__seen && window.__seen.progress && window.__seen.busy")
    wait_idle(page, "surf", timeout_ms=180_000)  # a deliberately long job: allow a loaded machine its time
    seen = page.evaluate("() => window.__seen")
    assert seen["charts"] < 0.9  # what the job redraws is dimmed ...
    assert seen["controls"] == 1 and seen["explain"] == 1  # ... its controls and explanation never are
    assert "error" not in (page.get_attribute("#surf-status", "class") or "")
    # partial heatmaps come first (null cells): wait for the finished one
    wait_chart(page, "surf-heat", "data[0].type === 'heatmap' && data[0].z.flat().every(v => v !== null)")
    heat = chart_data(page, "surf-heat")
    assert heat[0]["x"] == ["0", "30", "60", "90"] and heat[0]["y"] == ["2", "4", "8"]
    assert all(v is not None and v >= 0 for row in heat[0]["z"] for v in row)
    screenshot(page, "surfaces")

    # switching the metric redraws from the same result (no new job)
    page.click("#surf-metric input[value=hdi]")
    page.wait_for_function("() => location.search.includes('sm=hdi')")
    wait_chart(page, "surf-heat", "Math.abs(data[0].z[0][0]) < 1e-9")  # HDI at theta = 0 is 0


def test_surface_job_can_be_canceled(page: Any, server_url: str) -> None:
    page.goto(
        f"{server_url}/?tab=surfaces&replicates=400&queries=64&n=4096&sx=theta&sxv=0,10,20,30,40,50&sy=H&syv=4,8,16"
    )
    page.wait_for_selector("#surf-cancel", state="visible")
    page.wait_for_selector("#surf-progress", state="visible")
    page.click("#surf-cancel")
    wait_text(page, "#surf-status", "cancel")
    assert page.is_hidden("#surf-progress")


def test_preset_applies_its_story(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?{SMALL}&theta=30")
    wait_text(page, "#hl-hdi", r"^0\.25$")
    page.click("text=Identical heads")
    page.wait_for_function("() => location.search.includes('theta=0')")
    wait_text(page, "#hl-hdi", r"^0$")
    wait_text(page, "#hl-heff", r"^1$")  # identical heads: the ensemble is one head
    assert slider_value(page, "theta") == 0
    assert query(page).get("replicates") is None  # a preset is a whole scenario, not a patch

    # the share box holds the current link; large fonts is part of the state too
    page.wait_for_function("() => document.getElementById('share-url').value === location.href")
    page.click("#large-fonts input")
    page.wait_for_function("() => location.search.includes('large=1')")
    page.wait_for_function("() => document.getElementById('root').classList.contains('large')")

    # the result downloads as CSV, one row per number
    with page.expect_download() as info:
        page.click("#sim-dl-csv")
    csv_text = Path(info.value.path()).read_text(encoding="utf-8")
    assert csv_text.startswith("key,value\n") and "\nhdi,0" in csv_text


@pytest.mark.parametrize(
    ("tab", "chart", "extra"),
    [
        ("diversity", "div-mse", "dn=4"),
        ("architecture", "arch-mse", "budget=8"),
        ("weighting", "wt-schemes", "rho=0.5"),
    ],
)
def test_view_renders_its_result(page: Any, server_url: str, tab: str, chart: str, extra: str) -> None:
    page.goto(f"{server_url}/?tab={tab}&{SMALL}&{extra}")
    prefix = {"diversity": "div", "architecture": "arch", "weighting": "sim"}[tab]
    # sweeps draw their first points while the rest compute (gaps where not done): wait for the whole
    wait_chart(page, chart, "data.length > 1 && data.every((t) => (t.x || []).every((v) => v !== null))")
    wait_idle(page, prefix)
    status = page.get_attribute(f"#{prefix}-status", "class") or ""
    assert "error" not in status, text(page, f"#{prefix}-status")
    data = chart_data(page, chart)
    if tab == "diversity":
        hdi = next(t for t in data if t.get("name") == MSE_NAME)["x"]
        assert len(hdi) == 4 and hdi[0] == pytest.approx(0, abs=1e-6) and hdi[-1] == pytest.approx(1, abs=1e-6)
    if tab == "architecture":
        splits = next(t for t in data if t.get("name") == MSE_NAME)["x"]
        assert splits == ["8×1", "4×2", "2×4", "1×8"]
    if tab == "weighting":
        # the reference lines are named in the legend (that chart may be drawn after the one waited for)
        wait_chart(page, "wt-rho")
        names = page.evaluate(
            "() => document.querySelector('[id*=\"wt-rho\"] .js-plotly-plot').data.map(t => t.name || '')"
        )
        assert any(re.search(r"your ρ = 0\.5", n) for n in names), names
    screenshot(page, tab)


def test_an_unreachable_api_reads_as_a_message_not_a_broken_page(page: Any) -> None:
    """`headdiv dashboard` alone, pointed at a port where nothing listens."""
    with dashboard_against_a_dead_api() as url:
        page.goto(f"{url}/?H=3")
        wait_text(page, "#sim-status", "the API is unavailable")
        assert "error" in (page.get_attribute("#sim-status", "class") or "")
        assert slider_value(page, "H") == 3  # the page itself works
        assert text(page, "#hl-mse") == "—"


def test_phi_is_disabled_while_tokens_are_iid(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&dependence=ar1&phi=0.5")
    page.wait_for_function("() => { const e = document.querySelector('#sc-phi'); return e && !e.disabled; }")
    page.goto(f"{server_url}/?tab=ensemble")
    page.wait_for_function("() => { const e = document.querySelector('#sc-phi'); return e && e.disabled; }")
    # (inside the closed "Advanced scenario" panel: read as text, not as what is rendered)
    page.wait_for_function("() => document.querySelector('#why-phi').textContent.includes('i.i.d. tokens')")
