"""The students' vote page without a browser: escaped tour text only, the voter cookie, and refusals."""

from __future__ import annotations

import json
from html import escape
from typing import Any

import httpx
import pytest
from flask import Flask

from headdiv.client import ApiClient
from headdiv.dashboard.teaching.tour_story import question_at
from headdiv.dashboard.teaching.vote_page import ANSWERED, VOTER_COOKIE, register_vote_page
from headdiv.schemas.polls import NOT_ISSUED, POLL_FULL
from headdiv.server.poll_counts import VoterTokens

POLL = "AbCdEfGhIjKlMnOp"
VIEW: dict[str, Any] = {
    "id": POLL,
    "topic": "why-many-heads/3",
    "choices": ["falls", "stays", "rises"],
    "counts": {},
    "total": 0,
}


@pytest.fixture
def sent() -> list[dict]:
    return []


@pytest.fixture
def mode() -> dict[str, bool]:
    """What the fake API does: `full` (every answer refused as over the poll's count), `throttled` (no token)."""
    return {"full": False, "throttled": False}


@pytest.fixture
def web(sent: list[dict], mode: dict[str, bool]) -> Flask:
    tokens = VoterTokens(b"k" * 32)  # the API's own signing, with a key of this fake API

    def api(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(f"/polls/{POLL}") and request.method == "GET":
            return httpx.Response(200, json=VIEW)
        if request.url.path.endswith(f"/polls/{POLL}/voters"):
            held = json.loads(request.content).get("voter")
            if held and tokens.valid(POLL, held):
                return httpx.Response(200, json={"voter": held})
            if mode["throttled"]:
                return httpx.Response(429, json={"detail": "too many voter tokens for this address this minute"})
            return httpx.Response(201, json={"voter": tokens.issue(POLL)})
        if request.url.path.endswith(f"/polls/{POLL}/answers"):
            body = json.loads(request.content)
            if not tokens.valid(POLL, body["voter"]):
                return httpx.Response(403, json={"detail": NOT_ISSUED})
            sent.append(body)
            if mode["full"]:
                return httpx.Response(409, json={"detail": POLL_FULL})
            if body["choice"] not in VIEW["choices"]:
                detail = [{"loc": ["body", "choice"], "msg": "not a choice of this poll", "type": "value_error"}]
                return httpx.Response(422, json={"detail": detail})
            if len(sent) > 1 and body["voter"] == sent[0]["voter"]:
                return httpx.Response(409, json={"detail": "this browser has answered this poll already"})
            return httpx.Response(200, json=VIEW)
        return httpx.Response(404, json={"detail": "no poll"})

    app = Flask(__name__)
    register_vote_page(app, ApiClient("http://api.test", transport=httpx.MockTransport(api)))
    return app


def test_the_form_shows_the_steps_question_and_gives_a_voter_cookie(web: Flask) -> None:
    c = web.test_client()
    page = c.get(f"/vote/{POLL}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "θ goes from 0° to 90°" in text and 'value="falls"' in text and "<script" not in text
    assert VOTER_COOKIE in page.headers["Set-Cookie"] and "HttpOnly" in page.headers["Set-Cookie"]


def test_a_vote_is_counted_once_per_browser(web: Flask, sent: list[dict]) -> None:
    c = web.test_client()
    c.get(f"/vote/{POLL}")
    first = c.post(f"/vote/{POLL}", data={"choice": "falls"})
    assert first.status_code == 200 and "Counted" in first.get_data(as_text=True)
    again = c.post(f"/vote/{POLL}", data={"choice": "rises"})
    assert again.status_code == 409 and "answered this poll already" in again.get_data(as_text=True)
    assert "API" not in again.get_data(as_text=True)  # a student sees a sentence, not a status line
    assert sent[0] == {"choice": "falls", "voter": sent[0]["voter"]} and len(sent[0]["voter"]) >= 16


def test_user_input_is_never_echoed(web: Flask) -> None:
    c = web.test_client()
    c.get(f"/vote/{POLL}")
    bad = c.post(f"/vote/{POLL}", data={"choice": "<script>alert(1)</script>"})
    assert bad.status_code == 422 and "<script>" not in bad.get_data(as_text=True)


def test_refusals(web: Flask, sent: list[dict]) -> None:
    c = web.test_client()
    assert c.post(f"/vote/{POLL}", data={"choice": "falls"}).status_code == 400  # no cookie: not from the page
    assert c.get("/vote/short").status_code == 404
    assert c.get("/vote/ZZZZZZZZZZZZZZZZ").status_code == 404
    assert sent == []


def test_reopening_the_poll_after_answering_shows_the_answer_not_the_buttons(web: Flask) -> None:
    c = web.test_client()
    assert "<button" in c.get(f"/vote/{POLL}").get_data(as_text=True)
    c.post(f"/vote/{POLL}", data={"choice": "falls"})
    again = c.get(f"/vote/{POLL}").get_data(as_text=True)
    label = next(ch.label for ch in question_at(VIEW["topic"]).choices if ch.id == "falls")  # type: ignore[union-attr]
    assert f"You answered “{escape(label)}”" in again and "<button" not in again
    other = web.test_client()  # another phone still gets the buttons
    assert "<button" in other.get(f"/vote/{POLL}").get_data(as_text=True)
    forged = web.test_client()
    forged.get(f"/vote/{POLL}")
    forged.set_cookie(f"{ANSWERED}{POLL}", "<b>x</b>", path="/vote")
    shown = forged.get(f"/vote/{POLL}").get_data(as_text=True)
    assert "This phone has answered this poll" in shown and "<b>x</b>" not in shown


def test_a_cookie_the_server_did_not_issue_is_replaced_and_the_vote_counts(web: Flask, sent: list[dict]) -> None:
    c = web.test_client()
    c.set_cookie(VOTER_COOKIE, "x", path=f"/vote/{POLL}")  # made up: not even a token's shape
    page = c.get(f"/vote/{POLL}")
    assert page.status_code == 200 and "HttpOnly" in page.headers["Set-Cookie"]
    assert f"{VOTER_COOKIE}=x;" not in page.headers["Set-Cookie"]
    stale = web.test_client()
    stale.get(f"/vote/{POLL}")
    stale.set_cookie(VOTER_COOKIE, "A" * 38, path=f"/vote/{POLL}")  # a token's shape, not signed by the API
    counted = stale.post(f"/vote/{POLL}", data={"choice": "stays"})
    assert counted.status_code == 200 and "Counted" in counted.get_data(as_text=True)
    assert len(sent) == 1 and sent[0]["voter"] != "A" * 38  # counted once, with a token the API issued


def test_a_full_poll_and_a_busy_network_say_so(web: Flask, mode: dict[str, bool]) -> None:
    c = web.test_client()
    c.get(f"/vote/{POLL}")
    mode["full"] = True
    full = c.post(f"/vote/{POLL}", data={"choice": "falls"})
    assert full.status_code == 409 and "This poll is full" in full.get_data(as_text=True)
    assert "answered this poll already" not in full.get_data(as_text=True)
    mode["throttled"] = True
    busy = web.test_client().get(f"/vote/{POLL}")
    assert busy.status_code == 429 and "Many phones on this network" in busy.get_data(as_text=True)


def test_a_phone_reads_the_poll_in_its_own_language_right_to_left_included(web: Flask) -> None:
    """The phone's browser language (or `?lang=`) chooses the page's words; the choices' values stay the ids
    the poll counts."""
    arabic = web.test_client().get(f"/vote/{POLL}", headers={"Accept-Language": "ar-EG,ar;q=0.9,en;q=0.5"})
    text = arabic.get_data(as_text=True)
    assert '<html lang="ar" dir="rtl">' in text and "Accept-Language" in arabic.headers["Vary"]
    assert "هل يرتفع MSE للمجموعة" in text and ">ينخفض</button>" in text and 'value="falls"' in text
    assert "θ goes from" not in text
    spanish = web.test_client()
    spanish.get(f"/vote/{POLL}?lang=es", headers={"Accept-Language": "ar"})  # the named one wins
    counted = spanish.post(f"/vote/{POLL}?lang=es", data={"choice": "falls"}).get_data(as_text=True)
    assert '<html lang="es" dir="ltr">' in counted and "Contada: «Baja»." in counted


def test_in_the_pseudo_language_every_word_on_the_poll_comes_from_the_catalogue(web: Flask) -> None:
    """en-XA brackets every translated string: a text outside brackets is a word no language can reach (a link
    inside a sentence is part of it)."""
    import re
    from html.parser import HTMLParser

    class Texts(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[str] = []

        def handle_data(self, data: str) -> None:
            if data.strip() and self.lasttag not in ("style",):
                self.found.append(data.strip())

    c = web.test_client()
    pages = [c.get(f"/vote/{POLL}?lang=en-XA")]
    pages.append(c.post(f"/vote/{POLL}?lang=en-XA", data={"choice": "falls"}))
    pages.append(c.get(f"/vote/{POLL}?lang=en-XA"))  # answered: the prompt and what it was
    pages.append(web.test_client().post(f"/vote/{POLL}?lang=en-XA", data={"choice": "falls"}))  # no cookie
    for page in pages:
        texts = Texts()
        texts.feed(re.sub(r"</?a\b[^>]*>", "", page.get_data(as_text=True)))
        assert texts.found and all(t.startswith("⟦") and t.endswith("⟧") for t in texts.found), texts.found
