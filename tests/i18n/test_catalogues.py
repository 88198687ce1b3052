"""The catalogues: complete in every language, up to date with the source, compiled from what is written."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from headdiv.i18n import LANGUAGES, SOURCE, TRANSLATED, translator
from headdiv.i18n.catalogues import FORMAT_FIELD, LOCALES, accented, mirrored

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = LOCALES / "headdiv.pot"


def source_messages() -> set[str]:
    """Every string the package marks, as `make catalogues` extracts them (babel.cfg, `N_` too)."""
    keywords = {"_": None, "gettext": None, "N_": None}
    found = extract_from_dir(str(ROOT / "headdiv"), method_map=[("**.py", "python")], keywords=keywords)
    return {message for _file, _line, message, _comments, _context in found if message}


def ids(path: Path) -> set[str]:
    with path.open("rb") as f:
        return {m.id for m in read_po(f) if m.id}


def test_the_template_holds_every_marked_string_and_no_other() -> None:
    """A string marked in the code but not extracted would stay English in every language."""
    assert ids(TEMPLATE) == source_messages()


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_language_translates_every_string_with_its_placeholders(code: str) -> None:
    with (LOCALES / code / "LC_MESSAGES" / "headdiv.po").open("rb") as f:
        catalogue = read_po(f)
    entries = [m for m in catalogue if m.id]
    assert {m.id for m in entries} == ids(TEMPLATE), "run `make catalogues`"
    assert [m.id for m in entries if not m.string] == []  # untranslated
    assert [m.id for m in entries if m.fuzzy] == []  # a guess by `pybabel update`, never checked
    assert [m.id for m in entries if set(FORMAT_FIELD.findall(m.id)) != set(FORMAT_FIELD.findall(m.string))] == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_compiled_catalogue_is_the_written_one(code: str) -> None:
    """`.mo` files are compiled at build time (`make catalogues`), not per request: the shipped one must say
    what its `.po` says."""
    folder = LOCALES / code / "LC_MESSAGES"
    with (folder / "headdiv.po").open("rb") as f:
        compiled = io.BytesIO()
        write_mo(compiled, read_po(f))
    assert (folder / "headdiv.mo").read_bytes() == compiled.getvalue(), "run `make catalogues`"


def test_each_language_reads_its_own_words_and_english_is_the_source() -> None:
    prompt = "θ goes from 0° to 90°: does the ensemble's MSE rise, fall or stay?"
    assert translator(SOURCE).gettext(prompt) == prompt
    said = {code: translator(code).gettext(prompt) for code in TRANSLATED}
    assert len(set(said.values())) == len(TRANSLATED) and prompt not in said.values()
    assert "θ" in said["es"] and "集成" in said["zh"] and "للمجموعة" in said["ar"]
    assert translator("es").gettext("a string no catalogue holds") == "a string no catalogue holds"


def test_numbers_are_written_the_languages_way() -> None:
    assert translator("en").number(0.52234, 4) == "0.5223"
    assert translator("es").number(0.52234, 4) == "0,5223"
    assert translator("es").number(12345.5, 1) == "12.345,5"


def test_the_pseudo_languages_keep_placeholders_and_show_their_marks() -> None:
    text = "Counted: “{label}”."
    xa = accented(text)
    assert xa.startswith("⟦") and xa.endswith("⟧") and "{label}" in xa
    assert len(xa) >= 1.4 * len(text) and "Çöûñţéð" in xa
    assert mirrored(text) == "\u202e" + text + "\u202c"
    assert translator("en-XA").gettext(text) == xa and translator("ar-XB").gettext(text) == mirrored(text)
    assert LANGUAGES["ar-XB"].direction == LANGUAGES["ar"].direction == "rtl"
