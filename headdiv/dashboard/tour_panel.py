"""The story panel above the views: a guided tour's step (narrative, prediction question, reveal, class
poll, previous/next), or the story of the preset the page shows (unless the presets are hidden).

The step's state itself is applied by the URL-sync callback (`headdiv.dashboard.tours.expand`); this panel only
reads the validated state. Previous/next are links (`?tour=..&step=..`), so the back button, a shared
link and a presenter's clicker (PageUp/PageDown, arrow keys: `assets/tour_keys.js`) all go the same way.
While a question waits for its answer the figures are concealed (class `conceal` on `#tour-gate`).

The panel listens to `TOUR_STATE`, a copy of the page state that the browser updates only when the tour,
its step or the page flags change; which preset the page matches is decided in the browser. Moving a
slider costs the panel no request.
"""

from __future__ import annotations

from typing import Any

from dash import ALL, Dash, Input, Output, State, ctx, dcc, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.client_config import HIDING_PRESETS, clientside, config_state, preset_keys
from headdiv.dashboard.poll_links import poll_link, qr_data_uri, unreachable_note
from headdiv.dashboard.presets import PRESETS, Preset
from headdiv.dashboard.shared_callbacks import pure_callback
from headdiv.dashboard.standalone.buttons import tour_file_button, tour_file_link
from headdiv.dashboard.state import PageState, UrlRegistry
from headdiv.dashboard.tours import PAGE_KEYS, TOURS, Question, Step, Tour, step_link
from headdiv.dashboard.views.base import STATE_STORE
from headdiv.schemas.polls import poll_id_or_none

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
                        "Ask the class",
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
                    dcc.Link("← previous", id="tour-prev", href="", className="btn tour-nav"),
                    dcc.Link("next →", id="tour-next", href="", className="btn tour-nav"),
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
        [html.H2("Tours")]
        + [
            dcc.Link(
                t.name,
                href=step_link(t.id, 1),
                id={"type": "tour-link", "tour": t.id},
                title=t.summary,
                className="preset tour-link",
            )
            for t in TOURS.values()
        ],
        className="presets tours part-presets",
    )


def _current(st: PageState) -> tuple[Tour, int] | None:
    tour = TOURS.get(str(st.get("tour") or ""))
    if tour is None:
        return None
    k = min(max(int(st.get("step") or 1), 1), len(tour.steps))
    return tour, k


def step_key(tour: Tour, k: int) -> str:
    """`tour/step`: what a class poll is about (the vote page shows that step's question)."""
    return f"{tour.id}/{k}"


def question_at(topic: str) -> Question | None:
    """The question of the step a poll's topic names (None when it names none)."""
    name, _, k = topic.partition("/")
    tour = TOURS.get(name)
    if tour is None or not k.isdigit() or not 1 <= int(k) <= len(tour.steps):
        return None
    return tour.steps[int(k) - 1].question


def active_preset(registry: UrlRegistry, st: PageState) -> Preset | None:
    """The preset whose scenario and settings the page shows exactly, on the view it opens (None once
    anything was moved)."""
    for preset in PRESETS:
        if preset.tab is not None and st.get("tab") != preset.tab:
            continue
        target = registry.parse(preset.query).values
        keys = set(preset_keys(registry))
        if all(_same(st.get(k), target.get(k)) for k in keys):
            return preset
    return None


def preset_story(registry: UrlRegistry, st: PageState) -> Preset | None:
    """The preset whose story the panel tells: none while the presets are hidden (`hide=presets`), where a
    lecturer's link that happens to match a preset must not narrate a button the class cannot see."""
    return None if st.hidden() & set(HIDING_PRESETS) else active_preset(registry, st)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return list(a or []) == list(b or [])
    return bool(a == b)


def _question(q: Question) -> list[Component]:
    return [
        html.P(q.prompt, className="tour-prompt"),
        html.Div(
            [
                html.Button(c.label, id={"type": "tour-choice", "choice": c.id}, n_clicks=0, className="btn choice")
                for c in q.choices
            ],
            className="tour-choices",
            role="group",
        ),
        html.P("Choose an answer to see the figure.", className="tour-hint"),
    ]


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
                    html.Span(c.label, className="dist-label"),
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
        [html.P(f"The class ({int(poll.get('total') or 0)} answers):", className="dist-title"), *rows],
        className="dist",
    )


def _register_gate(app: Dash) -> None:
    """In the browser (`assets/clientside.js`): copy the page state to `TOUR_STATE` when the tour, its step
    or the page flags change; and, while no tour is open, show the story of the preset the page matches
    (or hide the panel). Leaving a preset with a slider then costs the panel no request: a key press stays
    at three. A first state with no tour and the default flags is not passed on either: the layout already
    shows that panel, so a plain page load sends the panel's callbacks nothing (they would compete with the
    first chart's requests)."""
    app.clientside_callback(
        clientside("gateTour"),
        Output(TOUR_STATE, "data"),
        Input(STATE_STORE, "data"),
        State(TOUR_STATE, "data"),
        config_state(),
    )
    # the same answer as `_render` gives without a tour: whichever of the two runs last, the panel agrees
    app.clientside_callback(
        clientside("presetStory"),
        Output("tour-panel", "style", allow_duplicate=True),
        Output("tour-panel", "className", allow_duplicate=True),
        Output("tour-name", "children", allow_duplicate=True),
        Output("tour-step-title", "children", allow_duplicate=True),
        Output("tour-narrative", "children", allow_duplicate=True),
        Input(STATE_STORE, "data"),
        State("tour-panel", "style"),
        State("tour-panel", "className"),
        State("tour-step-title", "children"),
        config_state(),
        prevent_initial_call=True,
    )


def register(app: Dash, client: ApiClient, registry: UrlRegistry, public_url: str | None = None) -> None:
    def page_flags(st: PageState) -> dict[str, str]:
        return {k: registry[k].dump(st[k]) for k in PAGE_KEYS if st.get(k) != registry[k].default}

    _register_gate(app)

    @pure_callback(
        app,
        Output("tour-panel", "style"),
        Output("tour-panel", "className"),
        Output("tour-name", "children"),
        Output("tour-count", "children"),
        Output("tour-step-title", "children"),
        Output("tour-narrative", "children"),
        Output("tour-question", "children"),
        Output("tour-prev", "href"),
        Output("tour-next", "href"),
        Output("tour-prev", "className"),
        Output("tour-next", "className"),
        Output("tour-nav", "style"),
        Output("tour-download", "href"),
        Input(TOUR_STATE, "data"),
        prevent_initial_call=True,  # the gate passes the first state on
    )
    def _render(data: Any) -> tuple[Any, ...]:
        st = PageState.from_data(data or registry.defaults())
        hidden = {"display": "none"}
        found = _current(st)
        if found is None:
            preset = preset_story(registry, st)
            if preset is None:
                return (hidden, "tour-panel", "", "", "", "", [], "", "", "", "", hidden, "")
            story: tuple[Any, ...] = (preset.name, preset.story, [], "", "", "", "", hidden, "")
            return ({}, "tour-panel preset-story", "Preset", "", *story)
        tour, k = found
        step: Step = tour.steps[k - 1]
        n = len(tour.steps)
        flags = page_flags(st)
        prev_href = step_link(tour.id, k - 1, flags) if k > 1 else ""
        next_href = step_link(tour.id, k + 1, flags) if k < n else ""
        nav = "btn tour-nav"
        return (
            {},
            "tour-panel",
            f"Tour: {tour.name}",
            f"step {k} of {n}",
            step.title,
            step.narrative,
            _question(step.question) if step.question else [],
            prev_href,
            next_href,
            nav if prev_href else nav + " disabled",
            nav if next_href else nav + " disabled",
            {},
            tour_file_link(tour.id),
        )

    @pure_callback(
        app, Output({"type": "tour-link", "tour": ALL}, "href"), Input(TOUR_STATE, "data"), prevent_initial_call=True
    )
    def _links(data: Any) -> list[str]:
        flags = page_flags(PageState.from_data(data or registry.defaults()))
        return [step_link(o["id"]["tour"], 1, flags) for o in ctx.outputs_list]

    @pure_callback(
        app,
        Output("tour-choice", "data"),
        Input({"type": "tour-choice", "choice": ALL}, "n_clicks"),
        State(STATE_STORE, "data"),
        State("tour-choice", "data"),
        prevent_initial_call=True,
    )
    def _choose(_clicks: list[Any], data: Any, chosen: Any) -> Any:
        """The reader's answer per step (`tour/step` -> choice id), so going back shows it again."""
        trigger = ctx.triggered_id
        if not isinstance(trigger, dict) or not ctx.triggered[0].get("value"):
            return no_update
        found = _current(PageState.from_data(data))
        if found is None:
            return no_update
        return {**(chosen or {}), step_key(*found): str(trigger.get("choice"))}

    @app.callback(
        Output("tour-poll", "data"),
        Output("tour-poll-box", "children", allow_duplicate=True),
        Input("tour-poll-open", "n_clicks"),
        State(STATE_STORE, "data"),
        State("tour-poll", "data"),
        prevent_initial_call=True,
    )
    def _open_poll(clicks: Any, data: Any, polls: Any) -> tuple[Any, Any]:
        """Open the step's class poll (`tour/step` -> poll id, one per step)."""
        found = _current(PageState.from_data(data))
        if not clicks or found is None:
            return no_update, no_update
        q = found[0].steps[found[1] - 1].question
        if q is None:
            return no_update, no_update
        try:
            poll = client.post("/polls", {"topic": step_key(*found), "choices": [c.id for c in q.choices]})
        except ApiError as exc:
            return no_update, html.P(f"The poll could not be opened: {exc.message}", className="job-status error")
        return {**(polls or {}), step_key(*found): str(poll.get("id", ""))}, no_update

    @app.callback(
        Output("tour-gate", "className"),
        Output("tour-reveal", "children"),
        Output("tour-poll-box", "children"),
        Output("tour-poll-tick", "disabled"),
        Output("tour-poll-open", "style"),
        Input(TOUR_STATE, "data"),
        Input("tour-choice", "data"),
        Input("tour-poll", "data"),
        Input("tour-poll-tick", "n_intervals"),
        State("url", "href"),
        prevent_initial_call=True,  # the layout is its answer without a tour
    )
    def _reveal(data: Any, choice: Any, poll: Any, _tick: Any, href: str | None) -> tuple[Any, ...]:
        found = _current(PageState.from_data(data or registry.defaults()))
        off = {"display": "none"}
        if found is None:
            return "tour-gate", [], [], True, off
        key = step_key(*found)
        q = found[0].steps[found[1] - 1].question
        if q is None:
            return "tour-gate", [], [], True, off
        # both stores are the browser's: any JSON may arrive, and only a poll id may become part of a path
        chosen = choice.get(key) if isinstance(choice, dict) else None
        poll_id = poll_id_or_none(poll.get(key) if isinstance(poll, dict) else None)
        counts: dict[str, Any] | None = None
        box: list[Component] = []
        if poll_id:
            try:
                counts = client.get(f"/polls/{poll_id}")
            except ApiError as exc:
                box.append(html.P(f"The poll cannot be read: {exc.message}", className="job-status error"))
            link = poll_link(href, poll_id, public_url)
            note = unreachable_note(link)
            qr = [] if chosen else [html.Img(src=qr_data_uri(link), alt=f"QR code of {link}", className="tour-qr")]
            box[:0] = [
                *qr,
                html.Div(
                    [
                        html.P("Answer on your phone:", className="tour-poll-label"),
                        html.A(link, href=link, target="_blank", id="tour-poll-link", className="tour-poll-link"),
                        html.P(
                            f"{int((counts or {}).get('total') or 0)} answers so far",
                            id="tour-poll-total",
                            className="tour-poll-total",
                        ),
                        *([html.P(note, className="tour-poll-unreachable", role="note")] if note else []),
                    ]
                ),
            ]
        if chosen is None:
            return "tour-gate conceal", [], box, not poll_id, off if poll_id else {}
        picked = q.choice(chosen)
        right = q.choice(q.answer)
        verdict = "Right" if chosen == q.answer else "Not quite"
        reveal: list[Component] = [
            html.P(
                [
                    html.Strong(f"{verdict}: "),
                    f"you chose “{picked.label if picked else chosen}”; the answer is “{right.label if right else q.answer}”.",
                ],
                className="tour-answer",
            ),
            html.P(q.why, className="tour-why"),
        ]
        if counts is not None:
            reveal.append(distribution(q, counts))
        return "tour-gate", reveal, box, not poll_id, off if poll_id else {}
