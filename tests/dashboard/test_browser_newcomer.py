"""What a new user trips on, in real headless Chromium (the app `headdiv serve` runs): a phone's first screen
(390x844) shows the view, with Real models' model and layer just above the charts they change; the ▶ beside a
log slider covers none of its marks; the last step of a tour ends it or goes on to the next tour, and a tour's
link to an explanation scrolls to it; opening Training lab tells no preset's story (its button does).

Screenshots go to test-artifacts/ (ignored by git)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import need
from tests.dashboard.conftest import ARTIFACTS
from tests.dashboard.test_browser import wait_chart, wait_idle, wait_text

pytestmark = [pytest.mark.timeout(300), pytest.mark.browser]
PHONE = {"width": 390, "height": 844}
SMALL = "replicates=20&queries=16"
SHOWN = "(shown) => (getComputedStyle(document.getElementById('tour-panel')).display !== 'none') === shown"
BOX = """(sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect();
  return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right}; }"""


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Any]:
    """One phone-sized page for the file's phone checks."""
    context = browser.new_context(viewport=PHONE)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.evaluate(BOX, selector)
    assert found is not None, f"nothing matches {selector}"
    return dict(found)


def chart(name: str) -> str:
    return f'[id*=\'"name":"{name}"\'] .js-plotly-plot'


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"newcomer-{name}.png"))


def test_real_models_on_a_phone_has_the_model_and_the_layer_just_above_its_charts(phone: Any, server_url: str) -> None:
    # measured once outside the page (the server caches it), so a loaded machine cannot time the page out
    warm = httpx.get(f"{server_url}/api/v1/models/builtin/all-MiniLM-L6-v2/hdi", timeout=120)
    if warm.status_code == 404:
        need(f"the built-in model is not available: {warm.json().get('detail')}")
    phone.goto(f"{server_url}/?tab=models&{SMALL}")
    wait_chart(phone, "mdl-layers", "data.length >= 3")
    shot(phone, "models-phone")
    first = box(phone, chart("mdl-layers"))
    model, layer = box(phone, "#view-models .ctl-model"), box(phone, "#view-models .ctl-layer")
    assert model["bottom"] <= first["top"] and layer["bottom"] <= first["top"], (model, layer, first)
    assert first["top"] - model["top"] < PHONE["height"]  # the chooser and the chart it changes: one screen
    assert model["top"] < PHONE["height"]  # on the first screen, not after every chart
    # the idle scenario (a model is measured, not simulated) goes after the view, not before it
    assert box(phone, ".scenario-part")["top"] > first["bottom"]
    # the header's HDI is the simulation's, the chart's the model's: the page says which is which, up front
    said = box(phone, "#view-models .view-description")
    assert said["bottom"] <= first["top"]
    assert "The header's MSE, HDI, H_eff and ρ̄ are the sidebar's simulated heads" in phone.inner_text(
        "#view-models .view-description"
    )


def test_surfaces_and_foundations_on_a_phone_show_a_chart_on_the_first_screen(phone: Any, server_url: str) -> None:
    phone.goto(f"{server_url}/?tab=surfaces&{SMALL}&sxv=0,90&syv=2,4")
    wait_chart(phone, "surf-heat")
    wait_idle(phone, "surf")
    shot(phone, "surfaces-phone")
    assert box(phone, chart("surf-heat"))["top"] < PHONE["height"]
    phone.goto(f"{server_url}/?tab=foundations&{SMALL}")
    wait_chart(phone, "fd-scaling")
    shot(phone, "foundations-phone")
    first = box(phone, ".tab-body .js-plotly-plot")
    assert first["top"] < PHONE["height"] and box(phone, ".scenario-part")["top"] > first["bottom"]
    # one line says why the scenario is not up front
    description = box(phone, "#view-foundations .view-description")
    assert description["bottom"] <= first["top"]
    assert "Each lesson has its own controls" in phone.inner_text("#view-foundations .view-description")


OVERLAPS = """(c) => {
  const b = document.querySelector('.ctl-' + c + ' .play-btn').getBoundingClientRect();
  return [...document.querySelectorAll('.ctl-' + c + ' .dash-slider-mark')].map(m => {
    const r = m.getBoundingClientRect();
    const apart = r.right <= b.left || r.left >= b.right || r.bottom <= b.top || r.top >= b.bottom;
    return [m.textContent, apart, Math.round(r.right), Math.round(b.left)];
  });
}"""


def test_the_play_button_covers_no_mark_of_its_slider(phone: Any, server_url: str) -> None:
    phone.goto(f"{server_url}/?{SMALL}")
    phone.wait_for_selector(".ctl-n .dash-slider-mark")
    shot(phone, "sliders-phone")
    seen = []
    for name in ("H", "d_k", "n", "theta"):
        marks = phone.evaluate(OVERLAPS, name)
        assert marks, f"{name} has no marks"
        for text, apart, right, button in marks:
            seen.append(text)
            assert apart, f"{name}'s mark {text} (right edge {right}) runs under its ▶ (left edge {button})"
    assert "65536" in seen and "256" in seen  # the log sliders' last marks, the widest
    wait_idle(phone, "sim")


def test_the_last_step_leads_to_the_next_tour_and_links_reach_the_explanation(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tour=why-many-heads&step=5&{SMALL}&dn=4")
    wait_text(page, "#tour-count", r"^step 5 of 5$")
    page.wait_for_selector("#tour-next-tour")
    assert "When diversity hurts" in page.inner_text("#tour-next-tour")
    assert page.get_attribute("#tour-end", "href") == "?tab=diversity&target=constant&H=8"
    wait_idle(page, "div")
    wait_idle(page, "divs")
    page.click("#tour-next-tour")
    wait_text(page, "#tour-count", r"^step 1 of 4$")
    assert "tour=when-diversity-hurts" in page.url and "A shared signal" in page.inner_text("#tour-step-title")
    assert page.locator("#tour-end").count() == 0  # a first step goes on with next →
    page.click("#tour-narrative a.explain-ref")
    page.wait_for_function(
        "() => { const r = document.getElementById('explain-ensemble').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight; }"
    )
    assert "tour=when-diversity-hurts" in page.url  # reading the explanation does not leave the tour
    wait_text(page, "#tour-count", r"^step 1 of 4$")
    wait_idle(page, "sim")


def test_opening_training_lab_tells_no_preset_story_but_its_button_does(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=training")  # every value the training preset sets is this tab's default
    wait_text(page, "#tr-verdict", r"^Over \d+ steps")
    assert page.evaluate(SHOWN, False), "opening the tab told the story of a preset nobody chose"
    page.click(".preset:has-text('Does training find orthogonal heads?')")
    page.wait_for_function(SHOWN, arg=True)
    assert page.inner_text("#tour-step-title").strip() == "Does training find orthogonal heads?"
    page.click("#tabs >> text=Weighting")
    page.wait_for_function(SHOWN, arg=False)
    page.click("#tabs >> text=Training lab")  # back by its tab: the click was left behind with its state
    wait_text(page, "#tr-verdict", r"^Over \d+ steps")
    assert page.evaluate(SHOWN, False)
    wait_idle(page, "tr")
    # chosen from a tour's step: the panel turns from the tour to the preset's story, and stays on it
    page.goto(f"{server_url}/?tour=why-many-heads&step=1&{SMALL}")
    wait_text(page, "#tour-count", r"^step 1 of")
    page.click(".preset:has-text('Does training find orthogonal heads?')")
    wait_text(page, "#tr-verdict", r"^Over \d+ steps")
    wait_text(page, "#tour-step-title", r"^Does training find orthogonal heads\?$")
    wait_idle(page, "tr")
    assert page.evaluate(SHOWN, True) and page.inner_text("#tour-count").strip() == ""
