"""The README says what is true. Its CPU block's engine commands run as written on the default install, in
`tests/test_plain_install.py` (where nothing the test extras bring can hide a missing dependency). It is a
front door: short, and every link it gives leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 250
"""What a newcomer reads in one sitting; measures, labs and settings live in docs/."""


def test_the_readme_marks_its_gpu_example_and_no_stale_claims() -> None:
    gpu = [line for line in README.splitlines() if line.startswith("headdiv") and "--device cuda" in line]
    assert gpu and all("GPU only" in line for line in gpu), gpu
    assert "install test + dev tools" not in README and "bench" in README.split("make test", 2)[1][:120]
    assert "bounds are\nin [docs/model.md]" not in README


def relative_links(markdown: str) -> list[str]:
    """The targets of the Markdown links and images outside code blocks that point into the repository."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.DOTALL | re.MULTILINE)
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.IGNORECASE) and not t.startswith("#")]


def test_the_readme_is_short_and_its_links_lead_to_files() -> None:
    lines = README.count("\n") + (not README.endswith("\n"))
    assert lines <= MAX_LINES, f"README.md has {lines} lines; at most {MAX_LINES} (move detail into docs/)"
    links = relative_links(README)
    assert "docs/performance.md" in links and "docs/labs.md" in links, links
    missing = [link for link in links if not (ROOT / link.split("#", 1)[0]).exists()]
    assert not missing, missing


def test_the_link_check_sees_a_missing_file() -> None:
    text = (
        "see [a](docs/nowhere.md#x) and ![b](docs/img/dashboard.png)\n```sh\n[c](not/a/link)\n```\n[d](https://x.org)"
    )
    assert relative_links(text) == ["docs/nowhere.md#x", "docs/img/dashboard.png"]
    assert not (ROOT / "docs/nowhere.md").exists()
