"""The languages a person can read headdiv in: one registry, from which the picker, the `lang` URL parameter,
the negotiation of a browser's `Accept-Language` and the catalogues' test all derive.

English is the source: every other language is a compiled gettext catalogue in `locales/` (Spanish,
Simplified Chinese, Arabic), or a pseudo-language made from the English text where it is asked for, the way
Android and PhET test their layouts: `en-XA` (every string accented, padded 40% longer and bracketed, so a
string the catalogue cannot reach shows plain and one that is cut shows its bracket missing) and `ar-XB`
(English mirrored, right to left).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["ltr", "rtl"]


@dataclass(frozen=True)
class Language:
    code: str
    """As in the URL (`?lang=`) and in `<html lang>` (a BCP 47 tag)."""
    name: str
    """The language's own name, in its own script (what the picker shows)."""
    direction: Direction
    number_locale: str
    """The Babel locale whose numbers it writes (`0,52` in Spanish)."""
    pseudo: bool = False
    """Made from the English text where asked for (no catalogue); never offered to a browser's negotiation."""


SOURCE = "en"
LANGUAGES: dict[str, Language] = {
    language.code: language
    for language in (
        Language("en", "English", "ltr", "en"),
        Language("es", "Español", "ltr", "es"),
        Language("zh", "中文（简体）", "ltr", "zh_Hans"),
        Language("ar", "العربية", "rtl", "ar"),
        Language("en-XA", "[Ëñĝĺîšĥ]", "ltr", "en", pseudo=True),
        Language("ar-XB", "\u202eEnglish\u202c", "rtl", "en", pseudo=True),
    )
}
"""Every language, English first; a catalogue in `locales/<code>/` for each that is not English or pseudo."""
TRANSLATED = tuple(code for code, language in LANGUAGES.items() if code != SOURCE and not language.pseudo)
"""The languages with a catalogue of their own."""


def language(code: str) -> Language:
    """The registered language `code`; a KeyError naming the known ones for any other."""
    try:
        return LANGUAGES[code]
    except KeyError:
        raise KeyError(f"no language {code!r}; known: {', '.join(LANGUAGES)}") from None
