"""`import headdiv`: the calls, their results (summary, figures, link, command line), local and remote alike,
validated as the API validates, stopped by Ctrl-C (docs/python.md)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

import headdiv
from headdiv import lab
from headdiv.figures.catalog import CHARTS
from headdiv.jobs.ids import job_id
from headdiv.lab.calls import CALLS
from headdiv.lab.links import PAGE_OF
from headdiv.lab.summaries import RESULT_TABLES, SUMMARIES
from headdiv.schemas.fields import canonical, refusal_lines
from headdiv.schemas.results.report_results import ModelHeadsReport
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

SMALL: dict[str, Any] = {"H": 4, "d_k": 2, "n": 64, "replicates": 20, "queries": 16, "seed": 7}


def test_import_headdiv_is_light_and_names_every_call() -> None:
    code = (
        "import sys, headdiv; "
        "print(sorted(m for m in ('torch', 'dash', 'plotly', 'headdiv.workers.engine') if m in sys.modules)); "
        "print(all(callable(getattr(headdiv, n)) for n in "
        "('simulate','surface','architecture','sweep','covariance','train','hdi','theory','heads','connect','show')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True", out
    with pytest.raises(AttributeError):
        headdiv.nothing_like_this  # noqa: B018


def test_every_result_has_a_summary_a_table_charts_and_a_page() -> None:
    models = {spec.result for spec in CALLS.values()} | {ModelHeadsReport}
    assert models <= set(SUMMARIES) and models <= set(RESULT_TABLES) and models <= set(CHARTS)
    assert set(CALLS) - {"hdi"} <= set(PAGE_OF)  # arbitrary matrices have no view: url() says so


def test_a_simulation_from_python_is_the_apis_with_its_figures_link_and_command() -> None:
    r = headdiv.simulate(theta=30, **SMALL)
    assert isinstance(r, headdiv.Result) and r.mse == r.result.mse and r.mse > 0
    assert r.job_id == job_id("simulation", canonical(r.request))  # the id the API gives it
    text = str(r.summary())
    assert "MSE ± s.e." in text and f"{r.result.mse_se:.2g}"[:3] in text
    assert "<table" in r._repr_html_() and r"\pm" in r.summary().to_latex()
    assert set(r.figures()) == set(CHARTS[type(r.result)](r.result))
    assert r.figure().data and r.figure("weights").data
    with pytest.raises(KeyError, match="no figure 'nope'"):
        r.figure("nope")
    # the command line computes the same request
    argv = shlex.split(r.command())
    assert argv[:2] == ["headdiv", "simulate"]
    assert canonical(CALLS["simulate"].model.model_validate(json.loads(argv[2]))) == canonical(r.request)
    # the link reopens exactly this scenario (no warning), and the Python line is itself a call
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        link = r.url("http://lab.example")
    assert link.startswith("http://lab.example/?") and "theta=30" in link and "seed=7" in link
    again = eval(r.python(), {"headdiv": headdiv})
    assert again.request == r.request and again.result.mse == r.result.mse  # same seed, same numbers
    frame = pytest.importorskip("pandas")
    assert len(r.to_frame()) == 4 and isinstance(r.to_frame(), frame.DataFrame)


def test_a_link_that_cannot_be_exact_says_so() -> None:
    r = headdiv.sweep(base=SMALL, thetas=[0, 10, 90])  # the view's angles are evenly spaced
    with pytest.warns(UserWarning, match="close state"):
        link = r.url()
    assert "tab=diversity" in link and "dn=3" in link
    assert "mse_vs_hdi" in r.figures() and "verdict" in str(r.summary())
    with pytest.raises(ValueError, match="no dashboard view shows a hdi result"):
        headdiv.hdi(matrices=[[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]).url()


def test_a_bad_value_raises_the_apis_own_field_lines() -> None:
    with TestClient(headdiv_app()) as api:
        refused = api.post("/api/v1/simulations", json={"H": 1000}).json()["detail"]
    api_lines = refusal_lines({"detail": refused})
    with pytest.raises(headdiv.InvalidRequest) as raised:
        headdiv.simulate(H=1000)
    assert raised.value.problems == api_lines and api_lines[0].startswith("H: ")
    with pytest.raises(headdiv.InvalidRequest, match="not a field of this request"):
        headdiv.simulate(heads=3)


def headdiv_app() -> Any:
    from headdiv.server.main import create_app

    return create_app(embedded_settings(), mount_dashboard=False)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """An embedded server (API only) in a thread, for the remote calls."""
    with ServerThread(headdiv_app()) as running:
        yield running.url


def test_local_and_remote_calls_return_equal_results_with_the_same_job_id(server: str) -> None:
    here = lab.Lab().run("simulate", theta=60, **SMALL)
    there = lab.Lab(server).run("simulate", theta=60, **SMALL)
    assert there.job_id == here.job_id and there.request == here.request
    ignore = {"seconds", "device", "dtype"}  # how long it took, and where: not what it computed
    assert there.result.model_dump(exclude=ignore) == here.result.model_dump(exclude=ignore)
    assert lab.Lab(server).run("theory", n=1024, budget=64).result == headdiv.theory(n=1024, budget=64).result
    with pytest.raises(headdiv.InvalidRequest, match="H"):
        lab.Lab(server).run("simulate", H=1000)
    try:
        assert headdiv.connect(server).url == server and lab.default_lab().url == server
    finally:
        headdiv.connect(None)
    assert lab.default_lab().url is None


def test_ctrl_c_during_a_remote_job_cancels_it_on_the_server(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []

    def interrupt(self: Any, fraction: float) -> None:  # the person presses Ctrl-C while the bar moves
        seen.append(fraction)
        raise KeyboardInterrupt

    monkeypatch.setattr(lab._Bar, "__call__", interrupt)
    big = {**SMALL, "replicates": 2000, "queries": 128, "n": 1024, "H": 16, "seed": 11}
    with pytest.raises(KeyboardInterrupt):
        lab.Lab(server).run("simulate", **big)
    jid = job_id("simulation", canonical(CALLS["simulate"].model.model_validate(big)))
    import httpx

    deadline = time.monotonic() + 30
    while (status := httpx.get(f"{server}/api/v1/jobs/{jid}").json()["status"]) not in ("canceled", "failed"):
        assert time.monotonic() < deadline, status
        time.sleep(0.1)
    assert seen and status == "canceled"


def test_show_opens_the_dashboard_at_the_result_outside_a_notebook(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a Python prompt `show` prints the link; with no server connected it starts this process's own, and
    the link serves the dashboard's page (a script gets a file instead: tests/test_python_api_doors.py)."""
    import httpx

    from headdiv.lab import show as show_module

    monkeypatch.setattr(show_module, "_where", lambda: "prompt")
    r = headdiv.simulate(theta=20, **SMALL)
    link = headdiv.show(r)
    assert capsys.readouterr().out.splitlines()[0] == link and "theta=20" in link
    page = httpx.get(link, timeout=60)
    assert page.status_code == 200 and 'id="_dash-config"' in page.text
    assert headdiv.show("tab=diversity", base="http://lab.example") == "http://lab.example/?tab=diversity"
