"""Figure builders and exports on real engine results (small scenarios), no browser."""

from __future__ import annotations

import csv
import io
import json
import math
import shlex
from typing import Any

import plotly.graph_objects as go
import pytest
from pydantic import ValidationError

from headdiv.dashboard.drawing.export import reproduce_commands, result_to_csv, weighting_csv, weighting_result
from headdiv.dashboard.page.sidebar_simulation import headline
from headdiv.figures import ensemble_charts as ensemble
from headdiv.figures import sweep_charts as sweeps
from headdiv.figures import weighting_charts as weighting
from headdiv.figures.theme import COMPONENT_COLORS, MSE_NAME, finite, fmt, fmt_se
from headdiv.schemas import Scenario
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult, SurfaceResult
from headdiv.workers.engine.simulation import simulate
from headdiv.workers.runner import run_job
from tests.dashboard.conftest import drawn_numbers

SMALL = {"replicates": 20, "queries": 16}


@pytest.fixture(scope="module")
def sim() -> dict[str, Any]:
    return json.loads(json.dumps(simulate(Scenario(H=3, theta=60, **SMALL)).model_dump(mode="json")))


@pytest.fixture(scope="module")
def surface() -> dict[str, Any]:
    req = {"base": SMALL, "x": {"param": "theta", "values": [0, 45, 90]}, "y": {"param": "H", "values": [2, 4]}}
    return json.loads(json.dumps(run_job("surface", req).model_dump(mode="json")))


def _trace(fig: go.Figure, name: str) -> Any:
    return next(t for t in fig.data if t.name == name)


def test_decomposition_bars_show_the_results_numbers_in_the_component_colours(sim: dict[str, Any]) -> None:
    fig = ensemble.decomposition_bars(SimulationResult.model_validate(sim))
    bias = _trace(fig, "Bias²")
    assert bias.marker.color == COMPONENT_COLORS["bias2"]
    assert list(bias.y) == [
        sim["bias2"],
        sim["baselines"]["single_head"]["bias2"],
        sim["baselines"]["big_head"]["bias2"],
    ]
    parts = sum(_trace(fig, n).y[0] for n in ("Bias²", "Variance", "Covariance"))
    assert parts == pytest.approx(_trace(fig, "MSE").y[0], rel=1e-9)  # the bars add up to the MSE marker


def test_every_ensemble_figure_draws_only_finite_numbers(sim: dict[str, Any]) -> None:
    figs = [
        ensemble.decomposition_bars(SimulationResult.model_validate(sim)),
        ensemble.per_head_mse(SimulationResult.model_validate(sim)),
        ensemble.correlation_heatmap(SimulationResult.model_validate(sim)),
        ensemble.correlation_heatmap(SimulationResult.model_validate(sim), "covariance"),
        ensemble.overlap_heatmap(SimulationResult.model_validate(sim)),
        ensemble.slice_figure(SimulationResult.model_validate(sim)),
        weighting.scheme_bars(SimulationResult.model_validate(sim)),
        weighting.rho_curve(SimulationResult.model_validate(sim), 0.7),
        weighting.alpha_bars(SimulationResult.model_validate(sim)),
    ]
    for fig in figs:
        nums = drawn_numbers(fig)
        assert nums and all(math.isfinite(v) for v in nums)
    overlap = ensemble.overlap_heatmap(SimulationResult.model_validate(sim)).data[0]
    assert overlap.z[0][1] == pytest.approx(math.cos(math.radians(60)) ** 2, abs=1e-6)
    assert "60" in overlap.customdata[0][1]  # principal angles on hover


def test_nan_never_reaches_a_chart_and_an_undefined_number_reads_as_a_dash(sim: dict[str, Any]) -> None:
    for bad in ({"mse": float("nan")}, {"heads": [{"mse": float("inf"), "bias2": 1.0, "variance": 0.0}]}):
        with pytest.raises(ValidationError):  # refused by the result's model: never drawn, never cached
            SimulationResult.model_validate({**sim, **bad})
    undefined = SimulationResult.model_validate({**sim, "hdi": None, "mean_correlation": None})
    assert headline(undefined)["headline"][1] == "—" and headline(undefined)["headline"][3] == "—"
    assert finite(float("nan")) is None and fmt(True) == "—"


def test_headline_formats_the_simulation(sim: dict[str, Any]) -> None:
    h = headline(SimulationResult.model_validate(sim))["headline"]
    assert h[1] == f"{sim['hdi']:.3g}" == "0.75"
    assert h[0] == fmt_se(sim["mse"], sim["mse_se"])


def test_surface_heatmap_and_csv(surface: dict[str, Any]) -> None:
    fig = sweeps.surface_heatmap(SurfaceResult.model_validate(surface), "hdi")
    heat = fig.data[0]
    assert list(heat.x) == ["0", "45", "90"] and list(heat.y) == ["2", "4"]
    assert heat.z[0][0] == pytest.approx(0, abs=1e-9) and heat.z[1][2] == pytest.approx(1, abs=1e-9)
    rows = list(csv.DictReader(io.StringIO(result_to_csv(SurfaceResult.model_validate(surface)))))
    assert len(rows) == 6
    assert {float(r["theta"]) for r in rows} == {0, 45, 90}
    cell = next(r for r in rows if float(r["theta"]) == 90 and float(r["H"]) == 4)
    assert float(cell["mse"]) == pytest.approx(surface["metrics"]["mse"][1][2])
    assert sweeps.surface_3d(SurfaceResult.model_validate(surface)).data[0].type == "surface"


def test_simulation_csv_has_one_row_per_number(sim: dict[str, Any]) -> None:
    rows = dict(csv.reader(io.StringIO(result_to_csv(SimulationResult.model_validate(sim)))))
    assert float(rows["mse"]) == pytest.approx(sim["mse"])
    assert float(rows["heads[2].variance"]) == pytest.approx(sim["heads"][2]["variance"])
    assert rows["scenario.geometry"] == "equiangular"


def test_sweep_and_architecture_figures(sim: dict[str, Any]) -> None:
    sweep = run_job("diversity_sweep", {"base": {**SMALL, "target": "constant"}, "thetas": [0, 45, 90]}).model_dump(
        mode="json"
    )
    fig = sweeps.mse_vs_hdi(DiversitySweepResult.model_validate(sweep))
    mse = _trace(fig, MSE_NAME)
    assert list(mse.y) == [p["mse"] for p in sweep["points"]]
    assert list(mse.x) == pytest.approx([0, 0.5, 1], abs=1e-6)
    assert len(list(csv.DictReader(io.StringIO(result_to_csv(DiversitySweepResult.model_validate(sweep)))))) == 3
    arch = run_job("architecture", {"base": SMALL, "budget": 4}).model_dump(mode="json")
    fig = sweeps.architecture_mse(ArchitectureResult.model_validate(arch))
    assert list(_trace(fig, MSE_NAME).x) == ["4×1", "2×2", "1×4"]
    assert any(t.name.startswith("best: ") for t in fig.data)


def test_reproduce_commands_carry_the_exact_request() -> None:
    body = {
        "base": {"H": 8, "theta": 30.0},
        "x": {"param": "n", "values": [64, 128]},
        "y": {"param": "H", "values": [2]},
    }
    text = reproduce_commands("http://127.0.0.1:8050/", "/surfaces", body)
    curl = next(line for line in text.splitlines() if line.lstrip().startswith("-H"))
    assert json.loads(shlex.split(curl)[-1]) == body
    assert "http://127.0.0.1:8050/api/v1/surfaces?wait=60" in text
    cli = next(line for line in text.splitlines() if line.startswith("headdiv "))
    words = shlex.split(cli)
    assert words[:2] == ["headdiv", "surface"] and json.loads(words[2]) == body


@pytest.mark.parametrize(
    ("value", "se", "shown"),
    [
        (0.4100001, None, "0.410"),  # three significant digits, trailing zero kept: beside 0.404, not "0.41"
        (0.404, None, "0.404"),
        (0.7500000000000001, None, "0.75"),  # exact in fewer digits: no invented zeros
        (1.0, None, "1"),
        (4.31e9, None, "4.31e+09"),
        (0.41234, 0.0132, "0.412"),  # the s.e.'s two significant digits fix the last decimal
        (0.41234, 0.00132, "0.4123"),
        (1.2345e-5, 3.1e-7, "1.234e-05"),
        (float("nan"), 0.1, "—"),
    ],
)
def test_one_number_rule_shows_the_precision_the_standard_error_supports(value: float, se: Any, shown: str) -> None:
    assert fmt(value, se) == shown


def test_an_estimate_and_its_error_share_their_last_decimal(sim: dict[str, Any]) -> None:
    assert fmt_se(0.41234, 0.0132) == "0.412 ± 0.013"
    assert fmt_se(0.0034567, 0.000123) == "0.00346 ± 0.00012"
    assert fmt_se(0.5, None) == "0.5"
    shown = headline(SimulationResult.model_validate({**sim, "mse": 0.41234, "mse_se": 0.0132}))["headline"][0]
    assert shown == "0.412 ± 0.013"


def test_identical_heads_read_the_same_mse_on_every_bar() -> None:
    """Ensemble, single head and big head are one estimator for identical heads: each bar's label carries
    its own standard error, so the one value is shown to one precision."""
    same = json.loads(json.dumps(simulate(Scenario(H=3, theta=0, **SMALL)).model_dump(mode="json")))
    labels = list(_trace(ensemble.decomposition_bars(SimulationResult.model_validate(same)), "MSE").text)
    assert labels == [fmt(same["mse"], same["mse_se"])] * 3
    schemes = weighting.scheme_bars(SimulationResult.model_validate(same))
    lowest = _trace(schemes, "lowest MSE")  # all five schemes tie: all are the lowest, none singled out
    assert len(lowest.x) == len(weighting.SCHEMES) and set(lowest.text) == {labels[0]}


def test_weighting_marks_its_lines_and_lowest_scheme_without_text_on_the_plot(sim: dict[str, Any]) -> None:
    curve = weighting.rho_curve(SimulationResult.model_validate(sim), 0.7)
    assert not curve.layout.annotations  # no label beside a line, where another line could cross it
    names = [t.name for t in curve.data]
    assert "your ρ = 0.7" in names and f"best ρ = {fmt(sim['weightings']['geometric']['scan']['best'])}" in names
    bars = weighting.scheme_bars(SimulationResult.model_validate(sim))
    assert not bars.layout.annotations
    w = sim["weightings"]
    best = min(weighting.SCHEMES, key=lambda s: w[s]["mse"])
    lowest = _trace(bars, "lowest MSE")
    assert list(lowest.x) == [weighting.SCHEME_LABELS[best]]
    assert list(lowest.text) == [fmt(w[best]["mse"], w[best]["mse_se"])]


def test_weighting_downloads_what_the_view_shows(sim: dict[str, Any]) -> None:
    shown = weighting_result(SimulationResult.model_validate(sim))
    assert shown["weightings"] == sim["weightings"] and shown["scenario"] == sim["scenario"]
    rows = list(csv.DictReader(io.StringIO(weighting_csv(SimulationResult.model_validate(sim)))))
    schemes = [r for r in rows if r["row"] == "scheme"]
    assert [r["scheme"] for r in schemes] == list(weighting.SCHEMES)
    for r in schemes:
        entry = sim["weightings"][r["scheme"]]
        assert float(r["mse"]) == pytest.approx(entry["mse"]) and float(r["mse_se"]) == pytest.approx(entry["mse_se"])
        weights = entry.get("alpha") or entry["mean_gate"]
        assert [float(r[f"weight_head_{h + 1}"]) for h in range(3)] == pytest.approx(weights)
    geometric = next(r for r in schemes if r["scheme"] == "geometric")
    assert geometric["parameters"] == f"rho={sim['scenario']['rho']}"
    curve = [r for r in rows if r["row"] == "rho_curve"]
    assert [float(r["rho"]) for r in curve] == pytest.approx(sim["weightings"]["geometric"]["scan"]["values"])
    assert [float(r["rho"]) for r in curve if r["best"] == "True"] == [sim["weightings"]["geometric"]["scan"]["best"]]


def test_reference_lines_are_named_in_the_legend_not_by_text_on_the_data(sim: dict[str, Any]) -> None:
    """A label on a reference line would sit on a bar or a curve: the line's name is a legend entry."""
    fig = ensemble.per_head_mse(SimulationResult.model_validate(sim))
    assert not fig.layout.annotations
    assert [s.y0 for s in fig.layout.shapes] == [sim["mse"]]
    named = [t for t in fig.data if t.name and t.name.startswith("ensemble MSE")]
    assert len(named) == 1 and named[0].showlegend is not False


def test_a_surface_names_its_axes_as_the_sidebar_does(surface: dict[str, Any]) -> None:
    fig = sweeps.surface_heatmap(SurfaceResult.model_validate(surface))
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("angle θ between heads (°)", "heads H")
    assert sweeps.param_title("phi") == "AR(1) φ" and sweeps.param_title("not-a-key") == "not-a-key"


def test_every_csv_quotes_a_cell_a_spreadsheet_would_run_as_a_formula() -> None:
    """OWASP's rule, for a model's file name and tensor names from a stranger's upload: a text cell starting
    with = + - @ tab or carriage return is written as text ('=...); numbers, negative ones too, stay numbers."""
    import csv as csv_module
    import io

    from headdiv.dashboard.drawing.export import result_to_csv
    from headdiv.schemas.csv_tables import records_csv
    from headdiv.schemas.results.report_results import ModelHeadsReport

    evil = ['=HYPERLINK("http://x","y")', "=1+cmd|' -C calc'!A0", "+1", "-cmd", "@SUM(A1)", "\tx", "\rx"]
    text = records_csv([{"name": name, "value": -0.5} for name in evil] + [{evil[1]: 1.0}])
    rows = list(csv_module.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["name", "value", "'" + evil[1]]  # a header cell too
    assert [row[0] for row in rows[1:-1]] == ["'" + name for name in evil]  # one cell each, line breaks kept
    assert rows[1][1] == "-0.5"  # a negative number is left as it is
    report = ModelHeadsReport.model_validate(
        {
            "model": evil[0],
            "style": "bert",
            "num_heads": 2,
            "num_kv_heads": 2,
            "d_model": 4,
            "d_k": 2,
            "seed": 0,
            "expected_random_hdi": None,
            "layers": [],
        }
    )
    cells = [c for row in csv_module.reader(io.StringIO(result_to_csv(report), newline="")) for c in row]
    assert "'" + evil[0] in cells and evil[0] not in cells
