"""The `headdiv` command line: help, input errors (status 2, `field: reason`), and real engine runs."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server import cli

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = ("serve", "worker", "dashboard", "simulate", "surface", "architecture", "sweep", "hdi", "theory")
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
        "from server import cli\n"
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
    from workers import __version__

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
        (("sweep", '{"thetas": [0, 120]}'), "thetas: "),
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


# --- pure helpers -------------------------------------------------------------------------------------------------


def test_browser_url_shows_loopback_for_wildcard_binds() -> None:
    assert cli.browser_url("0.0.0.0", 8050) == "http://127.0.0.1:8050/"
    assert cli.browser_url("::", 9000) == "http://[::1]:9000/"
    assert cli.browser_url("example.org", 80) == "http://example.org:80/"


def test_redact_url_hides_passwords_only() -> None:
    assert cli.redact_url("redis://user:secret@host:6379/0") == "redis://user:***@host:6379/0"
    assert cli.redact_url("redis://:secret@host:6379/0") == "redis://:***@host:6379/0"
    assert cli.redact_url("redis://host:6379/0") == "redis://host:6379/0"


def test_jsonable_turns_non_finite_numbers_into_null() -> None:
    np = pytest.importorskip("numpy")
    value = {"a": float("nan"), "b": [np.float32(1.5), np.array([1, 2])], "c": (np.inf, 2)}
    assert cli.jsonable(value) == {"a": None, "b": [1.5, [1, 2]], "c": [None, 2]}
    json.dumps(cli.jsonable(value), allow_nan=False)


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
    assert "simulating H=4" in err and "done in" in err


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
    # One shared direction out of two: overlap 1/2, so HDI = 1 - 1/2 (MODEL.md section 6).
    assert result["hdi"] == pytest.approx(0.5)
    assert result["principal_angles_deg"][0]["angles"] == pytest.approx([0.0, 90.0], abs=1e-6)


def test_subprocess_simulate_from_stdin_prints_only_json_on_stdout() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "simulate", "-", "--device", "cpu"],
        input=TINY,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "HEADDIV_COMPILE": "off"},
    )
    assert result.returncode == 0, result.stderr
    _check_simulation(result.stdout)
