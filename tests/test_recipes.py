"""CONTRIBUTING.md's recipes, carried out: on a scratch copy of the code, add a weighting scheme with a
parameter, or a geometry, by editing the modules the recipe names; then check in a fresh interpreter
that the new choice reaches the scenario, the engine, the API, the CLI, the URL, the dashboard and the
docs. The checkout itself is never modified."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from headdiv.jobs.ids import CHOICES_FINGERPRINT

ROOT = Path(__file__).resolve().parents[1]
SMALL = '"replicates": 4, "queries": 3, "n": 24, "H": 3'


def scratch_copy(tmp_path: Path) -> Path:
    """The packages and docs, copied (the recipes touch nothing else)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("headdiv", "docs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=ignore)
    return tmp_path


def add_choice(module: Path, choice: str) -> None:
    """A recipe's edit: one registered class (or a geometry's builder), at the end of the module."""
    module.write_text(module.read_text() + "\n\n" + textwrap.dedent(choice))


def run_checks(root: Path, code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "HEADDIV_COMPILE": "off"},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


COMMON_CHECKS = """
    import json, sys
    from fastapi.testclient import TestClient
    from headdiv.cli import main
    from headdiv.server.main import create_app
    from headdiv.server.server_settings import ServerSettings
    from headdiv.workers import docs
    from headdiv.jobs.ids import CHOICES_FINGERPRINT
    from headdiv.dashboard.page.app import build_registry
    from headdiv.dashboard.page.controls import field_control
    from headdiv.dashboard.views import VIEWS

    api = TestClient(create_app(ServerSettings(redis_url=None, warm_up=False), mount_dashboard=False))
    registry = build_registry(VIEWS)

    def post(body):
        return api.post("/api/v1/simulations?wait=60", json=body)

    assert docs.stale() == ["docs/engine.md"], docs.stale()
    assert docs.main(["--root", "."]) == 0 and docs.stale() == []
    print("fingerprint", CHOICES_FINGERPRINT)
"""


WEIGHTING_SCHEME = (
    (
        (
            "headdiv/schemas/weightings.py",
            """
    @WEIGHTINGS.register("inverse_mse", "inverse MSE (γ)")
    class InverseMse(FixedWeights):
        \"\"\"Head h weighs MSE_h^-γ, normalised.\"\"\"

        gamma: Annotated[Float, Slider(0.0, 4.0, 0.25), Sweep((0, 1, 2, 4))] = Field(
            1.0, ge=0, le=8, title="γ (inverse MSE)", description="Power of the inverse-MSE weights."
        )

        def alpha(self, m: ErrorMoments) -> np.ndarray:
            w = m.head_mse ** -self.gamma
            return w / w.sum()
    """,
        ),
    ),
    f"""
    from headdiv.figures.weighting_charts import scheme_bars
    from headdiv.dashboard.views import weighting_view as weighting
    from headdiv.schemas.results.simulation_results import SimulationResult
    from headdiv.schemas import SWEEP_PARAMS

    r = post({{{SMALL}, "weights": "inverse_mse", "gamma": 2}})
    result = r.json()["result"]
    scheme = result["weightings"]["inverse_mse"]
    assert r.status_code == 200 and abs(sum(scheme["alpha"]) - 1) < 1e-12 and result["mse"] == scheme["mse"]
    bad = post({{"gamma": -1}})
    assert bad.status_code == 422 and bad.json()["message"].startswith("gamma:"), bad.text
    assert main(["simulate", json.dumps({{{SMALL}, "weights": "inverse_mse", "gamma": 0.5}})]) == 0
    state = registry.parse("?tab=weighting&weights=inverse_mse&gamma=3")
    assert state["gamma"] == 3.0 and state.notices == [] and "gamma" in SWEEP_PARAMS
    assert "sc-gamma" in str(weighting.layout(state))
    assert "inverse MSE (γ)" in scheme_bars(SimulationResult.model_validate(result)).data[0].x
    assert {{"label": "inverse MSE (γ)", "value": "inverse_mse"}} in field_control(registry["weights"], state).options
    assert "| `weights` | `inverse_mse` | inverse MSE (γ) | `gamma` (0 ≤ gamma ≤ 8" in open("docs/engine.md").read()
    """,
)

GEOMETRY = (
    (
        (
            "headdiv/schemas/geometries.py",
            """
    @GEOMETRIES.register("orthogonal", "orthogonal")
    class Orthogonal(Geometry):
        \"\"\"Every head in its own private block: all principal angles 90°.\"\"\"
    """,
        ),
        (
            "headdiv/workers/engine/head_layouts.py",
            """
    from headdiv.schemas.geometries import Orthogonal


    @builds(Orthogonal)
    def _orthogonal(g: Orthogonal, s: ScenarioFields, normal: Normal) -> Layout:
        return _tilted_blocks(s.H, s.d_k, np.full(s.H, np.pi / 2))
    """,
        ),
    ),
    f"""
    r = post({{{SMALL}, "geometry": "orthogonal"}})
    result = r.json()["result"]
    assert r.status_code == 200 and result["hdi"] == 1.0
    assert all(a == 90.0 for pair in result["principal_angles_deg"] for a in pair["angles"])
    arch = {{"budget": 4, "base": {{{SMALL}, "geometry": "orthogonal"}}}}
    assert api.post("/api/v1/architectures?wait=60", json=arch).status_code == 200
    assert main(["simulate", json.dumps({{{SMALL}, "geometry": "orthogonal"}})]) == 0
    state = registry.parse("?geometry=orthogonal")
    assert state["geometry"] == "orthogonal" and state.notices == []
    assert {{"label": "orthogonal", "value": "orthogonal"}} in field_control(registry["geometry"], state).options
    assert "| `geometry` | `orthogonal` | orthogonal | — |" in open("docs/engine.md").read()
    """,
)


@pytest.mark.slow
@pytest.mark.parametrize(("edits", "checks"), [WEIGHTING_SCHEME, GEOMETRY], ids=["weighting", "geometry"])
def test_a_new_choice_is_one_class_where_its_recipe_says(
    tmp_path: Path, edits: tuple[tuple[str, str], ...], checks: str
) -> None:
    """One class in the concept's module; a geometry adds its builder in the engine."""
    root = scratch_copy(tmp_path)
    for module, choice in edits:
        add_choice(root / module, choice)
    out = run_checks(root, COMMON_CHECKS + checks)
    assert "fingerprint" in out and CHOICES_FINGERPRINT not in out  # new job ids: no stale result is served


JOB_KIND_FILES = {
    "headdiv/schemas/requests.py": (
        None,
        """
        class CountdownRequest(StrictModel):
            \"\"\"Count down from `steps`, one step every 10 ms (a trivial job kind).\"\"\"

            model_config = ConfigDict(json_schema_extra={"examples": [{"steps": 3}]})
            steps: Int = Field(3, ge=1, le=100_000, description="Steps to count.")
        """,
    ),
    "headdiv/schemas/results/lab_results.py": (
        None,
        """
        class CountdownResult(ResultModel):
            \"\"\"How far a countdown counted.\"\"\"

            counted: int
        """,
    ),
    "headdiv/workers/engine/countdown.py": (
        None,
        """
        import time
        from typing import Unpack

        from headdiv.workers.engine.hooks import Hooks
        from headdiv.schemas.errors import JobCancelled
        from headdiv.schemas.requests import CountdownRequest
        from headdiv.schemas.results.lab_results import CountdownResult


        def run_countdown(request: CountdownRequest, /, **hooks: Unpack[Hooks]) -> CountdownResult:
            progress, should_cancel = hooks.get("progress"), hooks.get("should_cancel")
            for step in range(request.steps):
                if should_cancel and should_cancel():
                    raise JobCancelled(f"stopped at step {step}")
                if progress:
                    progress(step / request.steps)
                time.sleep(0.01)
            return CountdownResult(counted=request.steps)
        """,
    ),
    "headdiv/workers/engine/dispatch.py": (
        ("RUNNERS: tuple[RunnerEntry[Any, Any], ...] = (\n", "RequestT = TypeVar("),
        (
            "    RunnerEntry(CountdownRequest, CountdownResult, run_countdown),\n",
            "from headdiv.workers.engine.countdown import run_countdown\n"
            "from headdiv.schemas.requests import CountdownRequest\n"
            "from headdiv.schemas.results.lab_results import CountdownResult\n\n",
        ),
    ),
    "headdiv/jobs/kinds.py": (
        (
            '        JobKind("training", TrainingRequest, TrainingResult, "/trainings", "train"),\n',
            "\n\n@dataclass(frozen=True)\nclass JobKind",
        ),
        (
            '        JobKind("countdown", CountdownRequest, CountdownResult, "/countdowns", "countdown"),\n',
            "\nfrom headdiv.schemas.requests import CountdownRequest\n"
            "from headdiv.schemas.results.lab_results import CountdownResult\n",
        ),
    ),
    "headdiv/server/api/routes/computations_routes.py": (
        None,
        """
        from headdiv.schemas.requests import CountdownRequest

        COUNTDOWN = JOB_KINDS["countdown"]


        @job_route(COUNTDOWN)
        async def post_countdown(request: CountdownRequest, submit: Submit) -> Response:
            return await submit(COUNTDOWN, request)
        """,
    ),
}
"""What CONTRIBUTING's job-kind recipe edits: a new module's text, a class appended, or lines put after
(the entry) and before (its import) an anchor of the file."""

JOB_KIND_CHECKS = """
    import json, time
    from fastapi.testclient import TestClient
    from headdiv.dashboard.drawing.export import CLI_COMMANDS
    from headdiv.cli import main
    from headdiv.server.main import create_app
    from headdiv.server.server_settings import ServerSettings
    from headdiv.workers import docs

    api = TestClient(create_app(ServerSettings(redis_url=None, warm_up=False), mount_dashboard=False))
    r = api.post("/api/v1/countdowns?wait=60", json={"steps": 3})
    assert r.status_code == 200 and r.json()["result"] == {"counted": 3}, r.text
    again = api.post("/api/v1/countdowns?wait=60", json={"steps": 3}).json()
    assert again["cached"] is True and again["job_id"] == r.json()["job_id"]
    bad = api.post("/api/v1/countdowns", json={"steps": 0})
    assert bad.status_code == 422 and bad.json()["message"].startswith("steps:"), bad.text
    assert main(["countdown", json.dumps({"steps": 2})]) == 0

    long = api.post("/api/v1/countdowns", json={"steps": 100_000})
    assert long.status_code == 202, long.text
    job = long.json()["job_id"]
    assert api.delete(f"/api/v1/jobs/{job}").status_code in (200, 202)
    ended = api.get(f"/api/v1/jobs/{job}?wait=30").json()
    assert ended["status"] == "canceled", ended

    schema = api.get("/openapi.json").json()
    ok = schema["paths"]["/api/v1/countdowns"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["$ref"].endswith("CountdownResult_"), ok
    assert CLI_COMMANDS["/countdowns"] == "countdown"
    assert docs.stale() == ["docs/api.md"], docs.stale()
    assert docs.main(["--root", "."]) == 0 and docs.stale() == []
    assert "| `countdown` | `POST /api/v1/countdowns` | `headdiv countdown` |" in open("docs/api.md").read()
    print("countdown ok")
"""


@pytest.mark.slow
def test_a_new_job_kind_is_a_request_a_runner_and_two_entries(tmp_path: Path) -> None:
    root = scratch_copy(tmp_path)
    for name, (anchors, text) in JOB_KIND_FILES.items():
        path = root / name
        if anchors is None:
            new = textwrap.dedent(text)
            path.write_text(path.read_text() + "\n\n" + new if path.exists() else new)
            continue
        source = path.read_text()
        (after, before), (entry, imports) = anchors, text
        assert source.count(after) == 1 and source.count(before) == 1, name
        source = source.replace(after, after + entry).replace(before, imports + before)
        path.write_text(source)
    out = run_checks(root, JOB_KIND_CHECKS)
    assert "countdown ok" in out
