"""The language of the page a request serves, and its words (docs/languages.md).

A request for the page, its layout, a callback or a live answer is answered in the page's language
(`i18n.page_language`: the `lang` of its URL or of the page it came from, else the browser's, else English),
found once per request. What is built once for everyone is built once per language instead, under
`speaking(code)`: the page's layout, the shared answers. Text is marked `_("...")` where it is shown, or
`N_("...")` where it is defined once (a view's label) and passed through `_` where it is shown.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import flask

from headdiv.i18n import LANGUAGES, SOURCE, Language, translator
from headdiv.i18n.choosing import page_language

_SPEAKING: ContextVar[str | None] = ContextVar("headdiv_speaking", default=None)


def request_language() -> str:
    """The language of the current Flask request (English outside one), negotiated once per request."""
    if not flask.has_request_context():
        return SOURCE
    found = flask.g.get("headdiv_language")
    if found is None:
        r = flask.request
        found = page_language(
            r.query_string.decode("latin-1"), r.headers.get("Referer"), r.headers.get("Accept-Language")
        )
        flask.g.headdiv_language = found
    return str(found)


def spoken() -> str:
    """The language text is written in now: the one being built (`speaking`), else the request's."""
    return _SPEAKING.get() or request_language()


def spoken_language() -> Language:
    return LANGUAGES[spoken()]


@contextmanager
def speaking(code: str) -> Iterator[None]:
    """Text marked `_` inside is written in `code` (a layout built once per language)."""
    token = _SPEAKING.set(code)
    try:
        yield
    finally:
        _SPEAKING.reset(token)


def _(message: str) -> str:
    """`message` in the language spoken now."""
    return translator(spoken()).gettext(message)
