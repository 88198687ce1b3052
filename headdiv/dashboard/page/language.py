"""The language of the page a request serves (docs/languages.md).

A request for the page, its layout, a callback or a live answer is answered in the page's language
(`i18n.page_language`: the `lang` of its URL or of the page it came from, else the browser's, else English),
found once per request and made the ambient language of `headdiv.i18n` (`_`, `spoken`), so the figures
drawn for it speak it too. What is built once for everyone is built once per language instead, under
`speaking(code)`: the page's layout, the shared answers, the live figures (keyed by language). Text is
marked `_("...")` where it is shown, or `N_("...")` where it is defined once (a view's label) and passed
through `_` where it is shown.
"""

from __future__ import annotations

import flask

from headdiv.i18n import SOURCE
from headdiv.i18n.choosing import page_language
from headdiv.i18n.speaking import _, speaking, spoken, spoken_language, use_ambient

__all__ = ["_", "request_language", "speaking", "spoken", "spoken_language"]


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


def _in_request() -> str | None:
    return request_language() if flask.has_request_context() else None


use_ambient(_in_request)
