"""The interface every dashboard view implements.

A view is a tab of the dashboard. It contributes three things and nothing else:

- `layout(state)`: its components, built once at start-up from the default `PageState` (the URL's values
  are pushed into the controls afterwards by the app's one URL-sync callback, so a layout never reads
  the URL itself);
- `register_callbacks(app, client)`: its callbacks, which read the validated state from the
  `dcc.Store` with id `STATE_STORE` (never the raw URL) and talk to the API only through `client`;
- `url_params`: the view's own URL parameters (`Param`s whose `component` ids live in its layout); the
  registry in `headdiv/dashboard/page/url_state.py` merges them with the scenario keys and the global flags, and
  rejects duplicate names at start-up;
- `shows_simulation`: whether it draws the page's simulation (the store `SIM_RESULT_STORE`), so its
  body is dimmed while that simulation runs.

Keeping views behind this small surface is why a view can be added, removed or tested alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dash import Dash
from dash.development.base_component import Component

from headdiv.dashboard.drawing.view_jobs import Request, ViewJob
from headdiv.dashboard.page.component_ids import SIM_RESULT_STORE, STATE_STORE
from headdiv.dashboard.page.url_state import PageState, Param
from headdiv.i18n import _

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from headdiv.client import ApiClient
    from headdiv.dashboard.drawing.live import LivePart

__all__ = ["SIM_RESULT_STORE", "STATE_STORE", "Ignores", "PageState", "Param", "Reasons", "Request", "View", "ViewJob"]

Reasons = Mapping[str, str]
"""Scenario key -> the one line shown beside its disabled control."""


@dataclass(frozen=True)
class Ignores:
    """Scenario keys a view ignores depending on the page state (the axes a surface sweeps, the initial
    heads a training starts from). The app wires a disabled state for every key in `keys` once at start-up
    and asks `reasons` which of them apply at each state, so `reasons` may only name keys of `keys`."""

    keys: tuple[str, ...]
    reasons: Callable[[PageState], Reasons]


@dataclass(frozen=True)
class View:
    """One tab: id (the `tab` URL value), label, layout builder, callback registrar, URL params."""

    id: str
    label: str
    layout: Callable[[PageState], Component]
    register_callbacks: Callable[[Dash, ApiClient], None]
    url_params: list[Param] = field(default_factory=list)
    description: str = ""
    """One line shown under the tab bar (what the view is for)."""
    charts: tuple[str, ...] = ()
    """Its charts by name (`CHARTS` in its module): the `graph(name)`s of its layout, the figures its callbacks
    and live parts draw (a test holds the three together)."""
    shows_simulation: bool = False
    """True when the view draws the page's simulation result (its body dims while that runs)."""
    jobs: tuple[ViewJob, ...] = ()
    """The jobs the view runs while it is shown."""
    live: tuple[LivePart, ...] = ()
    """Its computations and their figures, which the page fetches for a state while a slider moves (`live.py`)."""
    still: Callable[[PageState, ApiClient], Mapping[str, go.Figure]] | None = None
    """Its charts for a state, computed to the end, by chart name: what a page without a server shows
    (`standalone/`). A view with `live` parts needs none: their figures are the same charts."""
    ignores: Reasons | Ignores = field(default_factory=dict)
    """Scenario keys the view does not use, each with the one line shown beside its control, which the
    app disables while the view is shown (a control that silently does nothing misleads): a constant
    mapping, or `Ignores` when what the view uses depends on its own state."""

    @property
    def exportable(self) -> bool:
        """Whether its charts can be written as a page that works without a server (`standalone/`)."""
        return bool(self.live) or self.still is not None

    @property
    def ignorable(self) -> tuple[str, ...]:
        """Every key the view may ignore in some state."""
        return self.ignores.keys if isinstance(self.ignores, Ignores) else tuple(self.ignores)

    def ignored(self, state: PageState) -> Reasons:
        """The keys the view ignores in `state`, each with its reason."""
        if isinstance(self.ignores, Ignores):
            return self.ignores.reasons(state)  # written in the page's language by the view's function
        return {key: _(why) for key, why in self.ignores.items()}  # reasons marked N_ where the view is defined
