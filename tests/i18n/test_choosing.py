"""Which language a request is answered in."""

from __future__ import annotations

import pytest

from headdiv.i18n import chosen
from headdiv.i18n.choosing import accepted


@pytest.mark.parametrize(
    ("header", "want"),
    [
        ("es-MX,es;q=0.9,en;q=0.8", "es"),
        ("fr-FR,fr;q=0.9,ar;q=0.5,en;q=0.4", "ar"),  # the first language offered, by quality
        ("en;q=0.3, zh-CN;q=0.8", "zh"),
        ("zh-Hans-CN", "zh"),
        ("zh-TW,en;q=0.5", "en"),  # Traditional Chinese readers are not given Simplified
        ("ar;q=0, es;q=0.1", "es"),  # q=0: not acceptable
        ("en-XA", "en"),  # a pseudo-language only when named: a browser's tag is read as its base language
        ("fr, de", None),
        ("", None),
        (";;;,q=,es;q=abc", None),
    ],
)
def test_a_browsers_languages_are_read_by_quality(header: str, want: str | None) -> None:
    assert accepted(header) == want


def test_a_named_language_wins_and_an_unknown_one_is_ignored() -> None:
    assert chosen("ar", "es") == "ar"
    assert chosen("en-XA", None) == "en-XA"
    assert chosen("klingon", "es;q=0.5") == "es"
    assert chosen(None, None) == "en"
    assert chosen(None, "x" * 5000 + "," * 5000) == "en"
