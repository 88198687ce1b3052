"""The registry of views, in tab order. A view is one module exposing `VIEW` (see `base.View`).

- `view_protocol`: the interface every view implements (`View`); README.md beside it gives the rules.
- `ensemble_view`: one scenario's bias-variance-covariance decomposition, heads, geometry and fits.
- `surfaces_view`: any metric over two swept scenario keys, computed as a job with progress and cancel.
- `diversity_view`: MSE against HDI over a sweep of theta, with the paper's bound (4.4) fitted over it.
- `architecture_view`: every split H x d_k of a budget D, Monte Carlo against the paper's theory.
- `weighting_view`: uniform, geometric, Fibonacci, optimal and MAW-gated heads side by side.
- `training_view`: the training lab: the heads' projections learned by gradient descent, and their diversity_view.
- `foundations_view`: the background lessons, each a few controls, a figure and its formula.
- `lesson_params`: each Foundations lesson's URL parameters and its query of the API.
- `lesson_tables`: the Foundations lessons' tables (the head budget's), as Dash html.
- `models_view`: Real models: the Head Diversity Index of trained Transformers, layer by layer.
- `model_measure`: how the Real models view asks the API for a measured model, and what it shows meanwhile.
- `model_compare`: the Real models view's second model, measured alike and drawn beside the first.
- `covariance_view`: the covariance lab: Lemma 4.1's bound against the inter-head covariance the Monte Carlo measures.
"""

from __future__ import annotations

from headdiv.dashboard.views import (
    architecture_view,
    covariance_view,
    diversity_view,
    ensemble_view,
    foundations_view,
    models_view,
    surfaces_view,
    training_view,
    weighting_view,
)
from headdiv.dashboard.views.view_protocol import View

VIEWS: list[View] = [
    ensemble_view.VIEW,
    surfaces_view.VIEW,
    diversity_view.VIEW,
    architecture_view.VIEW,
    weighting_view.VIEW,
    training_view.VIEW,
    foundations_view.VIEW,
    models_view.VIEW,
    covariance_view.VIEW,
]

__all__ = ["VIEWS", "View"]
