"""A view's charts for one page state, computed to the end: the same requests and figure builders as the
page (a view's `live` parts, or its `still`), so an exported file shows exactly what the dashboard draws."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.export import CLI_COMMANDS, cli_call, python_call
from headdiv.dashboard.drawing.live import drawn_to_the_end, with_large_fonts
from headdiv.dashboard.drawing.view_jobs import Request
from headdiv.dashboard.page.components import EXPLANATIONS
from headdiv.dashboard.page.url_state import PageState, UrlRegistry
from headdiv.dashboard.views.view_protocol import View


class NotExportable(ValueError):
    """A view whose charts have no still form yet (the message says which)."""


@dataclass(frozen=True)
class Snapshot:
    """What an exported page shows of a view at a state: its charts (name, figure JSON) in the page's order,
    the scenario's values, and the lines that compute it again."""

    view: View
    charts: list[tuple[str, dict[str, Any]]]
    scenario: list[tuple[str, str]]
    reproduce: list[str]


def _requests(view: View, state: PageState) -> list[Request]:
    reqs = [part.request(state) for part in view.live] or [job.build(state) for job in view.jobs]
    return [r for r in reqs if r is not None]


def figures(view: View, state: PageState, client: ApiClient) -> dict[str, go.Figure]:
    """Every chart of `view` at `state`, by chart name (the names its layout gives them)."""
    if view.still is not None:
        return dict(view.still(state, client))
    if not view.live:
        raise NotExportable(f"the {view.label} view cannot be exported as a page yet")
    return drawn_to_the_end(view.live, state, client)


def snapshot(view: View, state: PageState, registry: UrlRegistry, client: ApiClient) -> Snapshot:
    """The view's charts at `state` (with the projector's fonts when the state asks for large ones), its
    scenario (each value as a link writes it) and reproduce lines."""
    charts = []
    for name, fig in figures(view, state, client).items():
        charts.append((name, (with_large_fonts(fig) if state.get("large") else fig).to_plotly_json()))
    scenario = [(k, registry[k].dump(v)) for k, v in state.scenario().items()]
    reproduce = []
    for path, body in _requests(view, state):
        command = CLI_COMMANDS.get(path)
        if command is not None:
            reproduce += [cli_call(command, body), python_call(command, body)]
    return Snapshot(view, charts, scenario, reproduce)


def explanation_of(view: View) -> str | None:
    """The view's explanation (Markdown with TeX), when it has one."""
    path = EXPLANATIONS / f"{view.id}.md"
    return path.read_text(encoding="utf-8") if path.exists() else None
