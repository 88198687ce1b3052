"""Words in a person's language: the compiled gettext catalogues (`locales/<code>/LC_MESSAGES/headdiv.mo`,
compiled from their `.po` by `make catalogues`, never per request) each read once per process, and the
pseudo-languages made from the English text as each string is first asked for.

A string is marked where it is written, `_("...")` on a translator (`translator(code)`) or `N_("...")` for
text defined once and translated where it is shown (a tour's question); `pybabel extract` (babel.cfg) finds
both. A string a catalogue lacks is shown in English, never as an error.
"""

from __future__ import annotations

import functools
import gettext
import re
from collections.abc import Callable
from pathlib import Path

from babel.numbers import format_decimal

from headdiv.i18n.languages import SOURCE, language

DOMAIN = "headdiv"
LOCALES = Path(__file__).parent / "locales"
FORMAT_FIELD = re.compile(r"\{[a-z_][a-z0-9_]*\}")
"""A `str.format` field in a message (`{label}`): kept as it is by every translation and pseudo-language."""


def N_(message: str) -> str:
    """Marks `message` for the catalogue where it is defined; it is translated where it is shown."""
    return message


class Translator:
    """One language's words: `gettext(message)` (also bound as `_`), numbers written its way (`number`)."""

    def __init__(self, code: str) -> None:
        self.language = language(code)
        self._pseudo = _PSEUDO.get(code)
        self._catalogue: gettext.NullTranslations = gettext.NullTranslations()
        if code != SOURCE and self._pseudo is None:
            with (LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as compiled:
                self._catalogue = gettext.GNUTranslations(compiled)

    def gettext(self, message: str) -> str:
        if self._pseudo is not None:
            return self._pseudo(message)
        return self._catalogue.gettext(message)

    _ = gettext

    def number(self, value: float, digits: int) -> str:
        """`value` with `digits` decimals, in this language's way (`0,5223` in Spanish)."""
        return format_decimal(
            value, format="#,##0." + "0" * digits if digits else "#,##0", locale=self.language.number_locale
        )


@functools.cache
def translator(code: str) -> Translator:
    """The translator of the registered language `code` (made once per process)."""
    return Translator(code)


ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçðéƒĝĥîĵķĺɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
)
PAD = "·"


KEPT = re.compile(r"\{[a-z_][a-z0-9_]*\}|\]\([^)\s]*\)|`[^`]*`|\$[^$]*\$|%\{[^}]*\}|<[^<>]*>|&[a-z]+;")
"""What a pseudo-language leaves as it is: format fields, a Markdown link's target, code, a formula, Plotly's
`%{y}` placeholders, HTML tags and entities (a link still leads somewhere, a command still runs)."""


def _outside_fields(message: str, change: Callable[[str], str]) -> str:
    """`message` with `change` applied to its text, its format fields (`{label}`), link targets, code,
    formulas, placeholders and tags kept as they are."""
    parts, at = [], 0
    for found in KEPT.finditer(message):
        parts += [change(message[at : found.start()]), found.group()]
        at = found.end()
    return "".join([*parts, change(message[at:])])


def accented(message: str) -> str:
    """en-XA: accented, 40% longer (a German or Finnish translation's length) and bracketed."""
    body = _outside_fields(message, lambda run: run.translate(ACCENTED))
    pad = PAD * max(1, round(0.4 * len(message)))
    return f"⟦{body}{pad}⟧"


def mirrored(message: str) -> str:
    """ar-XB: the English text shown right to left (a right-to-left override around it), as Android's."""
    return f"\u202e{message}\u202c"


_PSEUDO = {"en-XA": accented, "ar-XB": mirrored}
