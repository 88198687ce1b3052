"""What the story panel is made of: its frame (empty until a tour or a preset fills it), the sidebar's tour
links, a step's prediction question and the class's answers as bars. The callbacks that fill it are in
`tour_panel.py`."""

from __future__ import annotations

from typing import Any

from dash import dcc, html
from dash.development.base_component import Component

from headdiv.dashboard.page.language import _
from headdiv.dashboard.standalone.buttons import tour_file_button
from headdiv.dashboard.teaching.tours import TOURS, Question, step_link

POLL_REFRESH_MS = 1000
TOUR_STATE = "tour-state"


def layout() -> Component:
    """The panel as the callbacks below leave it without a tour (a page without one sends them nothing)."""
    return html.Section(
        [
            dcc.Store(id=TOUR_STATE),
            dcc.Store(id="tour-choice"),
            dcc.Store(id="tour-poll"),
            dcc.Interval(id="tour-poll-tick", interval=POLL_REFRESH_MS, disabled=True),
            html.Div(id="tour-gate", className="tour-gate"),
            html.Div(
                [
                    html.Span(id="tour-name", className="tour-name"),
                    html.Span(id="tour-count", className="tour-count"),
                ],
                className="tour-head",
            ),
            html.H2(id="tour-step-title", className="tour-step-title"),
            html.P(id="tour-narrative", className="tour-narrative"),
            html.Div(id="tour-question", className="tour-question"),
            html.Div(id="tour-reveal", className="tour-reveal", role="status"),
            html.Div(
                [
                    html.Button(
                        _("Ask the class"),
                        id="tour-poll-open",
                        n_clicks=0,
                        className="btn btn-small",
                        style={"display": "none"},
                    ),
                    html.Div(id="tour-poll-box", className="tour-poll-box"),
                ],
                id="tour-poll-area",
                className="tour-poll part-poll",
            ),
            html.Nav(
                [
                    dcc.Link(_("← previous"), id="tour-prev", href="", className="btn tour-nav"),
                    dcc.Link(_("next →"), id="tour-next", href="", className="btn tour-nav"),
                    tour_file_button(),  # the whole tour as one HTML file that works offline
                ],
                id="tour-nav",
                className="tour-nav-row",
                style={"display": "none"},
            ),
        ],
        id="tour-panel",
        className="tour-panel",
        style={"display": "none"},
    )


def tour_links() -> Component:
    """The sidebar's list of tours: each opens its first step (the page's lecture flags carried along)."""
    return html.Div(
        [html.H2(_("Tours"))]
        + [
            dcc.Link(
                _(t.name),
                href=step_link(t.id, 1),
                id={"type": "tour-link", "tour": t.id},
                title=_(t.summary),
                className="preset tour-link",
            )
            for t in TOURS.values()
        ]
        + [
            # assets/room.js: a room code, link and QR code; phones that open it follow this page, live
            html.Button(
                _("Present to the room"),
                id="present-btn",
                type="button",
                className="btn btn-small present-btn",
                title=_("Phones that open the room's link show what this page shows, live"),
            )
        ],
        className="presets tours part-presets",
    )


def question_block(q: Question) -> list[Component]:
    return [
        html.P(_(q.prompt), className="tour-prompt"),
        html.Div(
            [
                html.Button(_(c.label), id={"type": "tour-choice", "choice": c.id}, n_clicks=0, className="btn choice")
                for c in q.choices
            ],
            className="tour-choices",
            role="group",
        ),
        html.P(_("Choose an answer to see the figure."), className="tour-hint"),
    ]


def answers(n: int) -> str:
    """The poll's count as one reads it: "1 answer", "2 answers" (in the language spoken now)."""
    return (_("{n} answer") if n == 1 else _("{n} answers")).format(n=n)


def distribution(q: Question, poll: dict[str, Any]) -> Component:
    """The class's answers as bars (counts only; the labels are the tour's own)."""
    counts = poll.get("counts") or {}
    total = max(1, int(poll.get("total") or 0))
    rows = []
    for c in q.choices:
        n = int(counts.get(c.id, 0))
        rows.append(
            html.Div(
                [
                    html.Span(_(c.label), className="dist-label"),
                    html.Span(
                        html.Span(style={"width": f"{100 * n / total:.0f}%"}, className="dist-fill"),
                        className="dist-bar",
                    ),
                    html.Span(str(n), className="dist-count"),
                ],
                className="dist-row" + (" right" if c.id == q.answer else ""),
            )
        )
    return html.Div(
        [
            html.P(
                _("The class ({count}):").format(count=answers(int(poll.get("total") or 0))), className="dist-title"
            ),
            *rows,
        ],
        className="dist",
    )
