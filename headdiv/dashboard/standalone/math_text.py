"""Markdown with TeX formulas as HTML whose formulas are MathML, rendered once at export time: a page that
shows them needs no MathJax (no download, no script), and every browser a lecture meets draws MathML.

The text is ours (the views' explanations); even so, markup in it is escaped (`html=False`), and a formula
that cannot be converted is shown as its TeX source, escaped, rather than failing an export."""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from markdown_it import MarkdownIt

FORMULA = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def mathml(tex: str, *, block: bool) -> str:
    """One formula as MathML (its TeX source, escaped, when the converter refuses it)."""
    try:
        return convert(tex.strip(), display="block" if block else "inline")
    except Exception:  # latex2mathml raises a range of its own exceptions: an export never fails on one
        return f"<code>{html.escape(tex)}</code>"


def render(markdown: str) -> str:
    """Markdown with `$...$` and `$$...$$` formulas as HTML with MathML: the formulas are taken out before the
    Markdown is rendered (its emphasis rules would read `_` and `*` inside them) and put back after."""
    formulas: list[str] = []

    def hold(match: re.Match[str]) -> str:
        block = match.group(1) is not None
        formulas.append(mathml(match.group(1) if block else match.group(2), block=block))
        return f"\ue000{len(formulas) - 1}\ue001"  # private-use marks: Markdown leaves them alone

    rendered = _MD.render(FORMULA.sub(hold, markdown))
    return re.sub("\ue000(\\d+)\ue001", lambda m: formulas[int(m.group(1))], rendered)
