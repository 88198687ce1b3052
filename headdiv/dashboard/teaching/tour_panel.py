"""The story panel above the views: a guided tour's step (narrative, prediction question, reveal, class
poll, previous/next), or the story of the preset the page shows (unless the presets are hidden).

The step's state itself is applied by the URL-sync callback (`headdiv.dashboard.teaching.tours.expand`); this panel only
reads the validated state. Previous/next are links (`?tour=..&step=..`), so the back button, a shared
link and a presenter's clicker (PageUp/PageDown, arrow keys: `assets/tour_keys.js`) all go the same way.
While a question waits for its answer the figures are concealed (class `conceal` on `#tour-gate`).

The panel listens to `TOUR_STATE`, a copy of the page state that the browser updates only when the tour,
its step or the page flags change; which preset the page matches is decided in the browser. Moving a
slider costs the panel no request.
"""

from __future__ import annotations

from typing import Any

from dash import ALL, Dash, Input, Output, State, ctx, html, no_update
from dash.development.base_component import Component

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.shared_callbacks import pure_callback
from headdiv.dashboard.page.client_config import clientside, config_state
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState, UrlRegistry
from headdiv.dashboard.standalone.buttons import tour_file_link
from headdiv.dashboard.teaching.poll_links import poll_link, qr_data_uri, unreachable_note
from headdiv.dashboard.teaching.tour_layout import TOUR_STATE, answers, distribution, question_block
from headdiv.dashboard.teaching.tour_story import current_step, preset_story, step_key
from headdiv.dashboard.teaching.tour_text import narrative, rich
from headdiv.dashboard.teaching.tours import PAGE_KEYS, Step, step_link
from headdiv.dashboard.views.view_protocol import STATE_STORE
from headdiv.schemas.polls import poll_id_or_none


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


def _poll_invitation(link: str, counts: dict[str, Any] | None) -> list[Component]:
    """What asks the class while the step's answer is hidden: the QR code, the link, the count so far and,
    where phones cannot reach the link, why."""
    note = unreachable_note(link)
    return [
        html.Img(src=qr_data_uri(link), alt=_("QR code of {link}").format(link=link), className="tour-qr"),
        html.Div(
            [
                html.P(_("Answer on your phone:"), className="tour-poll-label"),
                html.A(link, href=link, target="_blank", id="tour-poll-link", className="tour-poll-link"),
                html.P(
                    _("{count} so far").format(count=answers(int((counts or {}).get("total") or 0))),
                    id="tour-poll-total",
                    className="tour-poll-total",
                ),
                *([html.P(note, className="tour-poll-unreachable", role="note")] if note else []),
            ]
        ),
    ]


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
        found = current_step(st)
        if found is None:
            preset = preset_story(registry, st)
            if preset is None:
                # the panel's frame and story are then `presetStory`'s (assets/clientside.js), which alone sees a
                # preset chosen by its button whose state is its view's defaults (`tour_story.active_preset`)
                return (no_update, no_update, no_update, "", no_update, no_update, [], "", "", "", "", hidden, "")
            story: tuple[Any, ...] = (_(preset.name), _(preset.story), [], "", "", "", "", hidden, "")
            return ({}, "tour-panel preset-story", _("Preset"), "", *story)
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
            _("Tour: {name}").format(name=_(tour.name)),
            _("step {step} of {steps}").format(step=k, steps=n),
            _(step.title),
            narrative(tour, k, flags),
            question_block(step.question) if step.question else [],
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
        found = current_step(PageState.from_data(data))
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
        found = current_step(PageState.from_data(data))
        if not clicks or found is None:
            return no_update, no_update
        q = found[0].steps[found[1] - 1].question
        if q is None:
            return no_update, no_update
        try:
            poll = client.post("/polls", {"topic": step_key(*found), "choices": [c.id for c in q.choices]})
        except ApiError as exc:
            return no_update, html.P(
                _("The poll could not be opened: {message}").format(message=exc.message), className="job-status error"
            )
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
        found = current_step(PageState.from_data(data or registry.defaults()))
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
                box.append(
                    html.P(
                        _("The poll cannot be read: {message}").format(message=exc.message),
                        className="job-status error",
                    )
                )
            if chosen is None:
                # once revealed, the class's bars carry the count: the box gives its room on a projector's
                # first screen to the figure
                box[:0] = _poll_invitation(poll_link(href, poll_id, public_url), counts)
        if chosen is None:
            return "tour-gate conceal", [], box, not poll_id, off if poll_id else {}
        picked = q.choice(chosen)
        right = q.choice(q.answer)
        verdict = _("Right: ") if chosen == q.answer else _("Not quite: ")
        reveal: list[Component] = [
            html.P(
                [
                    html.Strong(verdict),
                    _("you chose “{choice}”; the answer is “{answer}”.").format(
                        choice=_(picked.label) if picked else chosen, answer=_(right.label) if right else q.answer
                    ),
                ],
                className="tour-answer",
                # the choice the step is revealed with, for a lecture room's phones (assets/room.js)
                **{"data-choice": chosen},
            ),
            html.P(rich(_(q.why)), className="tour-why"),
        ]
        if counts is not None:
            reveal.append(distribution(q, counts))
        return "tour-gate", reveal, box, not poll_id, off if poll_id else {}
