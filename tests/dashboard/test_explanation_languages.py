"""The explanations beside the views, translated: every English explanation has a Spanish, Chinese and
Arabic version with the same formulas, the same outline and the same links, and the page reads the one for
its language (English for English and the pseudo-languages)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from headdiv.dashboard.page.components import EXPLANATIONS, explanation, explanation_text
from headdiv.dashboard.page.language import speaking

LANGUAGES = ("es", "zh", "ar")
ENGLISH = sorted(EXPLANATIONS.glob("*.md"))
NAMES = [p.stem for p in ENGLISH]

FORMULA = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
HEADING = re.compile(r"^(#{1,6})\s", re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def formulas(text: str) -> Counter[str]:
    return Counter(FORMULA.findall(text))


def headings(text: str) -> Counter[int]:
    return Counter(len(m.group(1)) for m in HEADING.finditer(text))


def links(text: str) -> Counter[str]:
    return Counter(LINK.findall(text))


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_there_are_explanations() -> None:
    assert len(NAMES) >= 12


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_translation_keeps_formulas_headings_and_links(lang: str, name: str) -> None:
    english = _read(EXPLANATIONS / f"{name}.md")
    path = EXPLANATIONS / lang / f"{name}.md"
    assert path.is_file(), f"{lang}/{name}.md is missing"
    translated = _read(path)
    assert formulas(translated) == formulas(english)
    assert headings(translated) == headings(english)
    assert links(translated) == links(english)


def test_the_reader_follows_the_language_spoken() -> None:
    spanish = _read(EXPLANATIONS / "es" / "diversity.md")
    english = _read(EXPLANATIONS / "diversity.md")
    with speaking("es"):
        assert explanation_text("diversity") == (spanish, "es")
        aside = explanation("diversity").to_plotly_json()["props"]
        assert aside["children"].to_plotly_json()["props"]["children"] == spanish
        assert "lang" not in aside
    with speaking("en-XA"):
        assert explanation_text("diversity") == (english, "en")
        aside = explanation("diversity").to_plotly_json()["props"]
        assert aside["children"].to_plotly_json()["props"]["children"] == english
        assert aside["lang"] == "en"
    with speaking("en"):
        assert explanation_text("diversity") == (english, "en")
        assert "lang" not in explanation("diversity").to_plotly_json()["props"]


def test_a_missing_translation_falls_back_to_english() -> None:
    english = _read(EXPLANATIONS / "diversity.md")
    assert explanation_text("diversity", "ar-XB") == (english, "en")
