"""Which language a request is answered in: the one it names (`?lang=`, a shared link's), else the first its
browser accepts (`Accept-Language`, RFC 9110 section 12.5.4, by quality), else English. Only registered
languages are ever chosen (a stranger's header cannot make a new one), pseudo-languages only when named."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from headdiv.i18n.languages import LANGUAGES, SOURCE

MAX_ACCEPTED = 32
"""Languages of one header looked at (a longer header is a stranger's, not a browser's)."""


def offered(tag: str) -> str | None:
    """The registered language a browser's tag stands for (`es-MX` -> `es`, `zh-CN` and `zh-Hans` -> `zh`;
    `zh-TW` and `zh-Hant` are not offered: Simplified Chinese is not theirs)."""
    parts = tag.strip().lower().replace("_", "-").split("-")
    if parts[0] == "zh" and any(p in ("tw", "hk", "mo", "hant") for p in parts[1:]):
        return None
    found = LANGUAGES.get(parts[0])
    return found.code if found is not None and not found.pseudo else None


def accepted(header: str) -> str | None:
    """The registered language a browser's `Accept-Language` prefers, or None."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:MAX_ACCEPTED]):
        tag, _, params = part.partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        code = offered(tag)
        if code is not None and q > 0:
            ranked.append((-q, i, code))
    return min(ranked)[2] if ranked else None


def chosen(named: str | None, accept_language: str | None) -> str:
    """The language of an answer: `named` when registered, else the browser's, else English."""
    if named and named in LANGUAGES:
        return named
    return accepted(accept_language or "") or SOURCE


def named_in(url: str) -> str | None:
    """The `lang` a URL (or a bare query string) names, the last if repeated, else None."""
    query = urlsplit(url).query if "?" in url or "://" in url else url
    found = None
    for key, value in parse_qsl(query[:4096]):
        if key == "lang":
            found = value
    return found


def page_language(query: str, referer: str | None, accept_language: str | None) -> str:
    """The language of a request for a page or for one of its parts: the `lang` of its own query (a page, a
    live answer), else of the page it came from (its `Referer`: the layout, a callback, whose URLs carry no
    query), else the browser's, else English."""
    named = named_in(query)
    if named not in LANGUAGES and referer:
        named = named_in(referer)
    return chosen(named, accept_language)
