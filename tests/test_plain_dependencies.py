"""What `pip install -e .` alone brings (what `make run` installs) is enough for every import the package makes.

The suite runs with the test extras, which bring far more than the package declares (transformers pulls
huggingface_hub, for one): a module imported by the app but declared only by an extra answers 500 on the
default install while every test passes. Here each import in `headdiv/` is checked against the packages
the project's own `dependencies` reach (with their own dependencies, as the installed metadata says),
unless the import sits under `try: ... except ImportError` (an optional part that says what to install) or
`if TYPE_CHECKING:`. `tests/test_plain_install.py` runs the app itself on such an install.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "headdiv"
OPTIONAL_ERRORS = {"ImportError", "ModuleNotFoundError"}
# Modules imported only where their host is running: IPython's display hooks (`_ipython_display_`, and
# `show` once it has found a notebook kernel) are called by IPython itself.
HOST_PROVIDED = {"IPython"}


def _applies(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    env = {k: str(v) for k, v in default_environment().items()}
    return any(req.marker.evaluate({**env, "extra": e}) for e in (extras or {""}))


def _closure(roots: list[Requirement]) -> set[str]:
    """The distributions `roots` bring, by the installed metadata: a package's own requirements, with the
    extras it was asked for (uvicorn[standard]) and no others."""
    seen: set[tuple[str, frozenset[str]]] = set()
    names: set[str] = set()
    todo = [(r, set()) for r in roots if _applies(r, set())]
    while todo:
        req, _ = todo.pop()
        name = canonicalize_name(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        names.add(name)
        try:
            lines = md.requires(req.name) or []
        except md.PackageNotFoundError:
            continue
        for line in lines:
            sub = Requirement(line)
            if _applies(sub, set(req.extras)):
                todo.append((sub, set()))
    return names


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Inside a try whose handlers catch ImportError (in its body), or under `if TYPE_CHECKING:`."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                caught = handler.type
                types = caught.elts if isinstance(caught, ast.Tuple) else [caught]
                if any(isinstance(t, ast.Name) and t.id in OPTIONAL_ERRORS for t in types):
                    return True
        if isinstance(parent, ast.If) and child in parent.body:
            test = parent.test
            if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
            ):
                return True
        child, parent = parent, parents.get(parent)
    return False


def _unguarded_imports() -> dict[str, list[str]]:
    """{top-level module: ["path:line", ...]} of the package's imports that nothing guards."""
    out: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in {"headdiv", *HOST_PROVIDED} or top in sys.stdlib_module_names or _guarded(node, parents):
                    continue
                out.setdefault(top, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return _closure([Requirement(line) for line in project["dependencies"]])


def test_every_unguarded_import_comes_with_the_plain_install() -> None:
    provided = _declared()
    by_module = md.packages_distributions()
    missing = {
        module: places
        for module, places in _unguarded_imports().items()
        if not provided & {canonicalize_name(d) for d in by_module.get(module, [])}
    }
    assert not missing, (
        "imported without a guard, but not brought by `pip install -e .` (declare it in [project] "
        f"dependencies, or import it under try/except ImportError with a one-line message): {missing}"
    )


def test_the_check_sees_a_module_only_an_extra_brings() -> None:
    """The closure is not everything installed: transformers (a test extra) is outside it, and so an
    unguarded `import transformers` in the package would be reported."""
    provided = _declared()
    assert "transformers" not in provided and "pytest" not in provided
    assert {"fastapi", "torch", "huggingface-hub", "uvloop"} <= provided  # uvloop: uvicorn[standard]'s extra


def test_a_guard_is_an_import_error_handler_not_any_try(tmp_path: Path) -> None:
    source = (
        "try:\n    import a\nexcept ImportError:\n    a = None\n"
        "try:\n    import b\nexcept ValueError:\n    pass\n"
        "if TYPE_CHECKING:\n    import c\n"
        "def f():\n    import d\n"
    )
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    guarded = {node.names[0].name: _guarded(node, parents) for node in ast.walk(tree) if isinstance(node, ast.Import)}
    assert guarded == {"a": True, "b": False, "c": True, "d": False}
