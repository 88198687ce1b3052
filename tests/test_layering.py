"""The package is a house of floors (`FLOORS`), ground first: every import points down, never up or
sideways between parts of one floor. Within the floors, more rules: dashboard -> schemas and the job
protocol (HTTP for the rest); the server reaches the engine only through the runner and the reports facade;
the engine imports neither the job protocol nor the server. Checked on the source
(what each module imports, type-checking imports included) and in fresh interpreters (what importing it
actually loads)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FLOORS: tuple[tuple[str, ...], ...] = (
    ("headdiv.version",),
    ("headdiv.i18n",),
    ("headdiv.schemas",),
    ("headdiv.plumbing",),
    ("headdiv.jobs",),
    ("headdiv.workers", "headdiv.figures"),
    ("headdiv.client",),
    ("headdiv.dashboard",),
    ("headdiv.server",),
    ("headdiv.lab", "headdiv.cli"),
)
"""Ground first: the version (a leaf); the words in every language (catalogues, Babel); the torch-free
vocabulary every part speaks; the shared machinery that is no vocabulary (bounded caches, work kept on disk,
request identity; `kept` reads the engine settings in the schemas); the job protocol every door shares
(torch-free); the compute side and the figure builders; the one HTTP client of the API (the dashboard's and
the Python API's); the Dash app; the HTTP API (which mounts the app); the Python API and the command line.
The package's own `__init__` (lazy names for `import headdiv`) sits above them all, and nothing imports it."""


def imports_of(path: Path) -> list[str]:
    """Every module a source file imports, at its top or inside functions (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = ".".join(path.relative_to(ROOT).with_suffix("").parts[: -node.level])
                out.append(f"{package}.{node.module}" if node.module else package)
            else:
                out.append(node.module or "")
    return out


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def fresh(code: str) -> dict[str, object]:
    """Run `code` in a new interpreter; it prints a JSON object as its last line."""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


LOADED = (
    "import json, sys; print(json.dumps({"
    "'torch': 'torch' in sys.modules, "
    "'engine': sorted(m for m in sys.modules if m.startswith('headdiv.workers.engine')), "
    "'server': sorted(m for m in sys.modules if m == 'headdiv.server' or m.startswith('headdiv.server.'))}))"
)


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def part_of(module: str) -> str:
    """`headdiv.workers` of `headdiv.workers.engine.nw`; `headdiv` of the package itself."""
    return ".".join(module.split(".")[:2])


def upward(path: Path, names: list[str]) -> list[str]:
    """Of the modules `names` that the file at `path` imports, those not on a floor below its own part."""
    floor = {part: i for i, parts in enumerate(FLOORS) for part in parts}
    floor["headdiv"] = len(FLOORS)
    here = part_of(module_of(path))
    return [
        name
        for name in names
        if name.split(".")[0] == "headdiv"
        and part_of(name) != here
        and (part_of(name) not in floor or floor[part_of(name)] >= floor[here])
    ]


def test_every_import_points_down_the_floors() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources("headdiv")
        for name in upward(path, imports_of(path))
    ]
    assert offenders == []


def test_every_part_of_the_package_is_on_a_floor() -> None:
    """A new folder or module directly under `headdiv/` must be given its floor."""
    parts = {part_of(module_of(path)) for path in sources("headdiv")} - {"headdiv"}
    assert parts == {part for parts in FLOORS for part in parts}


def test_the_floors_refuse_an_import_up_sideways_or_of_the_package_itself() -> None:
    probe = ROOT / "headdiv" / "workers" / "engine" / "probe.py"
    names = [
        "numpy",
        "headdiv.schemas.fields",
        "headdiv.jobs.kinds",
        "headdiv.version",
        "headdiv.dashboard.page.url_state",
        "headdiv.figures.theme",
        "headdiv",
        "headdiv.elsewhere",
    ]
    assert upward(probe, names) == [
        "headdiv.dashboard.page.url_state",
        "headdiv.figures.theme",
        "headdiv",
        "headdiv.elsewhere",
    ]


def test_nothing_under_workers_imports_the_server() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources("headdiv/workers")
        for name in imports_of(path)
        if name == "headdiv.server" or name.startswith("headdiv.server.")
    ]
    assert offenders == []


def offenders(package: str, allowed: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    """`package`'s imports of a module under one of `forbidden` that is not under one of `allowed`."""
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources(package)
        for name in imports_of(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
        and not any(name == a or name.startswith(a + ".") for a in allowed)
    ]


def test_the_engine_imports_neither_the_job_protocol_nor_the_server() -> None:
    """The engine owns its hook and runner types; below itself it sees only the ground floor (schemas,
    settings, errors) and the plumbing (the bounded LRU, work kept on disk)."""
    allowed = ("headdiv.workers.engine", "headdiv.schemas", "headdiv.plumbing")
    assert offenders("headdiv/workers/engine", allowed, ("headdiv",)) == []


def test_the_server_reaches_the_engine_only_through_the_job_protocol_and_the_reports() -> None:
    """One road each: jobs through `headdiv.jobs`, reports (HDI, theory, lessons, model weights,
    warm-up) through `headdiv.workers.instant_reports`; never an engine or models module directly."""
    forbidden = ("headdiv.workers.engine", "headdiv.workers.models")
    assert offenders("headdiv/server", (), forbidden) == []


def test_the_command_line_does_not_borrow_from_the_dashboard() -> None:
    """`headdiv heads --csv` and the rest take their tables from the torch-free schemas; the `dashboard`
    subcommand serves the app through the server's own mount."""
    cli = sources("headdiv/cli")
    assert cli, "no command-line module found"
    found = [
        f"{p.relative_to(ROOT)} imports {n}" for p in cli for n in imports_of(p) if n.startswith("headdiv.dashboard")
    ]
    assert found == []


def test_no_name_is_imported_from_a_string_on_the_compute_path() -> None:
    """A reader, mypy and grep follow a job from its route to its engine function: no `import_module`,
    no module `__getattr__` anywhere in the server or the compute side."""
    found = [
        f"{path.relative_to(ROOT)}: {needle}"
        for package in ("headdiv/server", "headdiv/workers")
        for path in sources(package)
        for needle in ("import_module", "__getattr__", "__import__")
        if needle in path.read_text(encoding="utf-8")
    ]
    assert found == []


def test_the_dashboard_imports_only_torch_free_schemas_and_the_job_protocol() -> None:
    """The job protocol is a floor of its own below the compute side: the dashboard takes the job state and
    kinds from it with no exception to the rule that it never imports the compute side."""
    offenders = []
    for path in sources("headdiv/dashboard"):
        for name in imports_of(path):
            if name.split(".")[0] == "torch" or name.startswith(("headdiv.server", "headdiv.workers")):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_the_figures_build_plotly_figures_only() -> None:
    """The Python API and the offline exports draw with them too: page components (Dash) are the dashboard's."""
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources("headdiv/figures")
        for name in imports_of(path)
        if name.split(".")[0] == "dash"
    ]
    assert found == []


def test_the_job_protocol_and_the_schemas_load_no_torch() -> None:
    loaded = fresh(
        "import headdiv.schemas, headdiv.jobs.kinds, headdiv.jobs.state, headdiv.jobs.ids, "
        "headdiv.jobs.keys, headdiv.jobs.cache, headdiv.jobs.failures, "
        "headdiv.jobs.job_settings, headdiv.jobs.rq_conventions; " + LOADED
    )
    assert loaded == {"torch": False, "engine": [], "server": []}


def test_assembling_a_multi_cell_result_loads_no_torch() -> None:
    """The API assembles a running job's partial result from the cache: the assemblers and the entry type of
    the engine's tables are torch-free."""
    loaded = fresh("import headdiv.workers.engine.multicell, headdiv.workers.assembly; " + LOADED)
    assert loaded["torch"] is False


def test_a_fresh_interpreter_importing_the_dashboard_app_has_no_torch() -> None:
    loaded = fresh(
        "from headdiv.dashboard.page.app import create_dash_app; create_dash_app('http://127.0.0.1:9'); " + LOADED
    )
    assert loaded == {"torch": False, "engine": [], "server": []}


def test_headdiv_dashboard_runs_without_torch() -> None:
    """The stand-alone dashboard command, up to the point where it would serve."""
    loaded = fresh(
        "import socket, uvicorn; uvicorn.Server.run = lambda self, sockets=None: None\n"
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); port = str(s.getsockname()[1]); s.close()\n"
        "from headdiv.cli import main\n"
        "assert main(['dashboard', '--port', port, '--api-url', 'http://127.0.0.1:9']) == 0\n" + LOADED
    )
    assert loaded["torch"] is False and loaded["engine"] == []


@pytest.mark.parametrize("mode", ["embedded", "scaled"])
def test_the_api_loads_the_engine_only_when_it_computes(mode: str) -> None:
    """Building the app (routes, dashboard) imports no torch: the scaled API never computes a job, and
    the embedded one loads the engine in its runner thread or at the first cheap computation."""
    redis = "'redis://127.0.0.1:9/0'" if mode == "scaled" else "None"
    loaded = fresh(
        "from headdiv.server.main import create_app; from headdiv.server.server_settings import ServerSettings\n"
        f"create_app(ServerSettings(redis_url={redis}, warm_up=False))\n" + LOADED
    )
    assert loaded["torch"] is False and loaded["engine"] == []


def test_no_module_is_over_400_lines() -> None:
    """Small rooms: a module that grows past this is split by what its parts do."""
    long = [
        f"{path.relative_to(ROOT)}: {n} lines"
        for path in sources("headdiv")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400
    ]
    assert long == []


def test_javascript_lives_only_in_the_dashboards_assets() -> None:
    """Clientside callbacks are `ClientsideFunction`s of `assets/clientside.js`, never code in a string."""
    found = [
        f"{path.relative_to(ROOT)}"
        for path in sources("headdiv/dashboard")
        if re.search(r"function\s*\(|=>\s*\{|dash_clientside", path.read_text(encoding="utf-8"))
    ]
    assert found == []


PER_MODULE = {
    "VIEW": "each view module's own View, collected by the views' registry",
    "VIEW_ID": "each view module's own id",
    "CHARTS": "each view module's own chart names (and the figure catalogue's table of them)",
}
"""Names every module of a kind defines for itself, read through its module (`views.ensemble.VIEW`)."""


def test_one_name_one_value() -> None:
    """A module-level constant's name means one value across the package: two `POLL_S` of 2.0 and 0.05 made a
    reader of one think they knew the other. Values compare as Python sees them (two paths to the same
    folder are one value)."""
    import importlib

    seen: dict[str, list[tuple[str, object]]] = {}
    for path in sources("headdiv"):
        module = module_of(path)
        if module.endswith("__main__"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            target.id
            for node in tree.body
            for target in (node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)])
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name)
        }
        loaded = importlib.import_module(module)
        for name in names:
            if name.isupper() and len(name) > 1 and name not in PER_MODULE:
                seen.setdefault(name, []).append((module, getattr(loaded, name)))
    clashes = {
        name: [(module, repr(value)[:60]) for module, value in where]
        for name, where in seen.items()
        if any(value != where[0][1] for _, value in where[1:])
    }
    assert clashes == {}


BULLET = re.compile(r"^\s*-\s+(`[^`]+`(?:(?:,\s*(?:and\s+)?|\s+and\s+)`[^`]+`)*)\s*:")
"""A docstring line "- `a`, `b`: ..." (a bullet whose leading backticked names come before a colon)."""


def docstring_problems(docstring: str, names: set[str]) -> list[str]:
    """What a package docstring gets wrong about its folder, whose modules and subpackages are `names`: each one it
    does not name in backticks, and each name a bullet leads with that is not there."""
    missing = [f"`{name}` is not named" for name in sorted(names) if f"`{name}`" not in docstring]
    stale = [
        f"a bullet names `{name}`, which is not in the folder"
        for line in docstring.splitlines()
        if (bullet := BULLET.match(line))
        for name in re.findall(r"`([^`]+)`", bullet.group(1))
        if name not in names
    ]
    return missing + stale


def folder_names(folder: Path) -> set[str]:
    """A package folder's modules (but `__init__` and `__main__`) and subpackages."""
    modules = {p.stem for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    return modules | {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def test_every_package_docstring_names_what_is_in_its_folder() -> None:
    """A reader opening a package's `__init__` learns what each of its modules is for, and nothing that moved away."""
    problems = [
        f"{init.relative_to(ROOT)}: {problem}"
        for init in sorted((ROOT / "headdiv").rglob("__init__.py"))
        for problem in docstring_problems(
            ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "", folder_names(init.parent)
        )
    ]
    assert problems == []


def test_the_docstring_check_catches_a_missing_module_and_a_stale_bullet() -> None:
    doc = "A package.\n\n- `kept`, `gone`: one of them moved away\n- `other` and `sub`: here\n\nSee `kept`'s notes."
    assert docstring_problems(doc, {"kept", "other", "sub", "new"}) == [
        "`new` is not named",
        "a bullet names `gone`, which is not in the folder",
    ]
    assert docstring_problems(doc.replace("`gone`", "`new`"), {"kept", "other", "sub", "new"}) == []
    assert (
        docstring_problems("- `a`, and `b`: two\n- `c`: `d` is no module, but not a leading name", {"a", "b", "c"})
        == []
    )
