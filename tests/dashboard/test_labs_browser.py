"""The covariance lab in real headless Chromium (its screenshot lands in test-artifacts/)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dashboard.test_browser import chart_data, screenshot, wait_chart, wait_idle, wait_text

pytestmark = [pytest.mark.timeout(240), pytest.mark.browser]


def test_covariance_lab_runs_from_its_link(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=covariance&H=3&n=48&queries=8&replicates=30&cv_n=3&target=constant&noise=1")
    wait_chart(page, "cv-split", "data.length >= 3 && data[0].x.length === 3")
    wait_text(page, "#cv-verdict", "^At θ = 90°")
    names = [t.get("name") for t in chart_data(page, "cv-split")]
    assert any(n and n.startswith("measured") for n in names) and any(n and n.startswith("shared noise") for n in names)
    wait_idle(page, "cv")
    screenshot(page, "covariance")
