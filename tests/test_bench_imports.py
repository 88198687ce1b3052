"""The benches stand on the package and on each other, never on the tests: what both need (a chart's "drawn"
in the browser, removing a run's queues) lives in `bench/`, where a test may import it, not the other way."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported(path: Path) -> list[str]:
    """Every module a source file imports, at its top or inside functions."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


def test_no_bench_imports_a_test_module() -> None:
    scripts = sorted((ROOT / "bench").glob("*.py"))
    assert scripts
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in scripts
        for name in imported(path)
        if name == "tests" or name.startswith("tests.")
    ]
    assert offenders == []
