"""Every result's charts by name, drawn by the dashboard's own builders: what a `headdiv` result shows in a
notebook (`Result.figures()`), the same figures the views draw. One entry per result model; the first
chart of an entry is the result's main one (shown inline under its summary)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go

from headdiv.figures import (
    covariance_charts,
    ensemble_charts,
    model_charts,
    sweep_charts,
    training_charts,
    weighting_charts,
)
from headdiv.figures.heatmaps import overlap_heatmap
from headdiv.i18n import _
from headdiv.schemas.results.lab_results import CovarianceResult, TrainingResult
from headdiv.schemas.results.report_results import HdiReport, ModelComparison, ModelHeadsReport, TheoryReport
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult, SurfaceResult

Charts = Callable[[Any], dict[str, go.Figure]]


def _simulation(r: SimulationResult) -> dict[str, go.Figure]:
    return {
        "decomposition": ensemble_charts.decomposition_bars(r),
        "per_head": ensemble_charts.per_head_mse(r),
        "correlation": ensemble_charts.correlation_heatmap(r),
        "overlap": ensemble_charts.overlap_heatmap(r),
        "slice": ensemble_charts.slice_figure(r),
        "schemes": weighting_charts.scheme_bars(r),
        "rho": weighting_charts.rho_curve(r, getattr(r.scenario, "rho", None)),
        "weights": weighting_charts.alpha_bars(r),
    }


def _training(r: TrainingResult) -> dict[str, go.Figure]:
    last = len(r.steps) - 1
    return {
        "loss_and_hdi": training_charts.loss_and_hdi(r),
        "mse_split": training_charts.mse_split(r),
        "overlap": training_charts.overlap_at(r, last),
        "angles": training_charts.angles_at(r, last),
    }


def _model(r: ModelHeadsReport) -> dict[str, go.Figure]:
    return {
        "layers": model_charts.layer_bars(r),
        "overlap": model_charts.overlap_heatmap(r, 0),
        "angles": model_charts.angle_histogram(r, 0),
        "dendrogram": model_charts.dendrogram_figure(r, 0),
        "clustered": model_charts.clustered_heatmap(r, 0),
        "contribution": model_charts.contribution_bars(r, 0),
        "diversity": model_charts.diversity_heatmap(r),
    }


CHARTS: dict[type[ResultModel], Charts] = {
    SimulationResult: _simulation,
    SurfaceResult: lambda r: {metric: sweep_charts.surface_heatmap(r, metric) for metric in r.metrics},
    ArchitectureResult: lambda r: {"mse": sweep_charts.architecture_mse(r)},
    DiversitySweepResult: lambda r: {
        "mse_vs_hdi": sweep_charts.mse_vs_hdi(r),
        "correlation": sweep_charts.correlation_vs_overlap(r),
    },
    CovarianceResult: lambda r: {
        "split": covariance_charts.split_over_theta(r),
        "bound": covariance_charts.bound_vs_truth(r),
        "pairs": covariance_charts.pair_heatmap(r),
    },
    TrainingResult: _training,
    HdiReport: lambda r: {
        "overlap": overlap_heatmap(r.overlap_matrix, r.principal_angles_deg, _("overlap between heads"))
    },
    TheoryReport: lambda r: {"curves": sweep_charts.theory_curves(r)},
    ModelHeadsReport: _model,
    ModelComparison: lambda r: {
        "layers": model_charts.compare_layers(r.a, r.b),
        "diversity_a": model_charts.diversity_heatmap(r.a),
        "diversity_b": model_charts.diversity_heatmap(r.b),
    },
}
"""Result model -> its charts by name (a test checks every kind and report has an entry)."""


def charts_of(result: ResultModel) -> dict[str, go.Figure]:
    """The result's charts by name; a result model without an entry is a bug, said so."""
    draw = CHARTS.get(type(result))
    if draw is None:
        raise KeyError(f"no charts for {type(result).__name__}; known: {', '.join(t.__name__ for t in CHARTS)}")
    return draw(result)
