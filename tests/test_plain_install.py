"""The default install answers every route and every README command: no 5xx, no traceback.

`make run` installs the package alone (`pip install -e .` and the built-in model's weights); the suite's own
environment has the test extras too, which bring modules the package does not declare. Here the app runs in
an environment made the way `make run` makes it (`make test` builds `.venv-plain` and names its Python in
`HEADDIV_PLAIN_PYTHON`): `headdiv serve` with a model folder and a Hugging Face cache to list, each route of
its API (every GET, and a request of each POST), the dashboard's page, the README's engine commands, and
the Python API against the server.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from safetensors.numpy import save_file

from tests.conftest import need
from tests.server.helpers import free_port
from tests.serving import serving

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CPU_BLOCK = "The engine commands below run as written on a CPU-only machine"
TINY_REPO = "headdiv-tests/tiny-llama"


@pytest.fixture(scope="module")
def plain_python() -> Path:
    value = os.environ.get("HEADDIV_PLAIN_PYTHON")
    if not value or not Path(value).is_file():
        need("no plain install: `make test` builds .venv-plain and sets HEADDIV_PLAIN_PYTHON")
    return Path(value)


def _tiny_model(folder: Path) -> None:
    """A LLaMA-like checkpoint of two layers, four heads of dimension 2, as `save_pretrained` lays it out."""
    rng = np.random.default_rng(3)
    p, d, heads = 16, 2, 4
    tensors = {"model.embed_tokens.weight": np.ones((10, p), dtype=np.float32)}
    for i in range(2):
        for name in ("q", "k", "v"):
            weight = rng.standard_normal((heads * d, p)).astype(np.float32)
            tensors[f"model.layers.{i}.self_attn.{name}_proj.weight"] = weight
    folder.mkdir(parents=True)
    save_file(tensors, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"num_attention_heads": heads, "hidden_size": p}))


def _hf_cache(cache: Path) -> None:
    """One model in a Hugging Face hub cache, laid out as huggingface_hub lays it (refs, snapshots)."""
    revision = "0" * 40
    repo = cache / ("models--" + TINY_REPO.replace("/", "--"))
    _tiny_model(repo / "snapshots" / revision)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)


@pytest.fixture(scope="module")
def plain_env(plain_python: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("plain")
    _tiny_model(base / "models" / "tiny")
    _hf_cache(base / "hub")
    env = {
        k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL", "VIRTUAL_ENV", "PYTHONPATH")
    }
    env.update(
        PATH=f"{plain_python.parent}{os.pathsep}{env.get('PATH', '')}",
        HEADDIV_MODELS_DIR=str(base / "models"),
        HF_HUB_CACHE=str(base / "hub"),
        HF_HUB_OFFLINE="1",
        HEADDIV_COMPILE="off",
        HEADDIV_WARM_UP="0",
        HEADDIV_WARM_START="0",
        HEADDIV_DEVICE="cpu",
    )
    return env


def test_the_plain_environment_lacks_the_extras(plain_python: Path) -> None:
    """Otherwise this file would test nothing the rest of the suite does not."""
    found = subprocess.run(
        [
            str(plain_python),
            "-c",
            "import importlib.util as u; print([m for m in "
            "('transformers', 'pytest', 'pandas', 'headdiv') if u.find_spec(m)])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found == "['headdiv']"


@pytest.fixture(scope="module")
def plain_server(
    plain_python: Path, plain_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    port = free_port()
    log_path = tmp_path_factory.mktemp("plain-log") / "server.log"
    url = f"http://127.0.0.1:{port}"
    command = [str(plain_python.parent / "headdiv"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    with serving(command, url, plain_env, log_path):
        yield url, log_path


def _path_values(client: httpx.Client) -> dict[str, str]:
    """A value for each path parameter, from the server's own listings where there is one (a bogus id
    elsewhere: its 404 is as much an answer as a 200)."""
    local = client.get("/api/v1/models/local").json()
    builtin = client.get("/api/v1/models/builtin").json()
    poll = client.post("/api/v1/polls", json={"topic": "plain/1", "choices": ["a", "b"]}).json()
    room = client.post("/api/v1/rooms", json={}).json()
    return {
        "model_id": local["models"][0]["id"],
        "name": builtin["models"][0]["name"],
        "poll_id": str(poll["id"]),
        "code": str(room.get("code", "NOROOM")),
        "job_id": "0" * 64,
    }


POST_BODIES: dict[str, Any] = {
    "/api/v1/simulations": {"H": 2, "d_k": 2, "n": 64, "replicates": 10},
    "/api/v1/surfaces": {
        "base": {"replicates": 5, "n": 64},
        "x": {"param": "theta", "values": [0, 90]},
        "y": {"param": "H", "values": [2, 4]},
    },
    "/api/v1/architectures": {"budget": 8, "base": {"replicates": 5, "n": 64}},
    "/api/v1/sweeps/diversity": {"thetas": [0, 90], "base": {"replicates": 5, "n": 64}},
    "/api/v1/labs/covariance": {"thetas": [0, 90], "base": {"H": 2, "replicates": 5, "n": 64}},
    "/api/v1/trainings": {"steps": 2, "record_every": 1, "base": {"replicates": 5, "n": 64}},
    "/api/v1/hdi": {"matrices": [[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]},
}


def test_every_route_answers_without_a_5xx(plain_server: tuple[str, Path]) -> None:
    url, log_path = plain_server
    answered: dict[str, int] = {}
    with httpx.Client(base_url=url, timeout=120, headers={"X-Headdiv-Upload": "1"}) as client:
        spec = client.get("/openapi.json").json()
        values = _path_values(client)
        for path, methods in spec["paths"].items():
            concrete = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
            if "get" in methods and path.endswith("/events"):  # a stream that lasts as long as the room: its head
                with client.stream("GET", concrete) as stream:
                    answered[f"GET {path}"] = stream.status_code
            elif "get" in methods:
                answered[f"GET {path}"] = client.get(concrete).status_code
            if "post" in methods and path in POST_BODIES:
                answered[f"POST {path}"] = client.post(
                    concrete, params={"wait": 60}, json=POST_BODIES[path]
                ).status_code
            elif "post" in methods and "{" in path and path.endswith("/hdi"):
                answered[f"POST {path}"] = client.post(concrete).status_code
        for page in ("/", "/_dash-layout", "/_dash-dependencies", f"/vote/{values['poll_id']}"):
            answered[f"GET {page}"] = client.get(page).status_code
    failed = {route: status for route, status in answered.items() if status >= 500}
    assert not failed, failed
    # what the Real models tab lists and measures on the default install
    assert answered["GET /api/v1/models/local"] == 200
    assert answered["GET /api/v1/models/local/{model_id}/hdi"] == 200
    assert sum(k.startswith("POST") for k in answered) >= len(POST_BODIES)
    with httpx.Client(base_url=url, timeout=30) as client:
        ids = {m["id"] for m in client.get("/api/v1/models/local").json()["models"]}
    assert {"dir:tiny", TINY_REPO} <= ids, ids
    log = log_path.read_text()
    assert "Traceback" not in log and " 500 " not in log, log[-3000:]


def _readme_block(marker: str) -> list[str]:
    rest = README.split(marker, 1)[1]
    block = re.search(r"```sh\n(.*?)```", rest, re.DOTALL)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def _run(line: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_the_readme_commands_run_on_the_plain_install(plain_env: dict[str, str], tmp_path: Path) -> None:
    lines = _readme_block(CPU_BLOCK)
    assert sum("headdiv " in line for line in lines) >= 7
    assert not any("cuda" in line for line in lines)
    lines += [
        "headdiv heads all-MiniLM-L6-v2 --csv",
        f"headdiv heads {TINY_REPO}",
    ]
    for line in lines:
        result = _run(line, plain_env, tmp_path)
        assert result.returncode == 0, f"{line}\n{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, f"{line}\n{result.stderr[-2000:]}"
        if (line.startswith("headdiv ") and "--csv" not in line) or "| headdiv" in line:
            assert isinstance(json.loads(result.stdout), dict), line


def test_a_model_missing_from_the_cache_is_one_line(plain_env: dict[str, str], tmp_path: Path) -> None:
    """docs/labs.md's `headdiv heads Qwen/Qwen2.5-0.5B` where the cache lacks it: status 2 and one line."""
    result = _run("headdiv heads Qwen/Qwen2.5-0.5B", plain_env, tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Qwen/Qwen2.5-0.5B" in lines[0], lines


def test_the_python_api_lists_a_server_s_models(
    plain_python: Path, plain_env: dict[str, str], plain_server: tuple[str, Path]
) -> None:
    url, _ = plain_server
    script = f"import headdiv; print(sorted(m.id for m in headdiv.connect({url!r}).local_models()))"
    result = subprocess.run(
        [str(plain_python), "-c", script], env=plain_env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "dir:tiny" in result.stdout and TINY_REPO in result.stdout, result.stdout


def _blocks(language: str) -> list[str]:
    """Every line of the README's code blocks in `language`, comments and blank lines dropped."""
    lines: list[str] = []
    for block in re.findall(rf"```{language}\n(.*?)```", README, re.DOTALL):
        lines += [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return lines


NOT_RUN = {
    "make run": "what `make test` itself bootstraps; this environment is what it installs",
    "make test": "what CI runs: this test is part of it",
    "--device cuda": "GPU only (bench/gpu_session.sh runs it on a lent GPU)",
    "redis-server": "the scaled set-up: tests/server/test_rq.py and bench/gpu_scaled.py run it with a real Redis",
    "REDIS_URL=": "the scaled set-up, as above",
    "headdiv worker &": "the scaled set-up, as above",
    "headdiv serve --host 0.0.0.0": "the scaled set-up, as above (the plain server here is `headdiv serve`)",
    "docker compose": "needs Docker; tests/test_compose.py checks the file",
}
"""README lines not run here, each with where it is checked instead."""
SYNOPSIS = "headdiv serve [--host H] [--port P]"
"""The first line of the command-line synopsis: its lines take placeholders, so each command's --help runs."""


@pytest.mark.slow
def test_every_other_readme_example_runs_on_the_plain_install(
    plain_python: Path, plain_env: dict[str, str], plain_server: tuple[str, Path], tmp_path: Path
) -> None:
    """The exports, the Python and curl examples (against the plain server: 8050 becomes its port) and the
    command-line synopsis (each command's --help); every README line is run here, in the engine block's
    test above, or named in NOT_RUN with where it is checked."""
    url, log_path = plain_server
    port = url.rsplit(":", 1)[1]
    ran: set[str] = set(_readme_block(CPU_BLOCK))
    shell = _blocks("sh")
    first = next(i for i, line in enumerate(shell) if line.startswith(SYNOPSIS))
    synopsis = shell[first : first + 5]
    assert all(line.startswith("headdiv ") for line in synopsis), synopsis
    for line in synopsis:
        command = line.split("#")[0].split()[:2]
        result = _run(" ".join([*command, "--help"]), plain_env, tmp_path)
        assert result.returncode == 0 and "usage: headdiv" in result.stdout, line
        ran.add(line)
    exports = [line for line in shell if line.startswith("headdiv export ") and line not in synopsis]
    assert len(exports) >= 3
    for line in exports:
        result = _run(line.split("  #")[0].replace(":8050", f":{port}"), plain_env, tmp_path)
        assert result.returncode == 0 and "Traceback" not in result.stderr, f"{line}\n{result.stderr[-2000:]}"
        ran.add(line)
    written = sorted(p.name for p in tmp_path.glob("*.html"))
    assert {"lecture.html", "ensemble.html", "headdiv-tour-splitting-a-budget.html"} <= set(written), written
    curl = " ".join(part.rstrip("\\").strip() for part in shell if "curl" in part or part.lstrip().startswith("-H"))
    result = _run(curl.replace(":8050", f":{port}"), plain_env, tmp_path)
    assert result.returncode == 0 and json.loads(result.stdout)["status"] == "finished", result.stdout[-500:]
    ran |= {line for line in shell if "curl" in line or line.lstrip().startswith("-H")}
    python = _blocks("python")
    script = "\n".join(python).replace(":8050", f":{port}")
    result = subprocess.run(
        [str(plain_python), "-c", script], env=plain_env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    skipped = {line for line in shell if any(key in line for key in NOT_RUN)}
    unaccounted = [line for line in shell if line not in ran | skipped]
    assert unaccounted == [], unaccounted
    assert "Traceback" not in log_path.read_text()
