"""The page's own computation: a simulation of the scenario in the sidebar, whatever the tab.

Its result fills the header's numbers and the views that declare `shows_simulation`.
"""

from __future__ import annotations

from typing import Any

from headdiv.dashboard.state import State


def simulation_request(state: State) -> tuple[str, dict[str, Any]]:
    """The request behind the header (and the views drawing the simulation): the scenario itself."""
    return "/simulations", state.scenario()
