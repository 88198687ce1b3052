"""Every word a person reads, in their language (docs/languages.md): the floor beneath every door.

- `languages`: the registry of languages (`LANGUAGES`: English, Spanish, Simplified Chinese, Arabic and two
  pseudo-languages), each with its own name, direction and number locale.
- `catalogues`: the compiled gettext catalogues, read once per process (`translator(code)`), the
  pseudo-languages made from the English text, `N_` to mark text translated where it is shown.
- `choosing`: which language a request is answered in (`?lang=`, else `Accept-Language`, else English).
- `speaking`: which language text is written in now (`_`): the one being built, else the work's, else English.
"""

from headdiv.i18n.catalogues import N_, Translator, translator
from headdiv.i18n.choosing import chosen
from headdiv.i18n.languages import LANGUAGES, SOURCE, TRANSLATED, Language, language
from headdiv.i18n.speaking import _, speaking, spoken

__all__ = [
    "LANGUAGES",
    "N_",
    "SOURCE",
    "TRANSLATED",
    "Language",
    "Translator",
    "_",
    "chosen",
    "language",
    "speaking",
    "spoken",
    "translator",
]
