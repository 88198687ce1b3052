"""The Real models view offers the server's own models (HEADDIV_MODELS_DIR, the Hugging Face cache) and a
link reopens one (`smodel=`), drawn from the server's measurement."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headdiv.server.main import create_app
from headdiv.server.settings import ServerSettings
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
