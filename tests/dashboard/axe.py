"""axe-core, as the browser tests run it: WCAG 2.0/2.1/2.2 A and AA rules, serious and critical findings only.
axe-core comes with `axe-playwright-python` (a test dependency) and runs in Debian's Chromium."""

from __future__ import annotations

from typing import Any

WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def serious_findings(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now, one line each (rule, element, why)."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG}, "resultTypes": ["violations"]})
    return [
        f"{v['id']}: {node['target']} {node.get('failureSummary', '')[:160]!r}"
        for v in found.response["violations"]
        if v["impact"] in ("serious", "critical")
        for node in v["nodes"]
    ]
