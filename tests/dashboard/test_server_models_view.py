"""The Real models view offers the server's own models (HEADDIV_MODELS_DIR, the Hugging Face cache) and a
link reopens one (`smodel=`), drawn from the server's measurement."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headdiv.server.main import create_app
from headdiv.server.server_settings import ServerSettings
from tests.server.helpers import ServerThread, free_port
from tests.test_model_layouts import FAMILIES, hdi_of, saved

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def wait_status(page: Any, words: str) -> None:
    page.wait_for_function(
        "(w) => { const s = document.getElementById('mdl-status'); return !!s && s.innerText.includes(w); }",
        arg=words,
        timeout=120_000,
    )


@pytest.fixture(scope="module")
def shelf_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[float]]]:
    shelf = tmp_path_factory.mktemp("models")
    model = saved("distilbert", shelf / "tiny-distilbert")
    saved("bert", shelf / "tiny-bert")  # a second model to compare with
    expected = [hdi_of(k, 4) for k in FAMILIES["distilbert"].keys(model)[""]]
    port = free_port()
    settings = ServerSettings(redis_url=None, warm_up=False, warm_start=False, port=port, models_dir=shelf)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_CACHE", str(Path(shelf) / "no-hub"))
        with ServerThread(create_app(settings), port=port) as running:
            yield running.url, expected


def test_a_model_on_the_server_is_offered_drawn_and_reopened_by_its_link(
    page: Any, shelf_server: tuple[str, list[float]]
) -> None:
    url, expected = shelf_server
    page.goto(f"{url}/?tab=models")
    wait_status(page, "built-in")
    page.wait_for_selector("#mdl-local-list option[value='dir:tiny-distilbert']", state="attached")
    page.fill("#mdl-local", "dir:tiny-distilbert")
    page.press("#mdl-local", "Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('smodel') === 'dir:tiny-distilbert'")
    wait_status(page, "model on this server dir:tiny-distilbert")
    link = page.url
    page.goto("about:blank")
    page.goto(link)  # the link reopens it
    wait_status(page, "model on this server dir:tiny-distilbert")
    drawn = page.wait_for_function(
        "(n) => { const g = document.querySelector('#view-models .js-plotly-plot');"
        " const t = g && g._fullData && g._fullData[0]; return t && t.y && t.y.length === n && Array.from(t.y); }",
        arg=len(expected),
    ).json_value()
    assert drawn == pytest.approx(expected, abs=1e-9)  # the bars are the model's key HDI per layer


def test_two_models_are_compared_on_the_same_axes_from_a_link(page: Any, shelf_server: tuple[str, list[float]]) -> None:
    """`smodel=` and `cmodel=`: both models measured by the server, drawn on one chart (each beside its
    baseline), each one's layers x heads diversity, a sentence read from those numbers, and the link
    reopens all of it; an unknown second model is one line, the first model's charts stay."""
    url, expected = shelf_server
    link = f"{url}/?tab=models&smodel=dir:tiny-distilbert&cmodel=dir:tiny-bert"
    page.goto(link)
    page.wait_for_selector("#mdl-cmp-charts", state="visible", timeout=120_000)
    traces = page.wait_for_function(
        "() => { const g = document.querySelector('#mdl-cmp-charts .js-plotly-plot');"
        " return g && g.data && g.data.length === 4 && g.data.map((t) => [t.name, Array.from(t.y)]); }"
    ).json_value()
    assert traces[0][0] == "dir:tiny-distilbert: key HDI" and traces[0][1] == pytest.approx(expected, abs=1e-9)
    assert traces[2][0] == "dir:tiny-bert: key HDI"
    verdict = page.inner_text("#mdl-cmp-verdict")
    assert "more diverse" in verdict or "no clear difference" in verdict
    heat = page.wait_for_function(
        "() => { const g = document.querySelectorAll('#mdl-cmp-charts .js-plotly-plot')[2];"
        " return g && g.data && g.data.length && g.data[0].z; }"
    ).json_value()
    assert len(heat) == 2 and len(heat[0]) == 4  # tiny-bert: 2 layers x 4 heads
    page.fill("#mdl-compare", "dir:nothing-here")
    page.press("#mdl-compare", "Enter")
    page.wait_for_function(
        "() => /Compare with dir:nothing-here: /.test(document.getElementById('mdl-cmp-status').innerText)"
    )
    assert page.locator("#mdl-cmp-charts").is_hidden() and page.locator("#mdl-charts").is_visible()
