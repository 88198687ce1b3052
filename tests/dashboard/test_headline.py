"""The header's numbers follow the page's one number rule (`figures.theme.fmt`): Python formats them and
the browser only places them, so there is no second formatter to drift."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.sidebar_simulation import headline, simulation_request
from headdiv.dashboard.views import VIEWS
from headdiv.figures.theme import fmt, fmt_se
from headdiv.schemas.results.simulation_results import SimulationResult


def test_the_headline_is_the_number_rule_applied_to_the_result() -> None:
    numbers = {"mse": 0.41234, "mse_se": 0.0131, "hdi": 0.75, "effective_heads": 3.99, "mean_correlation": 0.0195}
    result = SimulationResult.model_construct(**numbers)  # the header reads these fields only
    assert headline(result) == {"headline": ["0.412 ± 0.013", "0.75", "3.99", "0.0195"]}
    assert headline(result)["headline"] == [fmt_se(0.41234, 0.0131), fmt(0.75), fmt(3.99), fmt(0.0195)]


@pytest.mark.parametrize("missing", [None, math.nan, math.inf])
def test_a_missing_number_reads_as_a_dash_never_nan(missing: Any) -> None:
    numbers = {"mse": missing, "mse_se": None, "hdi": missing, "effective_heads": missing, "mean_correlation": None}
    shown = headline(SimulationResult.model_construct(**numbers))["headline"]
    assert shown == ["—", "—", "—", "—"]


@pytest.mark.browser
def test_the_browser_shows_what_python_formatted(page: Any, server_url: str) -> None:
    search = "?H=8&theta=60&noise=0.7"
    path, body = simulation_request(build_registry(VIEWS).parse(search))
    result = httpx.post(f"{server_url}/api/v1{path}", params={"wait": 60}, json=body, timeout=90).json()["result"]
    expected = headline(SimulationResult.model_validate(result))["headline"]
    page.goto(f"{server_url}/{search}")
    page.wait_for_function("(want) => document.querySelector('#hl-mse')?.innerText.trim() === want", arg=expected[0])
    shown = [page.inner_text(f"#{sid}").strip() for sid in ("hl-mse", "hl-hdi", "hl-heff", "hl-corr")]
    assert shown == expected
