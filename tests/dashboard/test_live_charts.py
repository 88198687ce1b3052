"""The live charts' endpoint (`headdiv/dashboard/drawing/live.py`) against the embedded server: one answer per state
with every chart of the view, drawn by the view's own figure builders, once per state, refused with the
registry's or the API's one-line reason."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import plotly.io as pio
import pytest

from headdiv.dashboard.drawing import live as live_module
from headdiv.dashboard.drawing.live import LARGE_FONTS, FigureCache, figure_key
from headdiv.dashboard.page.sidebar_simulation import headline
from headdiv.dashboard.page.url_state import PageState
from headdiv.dashboard.views import ensemble_view as ensemble
from headdiv.plumbing.kept import code_digest, kept_dir
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.results.simulation_results import SimulationResult

SMALL = f"replicates=20&queries=16&seed={secrets.randbelow(10**6)}"
"""Cheap scenarios, with a seed of this run's own so that no other test has drawn them already."""


def live(url: str, query: str, **headers: str) -> httpx.Response:
    return httpx.get(f"{url}/_live?{query}", headers=headers, timeout=60)


def test_one_answer_holds_every_chart_of_the_view_as_its_own_builders_draw_it(server_url: str) -> None:
    query = f"tab=ensemble&theta=33&{SMALL}"
    first = settled(server_url, query)  # a busy host may answer 202 (computing) before the chart is drawn
    assert first.status_code == 200, first.text
    (answer,) = first.json()["parts"]
    assert set(answer["charts"]) == set(ensemble.CHARTS)
    # the same figures the view's Dash callback draws from the API's result for that scenario
    job = httpx.post(
        f"{server_url}/api/v1/simulations",
        params={"wait": 30},
        json={"theta": 33, **{k: int(v) for k, v in (p.split("=") for p in SMALL.split("&"))}},
    ).json()
    result = SimulationResult.model_validate(job["result"])
    drawn = ensemble._live(result, PageState({"matrix": "correlation"}))
    for name, fig in drawn.items():
        assert json.loads(pio.to_json(fig))["data"] == answer["charts"][name]["data"], name
    assert answer["headline"] == headline(result)["headline"]


def test_a_state_is_drawn_once_then_served_from_the_cache_and_revalidated(server_url: str) -> None:
    query = f"tab=ensemble&theta=34&{SMALL}"
    first = settled(server_url, query)
    again = live(server_url, query)
    assert first.headers["x-headdiv-live"] == "drawn" and again.headers["x-headdiv-live"] == "cached"
    assert first.content == again.content
    etag = again.headers["etag"]
    assert live(server_url, query, **{"if-none-match": etag}).status_code == 304
    # another figure variant of the same computation is another resource
    other = live(server_url, query + "&matrix=covariance")
    assert other.headers["etag"] != etag and other.headers["x-headdiv-live"] == "drawn"
    # a page's language is part of its state (a follower in Arabic asks with lang=ar), never a refusal
    spoken = live(server_url, query + "&lang=ar")
    assert spoken.status_code == 200 and spoken.json()["parts"], spoken.text


def test_large_fonts_come_with_the_figure(server_url: str) -> None:
    (part,) = live(server_url, f"tab=weighting&theta=35&{SMALL}&large=1").json()["parts"]
    layout = part["charts"]["wt-schemes"]["layout"]
    assert layout["font"]["size"] == LARGE_FONTS["font.size"]
    assert layout["title"]["font"]["size"] == LARGE_FONTS["title.font.size"]


@pytest.mark.parametrize(
    ("query", "status", "says"),
    [
        (f"tab=ensemble&theta=300&{SMALL}", 422, "angle θ between heads"),  # the registry's own line
        (f"tab=ensemble&H=64&d_k=256&n=65536&replicates=100000&{SMALL}", 422, "replicates"),
        (f"tab=surfaces&{SMALL}", 204, None),  # a view without live charts: nothing to draw
    ],
    ids=["angle-out-of-range", "too-many-replicates", "no-live-charts"],  # the same in every process of a run
)
def test_refusals_are_one_line_and_never_a_500(server_url: str, query: str, status: int, says: str | None) -> None:
    resp = live(server_url, query)
    assert resp.status_code == status, resp.text
    if says is not None:
        message = resp.json()["message"]
        assert says in message and "\n" not in message and "Traceback" not in message


def test_the_cache_is_bounded_by_bytes_and_counts_what_it_drew() -> None:
    cache = FigureCache(limit=100)
    for i in range(5):
        cache.put(f"k{i}", b"x" * 40)
    assert cache.drawn == 5
    assert cache.get("k0") is None and cache.get("k4") == b"x" * 40  # the oldest went first
    cache.put("big", b"x" * 101)  # larger than the whole cache: drawn, not kept
    assert cache.get("big") is None and cache.drawn == 6


def test_an_opened_state_is_kept_for_the_next_start_and_a_passing_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEADDIV_CACHE_DIR", str(tmp_path))
    get_engine_settings.cache_clear()
    try:
        first = FigureCache(kept="figures")
        first.put("opened", b'{"key":"opened"}', keep_on_disk=True)
        first.put("passed", b'{"key":"passed"}')
        later = FigureCache(kept="figures")  # the next start
        assert later.get("opened") == b'{"key":"opened"}' and later.get("passed") is None
        assert later.drawn == 0
        assert FigureCache().get("opened") is None  # a cache that keeps nothing reads nothing either
        monkeypatch.setattr(live_module, "code_digest", lambda: "0123456789abcdef")  # the sources changed
        assert FigureCache(kept="figures").get("opened") is None
    finally:
        get_engine_settings.cache_clear()


def test_the_server_keeps_the_state_a_page_opens_on_not_a_sliders_passing_value(server_url: str) -> None:
    folder = kept_dir()
    assert folder is not None
    figures = folder / "figures"

    def names() -> set[str]:
        return {p.name for p in figures.glob("*.json")} if figures.is_dir() else set()

    before = names()
    assert settled(server_url, f"tab=ensemble&theta=43&{SMALL}").status_code == 200
    added = names() - before
    assert len(added) == 1 and next(iter(added)).startswith(code_digest() + "-"), added
    moved = settled(server_url, f"tab=ensemble&theta=41&{SMALL}", **{"x-headdiv-move": "1"})
    assert moved.status_code == 200 and moved.headers["x-headdiv-live"] == "drawn"
    assert names() - before == added


def test_the_key_is_the_content_not_the_spelling() -> None:
    req: Any = ("/simulations", {"theta": 30, "H": 8})
    same: Any = ("/simulations", {"H": 8, "theta": 30})
    assert figure_key("ensemble", req, {"large": False}) == figure_key("ensemble", same, {"large": False})
    assert figure_key("ensemble", req, {"large": True}) != figure_key("ensemble", req, {"large": False})
    assert figure_key("weighting", req, {"large": False}) != figure_key("ensemble", req, {"large": False})


def test_a_view_of_several_computations_answers_each_and_keeps_the_unmoved_ones_key(server_url: str) -> None:
    """Foundations: the d_k lesson and the temperature lesson are parts of one answer; moving the temperature
    changes the softmax part only, so the page leaves the scaling charts alone."""
    one = live(server_url, "tab=foundations&sm_T=2&sc_dk=32").json()["parts"]
    two = live(server_url, "tab=foundations&sm_T=4&sc_dk=32").json()["parts"]
    assert [set(p["charts"]) for p in one] == [{"fd-scaling", "fd-cosine"}, {"fd-softmax", "fd-softmax-entropy"}]
    assert one[0]["key"] == two[0]["key"] and one[1]["key"] != two[1]["key"]
    assert one[1]["charts"]["fd-softmax"]["data"] != two[1]["charts"]["fd-softmax"]["data"]
    refused = live(server_url, "tab=foundations&sm_T=0")
    assert refused.status_code == 422 and "temperature" in refused.json()["message"], refused.text


def settled(url: str, query: str, deadline_s: float = 120.0, **headers: str) -> httpx.Response:
    """The live answer once its computation is done (202 while a sweep still runs)."""
    import time

    end = time.monotonic() + deadline_s
    while True:
        resp = live(url, query, **headers)
        if resp.status_code != 202 or time.monotonic() > end:
            return resp
        time.sleep(0.25)


def test_the_sweep_views_follow_their_angles_slider(server_url: str) -> None:
    """Diversity answers both regimes' charts in one answer; Covariance's pair shown is a drawing choice of
    the same computation (another resource, not another job); both sliders are announced to the page."""
    div = settled(server_url, f"tab=diversity&dn=3&{SMALL}")
    assert div.status_code == 200, div.text
    assert [set(p["charts"]) for p in div.json()["parts"]] == [{"div-mse", "div-corr"}, {"divs-mse", "divs-corr"}]
    mean = settled(server_url, f"tab=covariance&cv_n=2&H=3&{SMALL}")
    assert mean.status_code == 200, mean.text
    pair = live(server_url, f"tab=covariance&cv_n=2&H=3&cv_pair=2&{SMALL}")
    assert pair.status_code == 200 and pair.headers["x-headdiv-live"] == "drawn"
    ((a,), (b,)) = (mean.json()["parts"], pair.json()["parts"])
    assert set(a["charts"]) == {"cv-split", "cv-bound", "cv-pairs"} and a["key"] != b["key"]
    assert a["charts"]["cv-pairs"]["data"] == b["charts"]["cv-pairs"]["data"]
    assert a["charts"]["cv-split"]["data"] != b["charts"]["cv-split"]["data"]
    page = httpx.get(server_url, timeout=30).text
    meta = json.loads(page.split('name="headdiv-live" content="')[1].split('"')[0].replace("&quot;", '"'))
    assert {"diversity", "covariance"} <= set(meta["tabs"])
    assert meta["controls"]["div-n"][0] == "dn" and meta["controls"]["cv-n"][0] == "cv_n"
