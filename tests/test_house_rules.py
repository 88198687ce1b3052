"""What a newcomer reading the tree relies on: a module's name says which one it is (no two alike), no
import circle (type-only and function-level imports included), and a door uses another door only through
its public face (the package's `__init__` and its `__all__`), so a door's rooms can change behind it."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests.test_layering import ROOT

PACKAGE = ROOT / "headdiv"
DOORS = ("headdiv.dashboard", "headdiv.server", "headdiv.lab", "headdiv.cli")
"""The ways in (the dashboard, the HTTP API, `import headdiv`, the command line); the top package's
`__init__` is `import headdiv`'s own face and lazily names what `headdiv.lab` builds."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names taken from it) for every import of a source file, wherever it stands in the file; an
    imported name that is itself a module counts as importing that module."""
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = []
            for alias in node.names:
                if f"{node.module}.{alias.name}" in MODULES:
                    out.append((f"{node.module}.{alias.name}", []))
                else:
                    names.append(alias.name)
            if names:
                out.append((node.module, names))
    return out


def graph() -> dict[str, set[str]]:
    return {name: {m for m, _ in imported(path) if m in MODULES} for name, path in MODULES.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_circle_finder_finds_a_circle_through_type_only_imports() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_package() -> None:
    assert circles(graph()) == []


def test_every_module_name_is_unique() -> None:
    """`state.py` beside `state.py` is two things a reader must tell apart by their folder; packages count."""
    names = [p.stem for p in PACKAGE.rglob("*.py") if p.stem not in ("__init__", "__main__")]
    names += [p.name for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists() and p != PACKAGE]
    assert sorted(name for name, count in Counter(names).items() if count > 1) == []


def door_of(module: str) -> str | None:
    return next((door for door in DOORS if module == door or module.startswith(door + ".")), None)


def public_names(door: str) -> set[str]:
    tree = ast.parse(MODULES[door].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {ast.literal_eval(element) for element in node.value.elts}  # type: ignore[attr-defined]
    return set()


def test_a_door_uses_another_door_only_through_its_public_face() -> None:
    offenders = []
    for name, path in MODULES.items():
        own = door_of(name)
        if own is None:
            continue
        for module, names in imported(path):
            other = door_of(module)
            if other is None or other == own:
                continue
            if module != other:
                offenders.append(f"{name} imports {module}, inside {other}")
            offenders += [
                f"{name} takes {n} from {other}, not in its __all__" for n in names if n not in public_names(other)
            ]
    assert offenders == []


def test_every_door_that_others_use_has_a_public_face() -> None:
    used = {
        door_of(m)
        for name, path in MODULES.items()
        if door_of(name)
        for m, _ in imported(path)
        if door_of(m) not in (None, door_of(name))
    }
    assert used, "no door uses another: the check above would pass vacuously"
    assert {door: sorted(public_names(door)) for door in used if not public_names(door)} == {}


def environment_reads(path: Path) -> list[str]:
    """The `HEADDIV_*` variables a module reads itself (`os.environ.get`, `os.getenv`, `os.environ[...]`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        key: ast.expr | None = None
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv") and node.args:
            key = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            key = node.slice
        if isinstance(key, ast.Constant) and str(key.value).startswith("HEADDIV_"):
            found.append(str(key.value))
    return found


def test_environment_reads_are_found(tmp_path: Path) -> None:
    sample = 'import os\nos.environ.get("HEADDIV_X")\nos.getenv("HEADDIV_Y")\nos.environ["HEADDIV_Z"]\n'
    probe_file = tmp_path / "probe.py"
    probe_file.write_text(sample, encoding="utf-8")
    assert environment_reads(probe_file) == ["HEADDIV_X", "HEADDIV_Y", "HEADDIV_Z"]


def test_every_setting_and_its_default_live_in_its_floors_settings_module() -> None:
    """A setting read in passing (`os.environ.get("HEADDIV_...") or 32 << 20`) is one nobody finds: each
    floor's settings are one pydantic model with its defaults and descriptions (engine and doors in
    `schemas.engine_settings`, jobs in `jobs.job_settings`, the worker's and the server's in theirs)."""
    readers = {
        name: reads
        for name, path in MODULES.items()
        if not path.stem.endswith("_settings") and (reads := environment_reads(path))
    }
    assert readers == {}
