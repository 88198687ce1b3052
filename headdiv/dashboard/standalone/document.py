"""One self-contained HTML document: plotly.js inlined once (the 2-D bundle, or the full one when a chart
needs another trace type), the content as JSON in an inert `<script type="application/json">`, and
`standalone.js`, which draws it. Nothing is loaded from the network: the page's own Content-Security-Policy
(`default-src 'none'`) forbids it, so a file opened from `file://` in a hall with no network is complete.

Escaping: every text of the content (titles, narratives, scenario values, model names) is data the script
sets with `textContent`, never markup; the JSON is written with `<`, `>`, `&` and the line separators as
`\\u` escapes, so no value can close its `<script>` element. The only markup inserted is the explanations,
rendered here from our own Markdown with raw HTML escaped (`math_text.render`)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from headdiv.dashboard.page.script_words import inline_words
from headdiv.dashboard.page.vendored import FULL, SMALL, SMALL_TRACES

HERE = Path(__file__).parent
ASSETS = HERE.parent / "assets"
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:"
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(content: Any) -> str:
    """JSON that is safe inside a `<script>` element, whatever its strings hold."""
    text = json.dumps(content, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text)


def trace_types(content: dict[str, Any]) -> set[str]:
    """Every trace type the content's charts draw."""
    return {
        str(trace.get("type", "scatter"))
        for step in content["steps"]
        for chart in step["charts"]
        for trace in chart["figure"]["data"]
    }


def document(title: str, content: dict[str, Any]) -> str:
    """The whole page: `content` (see standalone.js for its shape) with everything it needs inlined."""
    bundle = SMALL if trace_types(content) <= SMALL_TRACES else FULL
    plotly_js = bundle.read_text(encoding="utf-8").replace("</script", "<\\/script")
    style = "".join(path.read_text(encoding="utf-8") for path in (HERE / "standalone.css", ASSETS / "chart_text.css"))
    script = "".join(
        path.read_text(encoding="utf-8")
        for path in (ASSETS / "slides.js", ASSETS / "chart_text.js", HERE / "standalone.js")
    )
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="generator" content="headdiv">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{style}</style>\n</head>\n<body>\n"
        '<main id="app" aria-live="polite"><noscript>This page draws its charts with JavaScript.</noscript></main>\n'
        f'<script type="application/json" id="headdiv-content">{script_json(content)}</script>\n'
        f"{inline_words()}\n<script>{plotly_js}</script>\n<script>\n{script}</script>\n</body>\n</html>\n"
    )
