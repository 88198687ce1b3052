"""Every result's charts by name, drawn by the dashboard's own builders: what a `headdiv` result shows in a
notebook (`Result.figures()`), the same figures the views draw. One entry per result model; the first
chart of an entry is the result's main one (shown inline under its summary)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go

from headdiv.figures import covariance, ensemble, models, sweeps, training, weighting
from headdiv.figures.heatmaps import overlap_heatmap
from headdiv.schemas.results.common import ResultModel
from headdiv.schemas.results.labs import CovarianceResult, TrainingResult
from headdiv.schemas.results.reports import HdiReport, ModelComparison, ModelHeadsReport, TheoryReport
from headdiv.schemas.results.simulation import SimulationResult
from headdiv.schemas.results.sweeps import ArchitectureResult, DiversitySweepResult, SurfaceResult

Charts = Callable[[Any], dict[str, go.Figure]]


def _simulation(r: SimulationResult) -> dict[str, go.Figure]:
    return {
        "decomposition": ensemble.decomposition_bars(r),
        "per_head": ensemble.per_head_mse(r),
        "correlation": ensemble.correlation_heatmap(r),
        "overlap": ensemble.overlap_heatmap(r),
        "slice": ensemble.slice_figure(r),
        "schemes": weighting.scheme_bars(r),
        "rho": weighting.rho_curve(r, getattr(r.scenario, "rho", None)),
        "weights": weighting.alpha_bars(r),
    }


def _training(r: TrainingResult) -> dict[str, go.Figure]:
    last = len(r.steps) - 1
    return {
        "loss_and_hdi": training.loss_and_hdi(r),
        "mse_split": training.mse_split(r),
        "overlap": training.overlap_at(r, last),
        "angles": training.angles_at(r, last),
    }


def _model(r: ModelHeadsReport) -> dict[str, go.Figure]:
    return {
        "layers": models.layer_bars(r),
        "overlap": models.overlap_heatmap(r, 0),
        "angles": models.angle_histogram(r, 0),
        "dendrogram": models.dendrogram_figure(r, 0),
        "clustered": models.clustered_heatmap(r, 0),
        "contribution": models.contribution_bars(r, 0),
        "diversity": models.diversity_heatmap(r),
    }


CHARTS: dict[type[ResultModel], Charts] = {
    SimulationResult: _simulation,
    SurfaceResult: lambda r: {metric: sweeps.surface_heatmap(r, metric) for metric in r.metrics},
    ArchitectureResult: lambda r: {"mse": sweeps.architecture_mse(r)},
    DiversitySweepResult: lambda r: {
        "mse_vs_hdi": sweeps.mse_vs_hdi(r),
        "correlation": sweeps.correlation_vs_overlap(r),
    },
    CovarianceResult: lambda r: {
        "split": covariance.split_over_theta(r),
        "bound": covariance.bound_vs_truth(r),
        "pairs": covariance.pair_heatmap(r),
    },
    TrainingResult: _training,
    HdiReport: lambda r: {
        "overlap": overlap_heatmap(r.overlap_matrix, r.principal_angles_deg, "overlap between heads")
    },
    TheoryReport: lambda r: {"curves": sweeps.theory_curves(r)},
    ModelHeadsReport: _model,
    ModelComparison: lambda r: {
        "layers": models.compare_layers(r.a, r.b),
        "diversity_a": models.diversity_heatmap(r.a),
        "diversity_b": models.diversity_heatmap(r.b),
    },
}
"""Result model -> its charts by name (a test checks every kind and report has an entry)."""


def charts_of(result: ResultModel) -> dict[str, go.Figure]:
    """The result's charts by name; a result model without an entry is a bug, said so."""
    draw = CHARTS.get(type(result))
    if draw is None:
        raise KeyError(f"no charts for {type(result).__name__}; known: {', '.join(t.__name__ for t in CHARTS)}")
    return draw(result)
