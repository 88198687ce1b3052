"""The registry of views, in tab order. A view is one module exposing `VIEW` (see `base.View`).

- `base`: the interface every view implements (`View`); README.md beside it gives the rules.
- `ensemble`: one scenario's bias-variance-covariance decomposition, heads, geometry and fits.
- `surfaces`: any metric over two swept scenario keys, computed as a job with progress and cancel.
- `diversity`: MSE against HDI over a sweep of theta, with the paper's bound (4.4) fitted over it.
- `architecture`: every split H x d_k of a budget D, Monte Carlo against the paper's theory.
- `weighting`: uniform, geometric, Fibonacci, optimal and MAW-gated heads side by side.
- `training`: the training lab: the heads' projections learned by gradient descent, and their diversity.
- `foundations`: the background lessons, each a few controls, a figure and its formula.
- `lesson_params`: each Foundations lesson's URL parameters and its query of the API.
- `models`: Real models: the Head Diversity Index of trained Transformers, layer by layer.
- `model_measure`: how the Real models view asks the API for a measured model, and what it shows meanwhile.
- `model_compare`: the Real models view's second model, measured alike and drawn beside the first.
- `covariance`: the covariance lab: Lemma 4.1's bound against the inter-head covariance the Monte Carlo measures.
"""

from __future__ import annotations

from headdiv.dashboard.views import (
    architecture,
    covariance,
    diversity,
    ensemble,
    foundations,
    models,
    surfaces,
    training,
    weighting,
)
from headdiv.dashboard.views.base import View

VIEWS: list[View] = [
    ensemble.VIEW,
    surfaces.VIEW,
    diversity.VIEW,
    architecture.VIEW,
    weighting.VIEW,
    training.VIEW,
    foundations.VIEW,
    models.VIEW,
    covariance.VIEW,
]

__all__ = ["VIEWS", "View"]
