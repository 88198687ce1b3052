"""The tables of docs/ that are generated from the registries, so the docs can never name a stale choice.

`python -m headdiv.workers.docs` (or `make docs`) rewrites each table between its markers; `--check` only says
whether the files are up to date (a test runs the same comparison).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from pydantic.fields import FieldInfo

from headdiv.jobs.kinds import docs_table
from headdiv.schemas import cost
from headdiv.schemas.fields import field_bounds
from headdiv.schemas.scenario import CHOICES

ROOT = Path(__file__).resolve().parents[2]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _param(name: str, info: FieldInfo) -> str:
    b = field_bounds(info)
    if b.lo is None and b.hi is None:
        return f"`{name}` ({info.description or 'default ' + str(info.default)})"
    lo = "" if b.lo is None else f"{b.lo:g} {'<' if b.lo_open else '≤'} "
    hi = "" if b.hi is None else f" ≤ {b.hi:g}"
    return f"`{name}` ({lo}{name}{hi}, default {info.default})"


def registries_table() -> str:
    """Every registered choice of every concept: the scenario field that picks it, its parameters, its meaning."""
    rows = ["| field | choice | label | parameters | what it is |", "|---|---|---|---|---|"]
    for field, registry in CHOICES.items():
        for entry in registry:
            params = ", ".join(_param(n, i) for n, i in entry.model_fields.items())
            cells = (f"`{field}`", f"`{entry.name}`", entry.label, params or "—", entry.description())
            rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows)


GENERATED_TABLES: dict[str, dict[str, str]] = {
    "docs/engine.md": {"registries": registries_table(), "cost-parts": cost.docs_table()},
    "docs/api.md": {"job-kinds": docs_table()},
}


def render(text: str, tables: dict[str, str]) -> str:
    """`text` with the body between `<!-- NAME:begin -->` and `<!-- NAME:end -->` replaced by each table."""
    for name, table in tables.items():
        pattern = re.compile(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"no <!-- {name}:begin/end --> markers")
        text = pattern.sub(lambda m, table=table: m.group(1) + table + "\n" + m.group(2), text)  # type: ignore[misc]
    return text


def stale(root: Path = ROOT) -> list[str]:
    """The docs files whose generated tables differ from the registries."""
    return [
        path
        for path, tables in GENERATED_TABLES.items()
        if render((root / path).read_text(), tables) != (root / path).read_text()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report stale files (exit 1 if any)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to update")
    args = parser.parse_args(argv)
    outdated = stale(args.root)
    if args.check:
        for path in outdated:
            print(f"{path}: generated tables are out of date; run `make docs`", file=sys.stderr)
        return 1 if outdated else 0
    for path in outdated:
        target = args.root / path
        target.write_text(render(target.read_text(), GENERATED_TABLES[path]))
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
