"""The page's own computation: a simulation of the scenario in the sidebar, whatever the tab.

Its result fills the header's numbers and the views that declare `shows_simulation`.
"""

from __future__ import annotations

from typing import Any

from headdiv.dashboard.page.url_state import PageState
from headdiv.figures.theme import fmt, fmt_se
from headdiv.schemas.results.simulation_results import SimulationResult


def simulation_request(state: PageState) -> tuple[str, dict[str, Any]]:
    """The request behind the header (and the views drawing the simulation): the scenario itself."""
    return "/simulations", state.scenario()


def headline(result: SimulationResult) -> dict[str, Any]:
    """The header's four numbers as the page shows them, formatted here by the page's one number rule
    (`figures.theme.fmt`), so the browser only places them: MSE ± its standard error, HDI, effective
    heads and the mean correlation between heads' errors."""
    return {
        "headline": [
            fmt_se(result.mse, result.mse_se),
            fmt(result.hdi),
            fmt(result.effective_heads),
            fmt(result.mean_correlation),
        ]
    }
