"""The headdiv dashboard: a Dash app that talks to the headdiv API over HTTP (`create_dash_app`).

It imports nothing of the compute side or the server (CONTRIBUTING.md, "Layout"): its vocabulary comes from
`headdiv.schemas`, the job state and kinds from `headdiv.jobs`, the charts from `headdiv.figures`, and every
computation over HTTP, so it behaves the same embedded in `headdiv serve` and served alone (`headdiv dashboard`).

The page:
- `app`: the Dash app: the page frame, the page-level callbacks and the views' callbacks.
- `page`: the page frame: the header with its live numbers, the scenario sidebar, the tabs holding the views.
- `views`: the tabs, one module each, and their registry in tab order.
- `ids`: component ids shared between the page frame and the views.
- `components`: small layout helpers every view uses (charts, explanations, exports).
- `controls`: the scenario's controls, built from the registry.
- `play`: a ▶ button beside a slider steps it through its range.
- `simulation`: the page's own simulation of the sidebar's scenario, whatever the tab.

Its state, all in the URL:
- `state`: the one typed registry of every URL parameter of the dashboard.
- `param`: one URL parameter (`Param`): its kind, default and bounds, how it reads and writes, its control.
- `url_sync`: the URL <-> controls callback, the one place where the page's state is read and written.
- `presets`: named scenarios that each tell one story (plain query strings).

Its computations, through the API:
- `api_client`: the dashboard's client of the API (`headdiv.client`), vouching for the browser.
- `jobs`: a view's API job: submit, poll with progress, cancel, keep the old figures meanwhile.
- `live`: charts that follow a moving slider, drawn once per page state and served to every browser.
- `upload_relay`: a model upload relayed to the API as it arrives, where the dashboard is served on its own.
- `warm`: what a newcomer's first clicks compute (every tab's default state, every preset), computed ahead.

Tours and the lecture hall:
- `tours`: guided tours: ordered steps, each a page state, a narrative and maybe a prediction question.
- `tour_panel`: the story panel above the views: a tour's step, or the story of the preset shown.
- `tour_layout`: what the story panel is made of (its frame, the tour links, a question and its answers' bars).
- `tour_story`: which story the panel tells for a page state (pure functions of the validated state).
- `tour_text`: a tour's text as the panel shows it, with links to the explanations and the way out.
- `poll_links`: where a class poll is answered: the link (and its QR code) students open on their phones.
- `vote_page`: the page students open on their phones to answer a class poll (plain HTML, no script).

Serving many visitors:
- `shared_callbacks`: callbacks whose answer is a pure function of the request body, answered once for everyone.
- `callback_types`: what each component property may hold, so a forged callback request is refused.
- `client_config`: what the page's clientside callbacks (`assets/clientside.js`) need from the server, built once.
- `vendored`: third-party scripts the dashboard serves itself (plotly.js in two bundles, the regenerator runtime).

What a user takes away:
- `export`: the result as CSV, and the commands that reproduce the current state.
- `standalone`: a tour or a view as one self-contained HTML file that works offline (`headdiv export`).

Beside the modules: assets/ (the page's JavaScript and CSS), explanations/ (the Markdown beside each view and
lesson) and vendor/ (the vendored scripts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dash import Dash


def create_dash_app(api_url: str, **kwargs: Any) -> Dash:
    """Build the dashboard (imported lazily so `import headdiv.dashboard` stays cheap)."""
    from headdiv.dashboard.app import create_dash_app as _create

    return _create(api_url, **kwargs)


__all__ = ["create_dash_app"]
