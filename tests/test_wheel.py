"""The distribution installs one package, `headdiv`, and nothing generic at the top of site-packages: a
user's own `server.py` or `workers/` beside a notebook must not shadow ours, nor ours theirs."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*argv: str | Path, cwd: Path | None = None) -> str:
    result = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy (setuptools writes build/ and egg-info beside the sources), in this interpreter
    # (no build isolation, so nothing is downloaded).
    source = tmp_path_factory.mktemp("source")
    shutil.copytree(ROOT / "headdiv", source / "headdiv", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", out, source)
    (built,) = out.glob("headdiv-*.whl")
    return built


def test_the_wheel_holds_one_top_level_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"headdiv"}
    # the dashboard's files travel with it
    assert "headdiv/dashboard/assets/style.css" in names and "headdiv/dashboard/vendor/plotly-2d.min.js" in names
    assert any(n.startswith("headdiv/dashboard/explanations/") for n in names)


def venv_with(wheel: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A fresh venv holding the wheel alone: (its python, its site-packages). The wheel itself goes into it;
    its dependencies (torch and the rest) are lent from this interpreter's site-packages by a path line,
    which does not run this checkout's editable-install hook."""
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    (site / "lent-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python, site


@pytest.mark.slow
def test_installed_in_a_fresh_venv_it_computes_beside_a_users_own_server_and_workers(
    wheel: Path, tmp_path: Path
) -> None:
    python, site = venv_with(wheel, tmp_path)

    notebook = tmp_path / "notebook"
    (notebook / "workers").mkdir(parents=True)
    (notebook / "server.py").write_text("raise ImportError('the user server.py was imported')\n")
    (notebook / "workers" / "__init__.py").write_text("raise ImportError('the user workers/ was imported')\n")
    (notebook / "dashboard.py").write_text("raise ImportError('the user dashboard.py was imported')\n")
    code = (
        "import json, headdiv, {also}sys\n"
        "from headdiv.cli import main\n"
        "assert headdiv.__file__.startswith(sys.argv[1]), headdiv.__file__\n"
        "assert main(['simulate', json.dumps({{'H': 2, 'n': 16, 'replicates': 2, 'queries': 2}})]) == 0\n"
    )

    def beside_the_notebook(also: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [python, "-c", code.format(also=also), str(site)],
            cwd=notebook,
            capture_output=True,
            text=True,
            timeout=300,
            env={"PATH": "/usr/bin:/bin", "HEADDIV_COMPILE": "off"},
        )

    # `import server` reaches the user's own file (it raises), so ours never stands in its way
    result = beside_the_notebook("server, ")
    assert "the user server.py was imported" in result.stderr, result.stdout + result.stderr
    result = beside_the_notebook("")
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"mse"' in result.stdout


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_fresh_venv_with_the_wheel_runs_the_tutorial_notebook(wheel: Path, tmp_path: Path) -> None:
    """docs/notebooks/tour.ipynb, end to end, with `headdiv` from the built wheel alone (its dependencies
    lent from this interpreter, as above), from a directory that is not the checkout."""
    from tests.test_notebook import NOTEBOOK, RUN

    python, site = venv_with(wheel, tmp_path)
    script = tmp_path / "run_notebook.py"
    script.write_text(RUN + "import headdiv\nassert headdiv.__file__.startswith(sys.argv[2]), headdiv.__file__\n")
    result = subprocess.run(
        [python, script, NOTEBOOK, site],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=500,
        env={"PATH": "/usr/bin:/bin", "HEADDIV_COMPILE": "off"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "layer 5" in result.stdout and "headdiv simulate " in result.stdout
