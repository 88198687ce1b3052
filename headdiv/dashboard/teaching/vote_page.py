"""The page students open on their phones to answer a class poll: `/vote/<poll id>`.

Plain HTML with a form (no script, so it works on any phone and under the site's CSP). Every text on it
is the tour's own, escaped; nothing a voter sends is shown back. The browser gets a voter token in a
cookie when it opens the page, issued and signed by the API for this poll (a cookie it did not issue is
replaced by one it did), and the form posts it with the choice to the API, which counts one answer per
token; a post without the cookie (another site's form) is refused. Once a phone has answered,
a cookie of that poll remembers the answer, so reopening the link shows it instead of buttons that could
only say "already answered".

It is written in the phone's language (`?lang=`, else its browser's `Accept-Language`, else English;
`headdiv.i18n`): a room's phones each read the lecturer's question in their own, right to left included.
"""

from __future__ import annotations

from html import escape

from flask import Flask, Response, request

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.teaching.tour_story import question_at
from headdiv.dashboard.teaching.tours import Question
from headdiv.i18n import Translator, chosen, translator
from headdiv.schemas.polls import NOT_ISSUED, POLL_FULL, poll_id_or_none

VOTER_COOKIE = "headdiv_voter"
ANSWERED = "headdiv_answered_"
"""Prefix of the cookie that remembers this phone's answer to one poll (the poll id follows)."""
COOKIE_S = 86400
STYLE = """body{font-family:system-ui,sans-serif;margin:0;padding:16px;max-width:520px;line-height:1.4}
h1{font-size:1.2rem}button{display:block;width:100%;margin:10px 0;padding:14px;font-size:1.1rem;border-radius:10px;
border:1px solid #888;background:#f4f6fb}.note{padding:10px;border-radius:8px;background:#eef5ee}"""


def _words() -> Translator:
    """The language this request is answered in."""
    return translator(chosen(request.args.get("lang"), request.headers.get("Accept-Language")))


def _page(title: str, body: str, status: int = 200) -> Response:
    lang = _words().language
    html = (
        f'<!doctype html><html lang="{lang.code}" dir="{lang.direction}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>{body}</body></html>"
    )
    page = Response(html, status=status, mimetype="text/html")
    page.vary.add("Accept-Language")
    return page


def _heading(text: str) -> str:
    return f"<h1>{escape(text)}</h1>"


def _form(poll_id: str, q: Question) -> str:
    _ = _words().gettext
    buttons = "".join(
        f'<button type="submit" name="choice" value="{escape(c.id)}">{escape(_(c.label))}</button>' for c in q.choices
    )
    return f'<h1>{escape(_(q.prompt))}</h1><form method="post" action="/vote/{poll_id}">{buttons}</form>'


def _answered(q: Question, choice: str) -> str:
    _ = _words().gettext
    picked = q.choice(choice)
    said = (
        escape(_("You answered “{label}”.")).format(label=escape(_(picked.label)))
        if picked
        else escape(_("This phone has answered this poll."))
    )
    watch = escape(_("Watch the screen for the answer."))
    return f'<h1>{escape(_(q.prompt))}</h1><p class="note" id="voted">{said} {watch}</p>'


def _remember(page: Response, poll_id: str, choice: str) -> Response:
    page.set_cookie(ANSWERED + poll_id, choice, max_age=COOKIE_S, httponly=True, samesite="Lax", path="/vote")
    return page


def _with_voter(page: Response, poll_id: str, voter: str) -> Response:
    page.set_cookie(VOTER_COOKIE, voter, max_age=COOKIE_S, httponly=True, samesite="Lax", path=f"/vote/{poll_id}")
    return page


def register_vote_page(server: Flask, client: ApiClient) -> None:
    def load(poll_id: str) -> tuple[Question | None, Response | None]:
        _ = _words().gettext
        if poll_id_or_none(poll_id) is None:
            return None, _page(_("No such poll"), _heading(_("No such poll.")), 404)
        try:
            poll = client.get(f"/polls/{poll_id}")
        except ApiError as exc:
            if exc.status == 404:
                return None, _page(_("No such poll"), _heading(_("This poll is closed or never existed.")), 404)
            return None, _page(_("Poll unavailable"), f"<h1>{escape(exc.message)}</h1>", 503)
        q = question_at(str(poll.get("topic", "")))
        if q is None:
            return None, _page(_("No such poll"), _heading(_("This poll asks nothing this dashboard knows.")), 404)
        return q, None

    def token(poll_id: str, held: str | None) -> str:
        """The phone's voter token for this poll: the one it holds when the API issued it, else a fresh one."""
        return str(client.post(f"/polls/{poll_id}/voters", {"voter": held} if held else {})["voter"])

    def busy(exc: ApiError) -> Response:
        _ = _words().gettext
        if exc.status == 429:
            note = escape(_("Many phones on this network asked at once: wait a few seconds and reload this page."))
            return _page(_("Class poll"), f'<p class="note">{note}</p>', 429)
        return _page(_("Poll unavailable"), f"<h1>{escape(exc.message)}</h1>", 503)

    def answer(poll_id: str, choice: str, voter: str) -> str | None:
        """Post the answer; when the API did not issue the phone's token for this poll (a forged or stale
        cookie), once more with one it issues now, which is returned for the cookie."""
        try:
            client.post(f"/polls/{poll_id}/answers", {"choice": choice, "voter": voter})
            return None
        except ApiError as exc:
            not_issued = (exc.status == 403 and NOT_ISSUED in exc.message) or (
                exc.status == 422 and "voter" in exc.message
            )
            if not not_issued:
                raise
        fresh = token(poll_id, None)
        client.post(f"/polls/{poll_id}/answers", {"choice": choice, "voter": fresh})
        return fresh

    @server.get("/vote/<poll_id>")
    def vote_form(poll_id: str) -> Response:
        q, error = load(poll_id)
        if q is None:
            return error  # type: ignore[return-value]
        _ = _words().gettext
        held = request.cookies.get(VOTER_COOKIE)
        answered = request.cookies.get(ANSWERED + poll_id)
        if answered is not None and held:
            return _page(_("Class poll"), _answered(q, answered))
        try:
            voter = token(poll_id, held)
        except ApiError as exc:
            return busy(exc)
        page = _page(_("Class poll"), _form(poll_id, q))
        return page if voter == held else _with_voter(page, poll_id, voter)

    @server.post("/vote/<poll_id>")
    def vote_submit(poll_id: str) -> Response:
        q, error = load(poll_id)
        if q is None:
            return error  # type: ignore[return-value]
        _ = _words().gettext
        voter = request.cookies.get(VOTER_COOKIE, "")
        if not voter:
            the_poll = escape(_("the poll"))
            first = escape(_("Open {link} first.")).format(link=f'<a href="/vote/{poll_id}">{the_poll}</a>')
            return _page(_("Class poll"), f'<p class="note">{first}</p>', 400)
        choice = request.form.get("choice", "")
        try:
            fresh = answer(poll_id, choice, voter)
        except ApiError as exc:
            if exc.status == 409 and POLL_FULL in exc.message:
                note = escape(_("This poll is full: it has counted all the answers it can. Watch the screen."))
                return _page(_("Class poll"), f'<p class="note">{note}</p>', 409)
            if exc.status == 409:  # the API's sentence carries its status line; a student needs only this
                note = escape(_("This phone has answered this poll already: one answer per phone. Watch the screen."))
                return _remember(_page(_("Class poll"), f'<p class="note">{note}</p>', 409), poll_id, "")
            if exc.status == 429:
                return busy(exc)
            if exc.status == 422:
                note = escape(_("That is not one of the answers."))
                return _page(_("Class poll"), f'<p class="note">{note}</p>' + _form(poll_id, q), 422)
            return _page(_("Class poll"), f'<p class="note">{escape(exc.message)}</p>', 503)
        picked = q.choice(choice)
        label = _(picked.label) if picked else choice
        counted = escape(_("Counted: “{label}”.")).format(label=escape(label))
        watch = escape(_("Watch the screen for the answer."))
        page = _page(_("Class poll"), f'<p class="note" id="voted">{counted} {watch}</p>')
        return _remember(page if fresh is None else _with_voter(page, poll_id, fresh), poll_id, choice)
