"""The headdiv dashboard: a Dash app that talks to the headdiv API over HTTP (`create_dash_app`).

It imports nothing of the compute side or the server (CONTRIBUTING.md, "Layout"): its vocabulary comes from
`headdiv.schemas`, the job state and kinds from `headdiv.jobs`, the charts from `headdiv.figures`, and every
computation over HTTP, so it behaves the same embedded in `headdiv serve` and served alone (`headdiv dashboard`).

Its rooms:
- `page`: the page frame, its controls and its state, all in the URL (the one registry of URL parameters).
- `views`: the tabs, one module each, and their registry in tab order.
- `drawing`: the computations through the API, and the charts drawn from them once for every visitor.
- `teaching`: tours, presets, polls and the lecture hall.
- `standalone`: a tour or a view as one self-contained HTML file that works offline (`headdiv export`).

Beside them: assets/ (the page's JavaScript and CSS), explanations/ (the Markdown beside each view and
lesson) and vendor/ (the vendored scripts).

This module is the dashboard's public face: the other doors (the server, `import headdiv`) use the names
in `__all__` and nothing inside the rooms, so the rooms can change without the doors noticing.
"""

from __future__ import annotations

from headdiv.dashboard.drawing.export import cli_call, python_call
from headdiv.dashboard.drawing.upload_relay import upload_url
from headdiv.dashboard.drawing.warm import warm_requests
from headdiv.dashboard.page.app import build_registry, create_dash_app
from headdiv.dashboard.page.callback_boundary import callback_boundary
from headdiv.dashboard.page.script_words import inline_words
from headdiv.dashboard.page.sidebar_simulation import simulation_request
from headdiv.dashboard.standalone.buttons import EXPORT_PATH
from headdiv.dashboard.teaching.poll_links import qr_data_uri, unreachable_note
from headdiv.dashboard.teaching.tours import TOURS, expand
from headdiv.dashboard.views import VIEWS, View

__all__ = [
    "EXPORT_PATH",
    "TOURS",
    "VIEWS",
    "View",
    "build_registry",
    "callback_boundary",
    "cli_call",
    "create_dash_app",
    "expand",
    "inline_words",
    "python_call",
    "qr_data_uri",
    "simulation_request",
    "unreachable_note",
    "upload_url",
    "warm_requests",
]
