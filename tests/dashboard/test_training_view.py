"""The Training lab tab: its request is the API's, its figures draw a real training's numbers (finite, every
recorded step), the verdict says what the run answers, and in Chromium the tab trains and draws."""

from __future__ import annotations

from typing import Any

import pytest

from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views import training_view as view
from headdiv.figures import training_charts as figs
from headdiv.figures.verdict_sentences import training_verdict
from headdiv.schemas.results.lab_results import TrainingResult
from headdiv.schemas.training_request import TrainingRequest
from headdiv.workers.runner import run_job
from tests.dashboard.conftest import drawn_numbers

TINY = {"base": {"H": 3, "d_k": 2, "n": 32, "queries": 8, "replicates": 6}, "steps": 6, "record_every": 2, "batch": 2}


@pytest.fixture(scope="module")
def trained() -> dict[str, Any]:
    return run_job("training", TINY, dtype="float64").model_dump(mode="json")


def test_the_tab_asks_for_a_valid_training_with_its_options() -> None:
    registry = build_registry(VIEWS)
    state = registry.parse("?tab=training&trinit=orthogonal&tropt=sgd&trpen=0.5&trortho=0&trlearn=1&trsteps=40")
    assert state.notices == []
    path, body = view.training_request(state)
    req = TrainingRequest.model_validate(body)
    assert path == "/trainings"
    assert (req.init, req.optimizer, req.penalty, req.orthonormal, req.learn_weights, req.steps) == (
        "orthogonal",
        "sgd",
        0.5,
        False,
        True,
        40,
    )
    assert req.base.replicates <= view.HELD_OUT
    default = view.training_request(registry.parse("?tab=training"))[1]
    assert TrainingRequest.model_validate(default).model_dump() == TrainingRequest().model_dump()  # the API's default


def test_training_figures_draw_every_recorded_step(trained: dict[str, Any]) -> None:
    steps, result = trained["steps"], TrainingResult.model_validate(trained)
    assert steps == [0, 2, 4, 6]
    curves = figs.loss_and_hdi(result, 1)
    assert [t.name for t in curves.data] == ["training loss", "HDI"]
    assert list(curves.data[1].y) == pytest.approx(trained["hdi"])
    split = figs.mse_split(result)
    assert [t.name for t in split.data] == ["MSE", "Bias²", "Variance", "Covariance"]
    for frame in range(len(steps)):
        heat = figs.overlap_at(result, frame)
        assert f"step {steps[frame]}" in heat.layout.title.text
        assert heat.data[0].z[0][1] == pytest.approx(trained["overlap"][frame][0][1])
        bars = figs.angles_at(result, frame)
        assert len(bars.data) == 2 and list(bars.data[0].x) == ["h1·h2", "h1·h3", "h2·h3"]
        for fig in (heat, bars):
            assert all(abs(v) < 1e300 for v in drawn_numbers(fig))
    for fig in (curves, split):
        assert drawn_numbers(fig) and all(abs(v) < 1e300 for v in drawn_numbers(fig))


def test_verdict_says_what_the_run_answers(trained: dict[str, Any]) -> None:
    # the verdict reads steps, HDI, MSE, its standard error and λ only
    rising = TrainingResult.model_construct(
        steps=[0, 100], hdi=[0.2, 0.8], mse=[0.3, 0.2], mse_se=[0.0, 0.0], penalty_weight=0.0
    )
    assert training_verdict(rising) == (
        "Over 100 steps the HDI rose from 0.2 to 0.8, and the held-out MSE fell from 0.3 to 0.2 — gradient "
        "descent alone made the heads more diverse."
    )
    falling = training_verdict(
        TrainingResult.model_construct(steps=[0, 50], hdi=[0.8, 0.5], mse=[0.3, 0.4], mse_se=[0.0, 0.0])
    )
    assert "HDI fell from 0.8 to 0.5" in falling and "MSE rose" in falling
    assert "Not enough" in training_verdict(
        TrainingResult.model_construct(steps=[0], hdi=[None], mse=[0.3], mse_se=[0.0])
    )
    assert training_verdict(TrainingResult.model_validate(trained)).startswith("Over 6 steps the HDI")


def test_a_preset_opens_the_training_lab() -> None:
    registry = build_registry(VIEWS)
    preset = next(p for p in PRESETS if "tab=training" in p.query)
    state = registry.parse(preset.query)
    assert state.notices == [] and state["tab"] == "training"
    # the preset opens the API's default training: the run whose numbers docs/labs.md quotes
    assert (
        TrainingRequest.model_validate(view.training_request(state)[1]).model_dump() == TrainingRequest().model_dump()
    )


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_training_tab_trains_draws_and_plays_in_chromium(page: Any, server_url: str) -> None:
    from tests.dashboard.test_browser import chart_data, screenshot, wait_chart, wait_idle, wait_text

    page.goto(f"{server_url}/?tab=training&trsteps=12&trevery=3&trbatch=2&replicates=8&queries=16&n=64")
    wait_text(page, "#tr-verdict", r"^Over 12 steps the HDI")
    wait_idle(page, "tr")
    wait_chart(page, "tr-curves", "data.length == 2 && data[1].y.length == 5")
    wait_chart(page, "tr-mse")  # each chart's first data is drawn in a task of its own
    assert [t["name"] for t in chart_data(page, "tr-mse")] == ["MSE", "Bias²", "Variance", "Covariance"]
    wait_chart(page, "tr-overlap", "data[0].z.length == 4")
    # the slider shows the last recorded step; ▶ plays the steps from the first
    page.wait_for_function("() => /step 12/.test(document.querySelector('[id*=\"tr-overlap\"] .gtitle').textContent)")
    page.click("#tr-play-btn")
    page.wait_for_function(
        "() => /step [0-9]\\b/.test(document.querySelector('[id*=\"tr-overlap\"] .gtitle').textContent)"
    )
    page.wait_for_function("() => /step 12/.test(document.querySelector('[id*=\"tr-overlap\"] .gtitle').textContent)")
    wait_text(page, "#tr-play-btn", "▶")
    screenshot(page, "training")


def test_reproduce_commands_name_the_training_route_and_command() -> None:
    from headdiv.dashboard.drawing.export import reproduce_commands

    registry = build_registry(VIEWS)
    path, body = view.training_request(registry.parse("?tab=training&trpen=1"))
    text = reproduce_commands("http://127.0.0.1:8050", path, body)
    assert (
        "/api/v1/trainings" in text
        and "headdiv train" in text
        and '"penalty": 1.0' in text.replace('"penalty":1.0', '"penalty": 1.0')
    )


@pytest.mark.parametrize(("losses", "log"), [([3.5, 2.0, 1.2], False), ([4.0, 0.5, 0.3], True)])
def test_the_loss_axis_is_logarithmic_only_over_a_decade_or_more(losses: list[float], log: bool) -> None:
    """Within one decade a log axis shows one label or none; over more it keeps early and late steps readable."""
    result = TrainingResult.model_construct(steps=[0, 10, 20], loss=losses, hdi=[0.5, 0.6, 0.7])
    assert (figs.loss_and_hdi(result).layout.yaxis.type == "log") is log
