"""The `headdiv` command line: help, input errors (status 2, `field: reason`), and real engine runs."""

from __future__ import annotations

import io
import json
import math
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from headdiv import cli

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = (
    "serve",
    "worker",
    "dashboard",
    "simulate",
    "surface",
    "architecture",
    "sweep",
    "train",
    "hdi",
    "theory",
    "heads",
)
TINY = '{"replicates": 4, "queries": 4, "n": 32}'


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Call `headdiv` in-process; returns (status, stdout, stderr). argparse's exits count as statuses."""
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- help ---------------------------------------------------------------------------------------------------------


def test_top_level_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "--help")
    assert status == 0
    for name in SUBCOMMANDS:
        assert f"    {name}" in out, name


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_subcommand_help_says_what_it_does(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, out, _ = run_cli(capsys, name, "--help")
    assert status == 0
    assert out.startswith(f"usage: headdiv {name}")
    description = out.split("\n\n", 2)[1]
    assert len(description.split()) >= 8, f"`headdiv {name} --help` says too little: {description!r}"


def test_help_is_instant_because_torch_is_imported_lazily() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from headdiv import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: cli.main(['--help'])\n"
        "    except SystemExit: pass\n"
        "    try: cli.main(['simulate', '{\"H\": 0}'])\n"
        "    except SystemExit: pass\n"
        "heavy = sorted(m for m in ('torch', 'fastapi', 'dash', 'uvicorn') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"imported at start-up: {result.stdout.strip()}"


def test_console_script_runs() -> None:
    script = Path(sys.executable).with_name("headdiv")
    if not script.exists():
        pytest.skip(f"the project is not installed in {sys.prefix} (pip install -e .)")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    from headdiv.workers import __version__

    assert result.stdout.strip() == f"headdiv {__version__}"


# --- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("simulate", '{"H": 0}'), "H: "),
        (("simulate", '{"bogus": 1}'), "bogus: "),
        (("simulate", '{"noise": NaN}'), "noise: "),
        (("simulate", '{"H": true}'), "H: "),
        (("simulate", '{"replicates": 99999999999999999999999}'), "replicates: "),
        (("simulate", '{"geometry": "tilted"}'), "tilts: "),
        (("simulate", '{"replicates": 5000, "queries": 1024, "n": 65536, "H": 64, "d_k": 256}'), "work budget"),
        (("simulate", "not json"), "input: invalid JSON"),
        (("simulate", ""), "input: the argument is empty"),
        (("simulate", "[1, 2]"), "input: expected a JSON object"),
        (("simulate", "[" * 100000 + "]" * 100000), "input:"),
        (("surface", '{"x": {"param": "H", "values": [1, 2]}, "y": {"param": "H", "values": [3]}}'), "y.param: "),
        (("surface", '{"x": {"param": "nope", "values": [1]}, "y": {"param": "H", "values": [3]}}'), "x.param: "),
        (("architecture", '{"budget": 0}'), "budget: "),
        (("sweep", '{"thetas": [0, 120]}'), "thetas.1: "),
        (("hdi", '{"matrices": []}'), "matrices: "),
        (("hdi", '{"matrices": [[[1], [0]], [[1], [0], [0]]]}'), "matrices[1]: "),
        (("theory", '{"n": 1}'), "n: "),
    ],
)
def test_invalid_input_exits_2_naming_the_field(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], expected: str
) -> None:
    status, out, err = run_cli(capsys, *argv)
    assert status == 2
    assert out == ""
    assert expected in err, err
    assert "Traceback" not in err


def test_unreadable_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    status, _, err = run_cli(capsys, "simulate", f"@{missing}")
    assert status == 2
    assert f"input: cannot read {str(missing)!r}" in err


def test_bad_file_contents_name_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"H": 4,\n "d_k": }')
    status, _, err = run_cli(capsys, "simulate", f"@{path}")
    assert status == 2
    assert f"invalid JSON in the {path} at line 2" in err


def test_bad_option_values_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "serve", "--port", "70000")[0] == 2
    assert run_cli(capsys, "simulate", "{}", "--device", "tpu")[0] == 2
    assert run_cli(capsys, "simulate", "{}", "--dtype", "float16")[0] == 2


def test_worker_without_redis_url_exits_2(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    status, _, err = run_cli(capsys, "worker", "--burst")
    assert status == 2
    assert "REDIS_URL" in err


@pytest.mark.parametrize(
    ("argv", "variable", "value"),
    [
        (["simulate", "{}"], "HEADDIV_DEVICE", "tpu"),
        (["hdi", '{"matrices": [[[1]]]}'], "HEADDIV_MAX_WORK", "-1"),
        (["serve"], "HEADDIV_PORT", "eighty"),
    ],
)
def test_bad_environment_settings_exit_2_naming_the_variable(argv: list[str], variable: str, value: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "headdiv.cli", *argv],
        cwd=ROOT,
        env={**os.environ, variable: value},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"{variable}: "), result.stderr
    assert "Traceback" not in result.stderr


# --- pure helpers -------------------------------------------------------------------------------------------------


def test_browser_url_shows_loopback_for_wildcard_binds() -> None:
    assert cli.browser_url("0.0.0.0", 8050) == "http://127.0.0.1:8050/"
    assert cli.browser_url("::", 9000) == "http://[::1]:9000/"
    assert cli.browser_url("example.org", 80) == "http://example.org:80/"


def test_redact_url_hides_passwords_only() -> None:
    assert cli.redact_url("redis://user:secret@host:6379/0") == "redis://user:***@host:6379/0"
    assert cli.redact_url("redis://:secret@host:6379/0") == "redis://:***@host:6379/0"
    assert cli.redact_url("redis://host:6379/0") == "redis://host:6379/0"


def test_progress_printer_reports_in_steps() -> None:
    stream = io.StringIO()
    printer = cli.ProgressPrinter("surface", stream, step=25)
    for i in range(101):
        printer(i / 100)
    assert stream.getvalue().splitlines() == [f"surface: {p}%" for p in (0, 25, 50, 75, 100)]


# --- real engine runs ---------------------------------------------------------------------------------------------


def _check_simulation(out: str) -> dict[str, object]:
    result = json.loads(out)
    for key in ("mse", "bias2", "variance", "covariance"):
        assert isinstance(result[key], float) and math.isfinite(result[key]), key
    assert result["mse"] == pytest.approx(result["bias2"] + result["variance"] + result["covariance"], rel=1e-6)
    assert result["mse"] == pytest.approx(result["mse_direct"], rel=1e-4)
    assert result["scenario"]["replicates"] == 4 and result["scenario"]["n"] == 32
    return result


def test_simulate_literal_prints_a_consistent_decomposition(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(capsys, "simulate", TINY, "--device", "cpu")
    assert status == 0, err
    _check_simulation(out)
    assert "simulate: H=4" in err and "done in" in err


def test_simulate_reads_a_file_and_stdin_alike(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(TINY)
    status, from_file, err = run_cli(capsys, "simulate", f"@{path}", "--dtype", "float64")
    assert status == 0, err
    monkeypatch.setattr(sys, "stdin", io.StringIO(TINY))
    status, from_stdin, err = run_cli(capsys, "simulate", "-", "--dtype", "float64")
    assert status == 0, err
    first, second = _check_simulation(from_file), _check_simulation(from_stdin)
    assert first["mse"] == second["mse"], "the same seeded scenario must give the same numbers"
    assert first["dtype"] == "float64"


def test_hdi_of_two_heads_sharing_one_direction(capsys: pytest.CaptureFixture[str]) -> None:
    request = {"matrices": [[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]}
    status, out, err = run_cli(capsys, "hdi", json.dumps(request))
    assert status == 0, err
    result = json.loads(out)
    # One shared direction out of two: overlap 1/2, so HDI = 1 - 1/2 (docs/model.md section 6).
    assert result["hdi"] == pytest.approx(0.5)
    assert result["principal_angles_deg"][0]["angles"] == pytest.approx([0.0, 90.0], abs=1e-6)


def test_surface_prints_a_full_grid_and_its_progress(capsys: pytest.CaptureFixture[str]) -> None:
    request = {
        "base": {"replicates": 4, "queries": 4, "n": 32},
        "x": {"param": "theta", "values": [0, 45, 90]},
        "y": {"param": "H", "values": [2, 3]},
    }
    status, out, err = run_cli(capsys, "surface", json.dumps(request), "--device", "cpu")
    assert status == 0, err
    result = json.loads(out)
    assert result["x"] == {"param": "theta", "values": [0.0, 45.0, 90.0]}
    assert result["y"] == {"param": "H", "values": [2, 3]}
    for name in ("mse", "bias2", "variance", "covariance"):
        grid = result["metrics"][name]
        assert len(grid) == 2 and all(len(row) == 3 for row in grid), name
    # Identical heads (theta = 0) have no diversity; orthogonal ones (theta = 90) have all of it.
    assert [row[0] for row in result["metrics"]["hdi"]] == pytest.approx([0.0, 0.0], abs=1e-9)
    assert [row[2] for row in result["metrics"]["hdi"]] == pytest.approx([1.0, 1.0], abs=1e-9)
    progress = [line for line in err.splitlines() if line.startswith("surface: ") and line.endswith("%")]
    assert progress[0] == "surface: 0%" and progress[-1] == "surface: 100%"


def test_theory_marks_the_minimiser_of_its_candidates(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(capsys, "theory", '{"n": 1024, "budget": 16}')
    assert status == 0, err
    result = json.loads(out)
    assert sorted(c["d_k"] for c in result["candidates"]) == [1, 2, 4, 8, 16]
    best = min(result["candidates"], key=lambda c: c["mse"])
    assert result["best"] == {"H": best["H"], "d_k": best["d_k"]}


def test_subprocess_simulate_from_stdin_prints_only_json_on_stdout() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "headdiv.cli", "simulate", "-", "--device", "cpu"],
        input=TINY,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "HEADDIV_COMPILE": "off"},
    )
    assert result.returncode == 0, result.stderr
    _check_simulation(result.stdout)


# --- the service commands, run for real ---------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _service_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    env.update(
        {"HEADDIV_WARM_UP": "false", "HEADDIV_WARM_START": "0", "HEADDIV_COMPILE": "off", "PYTHONUNBUFFERED": "1"},
        **extra,
    )
    return env


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "headdiv.cli", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for(url: str, process: subprocess.Popen[str], timeout: float = 120.0) -> httpx.Response:
    """GET `url` until it answers 200; fails with the server's output if it dies or never answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stdout.read() if process.stdout else ""
            pytest.fail(f"the server exited with {process.returncode}:\n{output}")
        try:
            response = httpx.get(url, timeout=5)
            if response.status_code == 200:
                return response
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    pytest.fail(f"{url} did not answer 200 within {timeout} s")


def _stop(process: subprocess.Popen[str]) -> str:
    process.terminate()
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    return output


@pytest.mark.slow
def test_serve_prints_the_url_that_serves_dashboard_and_api() -> None:
    """`make run`'s last step: the printed URL answers with the dashboard, and the API is healthy."""
    port = _free_port()
    process = _start(["serve", "--host", "0.0.0.0", "--port", str(port)], _service_env())
    try:
        url = f"http://127.0.0.1:{port}/"
        page = _wait_for(url, process)
        health = _wait_for(f"{url}api/v1/health", process)
    finally:
        output = _stop(process)
    assert f"open {url} in a browser" in output
    assert "embedded" in output
    assert "text/html" in page.headers["content-type"]
    assert 'id="_dash-config"' in page.text, "the URL must serve the Dash app itself"
    body = health.json()
    assert body["status"] == "ok" and body["cache"] == "memory" and body["queue"] == "inline"


@pytest.mark.slow
def test_dashboard_alone_serves_its_page() -> None:
    port = _free_port()
    process = _start(
        ["dashboard", "--port", str(port), "--api-url", f"http://127.0.0.1:{_free_port()}"], _service_env()
    )
    try:
        page = _wait_for(f"http://127.0.0.1:{port}/", process)
    finally:
        output = _stop(process)
    assert f"open http://127.0.0.1:{port}/ in a browser" in output
    assert "text/html" in page.headers["content-type"]
    assert 'id="_dash-config"' in page.text


@pytest.mark.redis
def test_serve_with_redis_url_says_it_is_scaled(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    import uvicorn

    served: dict[str, object] = {}

    def record(server: uvicorn.Server, sockets: list[object]) -> None:
        served.update(config=server.config, sockets=sockets)
        for sock in sockets:
            sock.close()  # type: ignore[attr-defined]

    monkeypatch.setattr(uvicorn.Server, "run", record)
    monkeypatch.setenv("REDIS_URL", redis_url)
    port = _free_port()
    status, out, _ = run_cli(capsys, "serve", "--port", str(port))
    assert status == 0
    assert "scaled" in out and redis_url in out
    assert f"open http://127.0.0.1:{port}/ in a browser" in out
    config = served["config"]
    assert isinstance(config, uvicorn.Config)
    assert config.host == "127.0.0.1" and config.port == port and callable(config.app)
    assert config.access_log is False  # a log line per request costs CPU; HEADDIV_ACCESS_LOG=1 turns it on


def _server_processes(parent: int) -> list[int]:
    """The processes whose parent is `parent` and that run a server (not multiprocessing's helpers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if int(stat[1]) == parent and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


@pytest.mark.redis
@pytest.mark.slow
def test_serve_with_workers_runs_processes_that_share_one_class_poll(redis_url: str) -> None:
    """`headdiv serve --workers 2`: two API processes on one port, sharing Redis: a poll opened through one
    and answered through fresh connections (served by either) counts every answer once."""
    port = _free_port()
    queue = f"headdiv-test-workers-{secrets.token_hex(4)}"
    env = _service_env(REDIS_URL=redis_url, HEADDIV_QUEUE_NAME=queue)
    process = _start(["serve", "--port", str(port), "--workers", "2"], env)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for(f"{url}/_dash-layout", process)
        deadline = time.monotonic() + 60
        while len(_server_processes(process.pid)) < 2:
            assert time.monotonic() < deadline, "two server processes did not start"
            time.sleep(0.2)
        poll = httpx.post(f"{url}/api/v1/polls", json={"topic": "why-many-heads/3", "choices": ["falls", "stays"]})
        poll_id = poll.json()["id"]
        for i in range(40):  # a new connection each: the kernel spreads them over both processes
            voter = httpx.post(f"{url}/api/v1/polls/{poll_id}/voters", json={}).json()["voter"]
            answer = httpx.post(
                f"{url}/api/v1/polls/{poll_id}/answers", json={"choice": ["falls", "stays"][i % 2], "voter": voter}
            )
            assert answer.status_code == 200, answer.text
        assert httpx.get(f"{url}/api/v1/polls/{poll_id}").json()["total"] == 40
    finally:
        output = _stop(process)
    assert "2 API processes" in output


def test_serve_with_workers_needs_redis(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    status, _, err = run_cli(capsys, "serve", "--workers", "2")
    assert status == 2 and "--workers: more than one API process needs REDIS_URL" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["serve", "dashboard"])
def test_a_busy_port_is_one_line_naming_it_and_how_to_choose_another(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    import socket

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("HEADDIV_WARM_UP", "0")
    monkeypatch.setenv("HEADDIV_WARM_START", "0")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        status, out, err = run_cli(capsys, command, "--host", "127.0.0.1", "--port", str(port))
    assert status == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"port {port} on 127.0.0.1 is already in use" in lines[0], err
    assert "--port" in lines[0] and "Traceback" not in err
    assert "open http" not in out  # no URL printed for a server that never started


def _burst_worker(redis_url: str, *options: str, app_queues: bool = False) -> tuple[str, str]:
    """Run `headdiv worker --burst` on a queue of its own (nobody else's jobs land there): (queue, stdout).
    With `app_queues`, the queue is the app's (HEADDIV_QUEUE_NAME) and the worker picks its queues from it."""
    queue = f"headdiv-cli-test-{secrets.token_hex(4)}"
    argv = ["worker", "--burst", *options, *([] if app_queues else ["--queue", queue]), "--redis-url", redis_url]
    result = subprocess.run(
        [sys.executable, "-m", "headdiv.cli", *argv],
        cwd=ROOT,
        env={**_service_env(), "HEADDIV_QUEUE_NAME": queue},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return queue, result.stdout


@pytest.mark.redis
def test_worker_in_burst_mode_drains_an_empty_queue_and_exits(redis_url: str) -> None:
    queue, out = _burst_worker(redis_url)
    assert f"queues {queue}" in out
    # batch work yields the CPU to the API: HEADDIV_WORKER_NICE (10) below the priority it started with
    assert f"nice {min(19, os.nice(0) + 10)}" in out


@pytest.mark.redis
def test_a_worker_takes_small_jobs_first_and_a_fast_lane_worker_only_those(redis_url: str) -> None:
    queue, out = _burst_worker(redis_url, app_queues=True)
    assert f"queues {queue}.fast, {queue}, {queue}.low" in out
    queue, out = _burst_worker(redis_url, "--fast-lane", app_queues=True)
    assert f"queues {queue}.fast, CPU priority" in out


@pytest.mark.redis
def test_worker_nice_option_sets_its_priority(redis_url: str) -> None:
    _, out = _burst_worker(redis_url, "--nice", "3")
    assert f"nice {min(19, os.nice(0) + 3)}" in out


def test_worker_nice_out_of_range_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, "worker", "--nice", "20", "--redis-url", "redis://127.0.0.1:1/0")
    assert status == 2 and "nice must lie in 0..19, got 20" in err
