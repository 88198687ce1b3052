"""Which language text is written in right now, for every floor above this one (the figures, the dashboard,
the Python API): `_("...")` translates into it.

It is the language being built (`speaking(code)`: a page's layout built once per language, a figure drawn for
one), else the ambient language of the work at hand (the dashboard registers one: its request's page
language, `use_ambient`), else English. A module that defines text at import marks it `N_` and passes it
through `_` where it is shown: `_` at import would always be English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from headdiv.i18n.catalogues import translator
from headdiv.i18n.languages import LANGUAGES, SOURCE, Language

_SPEAKING: ContextVar[str | None] = ContextVar("headdiv_speaking", default=None)
_AMBIENT: list[Callable[[], str | None]] = []


def use_ambient(find: Callable[[], str | None]) -> None:
    """`find()` gives the language of the work at hand when none is being built (None: it has none)."""
    if find not in _AMBIENT:
        _AMBIENT.append(find)


def spoken() -> str:
    """The language text is written in now: the one being built, else the ambient one, else English."""
    code = _SPEAKING.get()
    if code is not None:
        return code
    for find in _AMBIENT:
        found = find()
        if found is not None:
            return found
    return SOURCE


def spoken_language() -> Language:
    return LANGUAGES[spoken()]


@contextmanager
def speaking(code: str) -> Iterator[None]:
    """Text marked `_` inside is written in `code` (a registered language)."""
    if code not in LANGUAGES:
        raise KeyError(f"no language {code!r}; known: {', '.join(LANGUAGES)}")
    token = _SPEAKING.set(code)
    try:
        yield
    finally:
        _SPEAKING.reset(token)


def _(message: str) -> str:
    """`message` in the language spoken now ("" stays "": gettext's "" is the catalogue's header)."""
    return translator(spoken()).gettext(message) if message else message
