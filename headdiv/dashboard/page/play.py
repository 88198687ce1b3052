"""Play: a ▶ button beside a slider steps it through its range at a readable pace; ⏸ stops it.

A play starts at the range's start; clicking a preset stops every play. Each tick sets the slider's
value in the browser (`playTick` of `assets/clientside.js`) exactly as a user's drag would, so the
URL-sync callback, the link and every figure follow; no server round trip drives the pace. About ten steps span the range (θ: 0°, 10°, …, 90°, the diversity sweep's default angles, so
each step is a cached cell once that sweep has run).
"""

from __future__ import annotations

from dash import ALL, MATCH, Dash, Input, Output, State, dcc, html
from dash.development.base_component import Component

from headdiv.dashboard.page.client_config import PLAY, clientside, config_state
from headdiv.dashboard.page.language import _

PACE_MS = 1500


def with_play(slider: Component, slider_id: str, label: str) -> Component:
    """The slider with a play button beside it (and the timer that paces it); `label` is the slider's label as
    shown (already in the page's language)."""
    return html.Div(
        [
            slider,
            html.Button(
                PLAY,
                id={"type": "play", "slider": slider_id},
                n_clicks=0,
                className="btn btn-small play-btn",
                title=_("play {label} through its range").format(label=label),
            ),
            dcc.Interval(id={"type": "play-tick", "slider": slider_id}, interval=PACE_MS, disabled=True),
        ],
        className="play-row",
    )


def register(app: Dash) -> None:
    app.clientside_callback(
        clientside("playTick"),
        Output({"type": "play-tick", "slider": MATCH}, "disabled"),
        Output({"type": "play", "slider": MATCH}, "children"),
        Input({"type": "play", "slider": MATCH}, "n_clicks"),
        Input({"type": "play-tick", "slider": MATCH}, "n_intervals"),
        State({"type": "play-tick", "slider": MATCH}, "disabled"),
        config_state(),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        clientside("stopPlay"),
        Output({"type": "play-tick", "slider": ALL}, "disabled", allow_duplicate=True),
        Output({"type": "play", "slider": ALL}, "children", allow_duplicate=True),
        Input({"type": "preset", "name": ALL}, "n_clicks"),
        config_state(),
        prevent_initial_call=True,
    )
