"""A tour's text and its references to a view's explanation: where the panel makes a link, an exported file
writes the words."""

from __future__ import annotations

import re

EXPLAIN_REF = re.compile(r" \(\[([^\]]+)\]\(#explain-([a-z0-9-]+)\)\)")
"""A reference in a tour's text to a view's explanation, written ` ([words](#explain-<name>))`: the panel makes
it a link to the explanation beside the charts (`explanations/<name>.md`), which a student can open where a
path into the repository's docs could not be."""


def text_parts(text: str) -> list[str | tuple[str, str]]:
    """`text` as plain runs and `(words, explanation name)` references, in order."""
    parts: list[str | tuple[str, str]] = []
    at = 0
    for match in EXPLAIN_REF.finditer(text):
        parts += [text[at : match.start()], (match.group(1), match.group(2))]
        at = match.end()
    return [p for p in [*parts, text[at:]] if p]


def plain_text(text: str) -> str:
    """`text` with its references as words in parentheses (an exported file has no page to link to)."""
    return EXPLAIN_REF.sub(r" (\1)", text)
