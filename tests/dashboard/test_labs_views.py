"""The covariance lab's and the head clusters' charts, sentences and exports on real results, no browser."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import pytest

from headdiv.dashboard.drawing.export import reproduce_commands, result_to_csv
from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views.covariance_view import covariance_request
from headdiv.dashboard.views.models_view import prune_forecast
from headdiv.figures import covariance_charts as cfigs
from headdiv.figures import model_charts as mfigs
from headdiv.figures.verdict_sentences import covariance_verdict
from headdiv.schemas.results.lab_results import CovarianceResult
from headdiv.workers.models import builtin_hdi, list_builtins
from headdiv.workers.runner import run_job
from tests.dashboard.conftest import drawn_numbers


@pytest.fixture(scope="module")
def lab() -> dict[str, Any]:
    body = {"thetas": [0, 45, 90], "base": {"H": 3, "d_k": 2, "n": 48, "queries": 8, "replicates": 30, "noise": 1.0}}
    return json.loads(json.dumps(run_job("covariance", body).model_dump(mode="json")))


def test_covariance_charts_draw_finite_numbers(lab: dict[str, Any]) -> None:
    for pair in (0, 1, 3, 99):
        result = CovarianceResult.model_validate(lab)
        for fig in (cfigs.split_over_theta(result, pair), cfigs.bound_vs_truth(result, pair)):
            numbers = drawn_numbers(fig)
            assert numbers and all(math.isfinite(x) for x in numbers)
    assert "heads 1 and 3" in cfigs.split_over_theta(CovarianceResult.model_validate(lab), 2).layout.title.text
    assert drawn_numbers(cfigs.pair_heatmap(CovarianceResult.model_validate(lab)))


def test_covariance_verdict_names_the_three_numbers(lab: dict[str, Any]) -> None:
    text = covariance_verdict(CovarianceResult.model_validate(lab))
    assert text.startswith("At θ = 90°") and "shared noise" in text and "Lemma 4.1" in text


def test_covariance_csv_is_a_table_and_reproduce_names_the_command(lab: dict[str, Any]) -> None:
    rows = list(csv.DictReader(io.StringIO(result_to_csv(CovarianceResult.model_validate(lab)))))
    assert len(rows) == 3 * 3  # angles x pairs
    assert {"theta", "pair", "measured", "shared_noise", "signal", "bound"} <= set(rows[0])
    path, body = covariance_request(build_registry(VIEWS).parse("?tab=covariance&cv_n=4"))
    assert path == "/labs/covariance" and body["thetas"] == [0, 30, 60, 90]
    assert "headdiv covariance" in reproduce_commands("http://x", path, body)


def test_preset_and_url_params_of_the_labs_parse_cleanly() -> None:
    registry = build_registry(VIEWS)
    state = registry.parse("?tab=covariance&cv_n=5&cv_pair=2&mheads=query")
    assert state.notices == [] and (state["cv_n"], state["cv_pair"], state["mheads"]) == (5, 2, "query")


@pytest.mark.skipif(not any(b.available for b in list_builtins()), reason="no built-in model installed")
def test_cluster_charts_and_forecast_on_the_built_in_model() -> None:
    result = builtin_hdi(list_builtins()[0].name)
    for which in ("key", "query"):
        for fig in (
            mfigs.dendrogram_figure(result, 3, which),
            mfigs.clustered_heatmap(result, 3, which),
            mfigs.contribution_bars(result, 3, which),
        ):
            numbers = drawn_numbers(fig)
            assert numbers and all(math.isfinite(x) for x in numbers)
        assert prune_forecast(result, 3, which).startswith("Layer 3: pruning")


def test_the_noise_level_is_a_legend_entry_not_text_over_the_curves(lab: dict[str, Any]) -> None:
    fig = cfigs.split_over_theta(CovarianceResult.model_validate(lab))
    assert not fig.layout.annotations
    assert any((t.name or "").startswith("σ²/n = ") for t in fig.data)
