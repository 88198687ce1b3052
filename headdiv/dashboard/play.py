"""Play: a ▶ button beside a slider steps it through its range at a readable pace; ⏸ stops it.

Each tick sets the slider's value in the browser (`dash_clientside.set_props`) exactly as a user's drag
would, so the URL-sync callback, the link and every figure follow; no server round trip drives the
pace. About ten steps span the range (θ: 0°, 10°, …, 90°, the diversity sweep's default angles, so
each step is a cached cell once that sweep has run).
"""

from __future__ import annotations

from dash import MATCH, Dash, Input, Output, State, dcc, html
from dash.development.base_component import Component

PACE_MS = 1500
STEPS = 9
"""Steps from one end of the range to the other."""
PLAY, PAUSE = "▶", "⏸"

_TICK = (
    """
function (clicks, ticks, disabled) {
    const C = window.dash_clientside, ctx = C.callback_context;
    const trig = (ctx.triggered && ctx.triggered[0]) || {};
    const pid = trig.prop_id || "";
    if (!pid || pid === ".") return [C.no_update, C.no_update];
    const id = JSON.parse(pid.slice(0, pid.lastIndexOf(".")));
    const box = document.getElementById(id.slider);
    const handle = box && box.querySelector("[role=slider]");
    // a slider the shown view ignores is disabled: playing it would change nothing on screen
    if (!handle || handle.getAttribute("aria-disabled") === "true") return [true, "__PLAY__"];
    const now = parseFloat(handle.getAttribute("aria-valuenow"));
    const lo = parseFloat(handle.getAttribute("aria-valuemin")), hi = parseFloat(handle.getAttribute("aria-valuemax"));
    const step = Math.max(1, Math.round((hi - lo) / __STEPS__));
    if (pid.endsWith(".n_clicks")) {
        if (!disabled) return [true, "__PLAY__"];
        if (now >= hi) C.set_props(id.slider, {value: lo});
        return [false, "__PAUSE__"];
    }
    if (disabled) return [C.no_update, C.no_update];
    const next = Math.min(hi, (isNaN(now) ? lo : now) + step);
    C.set_props(id.slider, {value: next});
    return next >= hi ? [true, "__PLAY__"] : [C.no_update, C.no_update];
}
""".replace("__PLAY__", PLAY)
    .replace("__PAUSE__", PAUSE)
    .replace("__STEPS__", str(STEPS))
)


def with_play(slider: Component, slider_id: str, label: str) -> Component:
    """The slider with a play button beside it (and the timer that paces it)."""
    return html.Div(
        [
            slider,
            html.Button(
                PLAY,
                id={"type": "play", "slider": slider_id},
                n_clicks=0,
                className="btn btn-small play-btn",
                title=f"play {label} through its range",
            ),
            dcc.Interval(id={"type": "play-tick", "slider": slider_id}, interval=PACE_MS, disabled=True),
        ],
        className="play-row",
    )


def register(app: Dash) -> None:
    app.clientside_callback(
        _TICK,
        Output({"type": "play-tick", "slider": MATCH}, "disabled"),
        Output({"type": "play", "slider": MATCH}, "children"),
        Input({"type": "play", "slider": MATCH}, "n_clicks"),
        Input({"type": "play-tick", "slider": MATCH}, "n_intervals"),
        State({"type": "play-tick", "slider": MATCH}, "disabled"),
        prevent_initial_call=True,
    )
