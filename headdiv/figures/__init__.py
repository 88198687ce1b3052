"""Figure builders: a result model (`headdiv.schemas.results`) in, a Plotly figure out; pure functions, no HTTP.

The dashboard's views, the Python API (`Result.figures()`) and the offline exports draw with these same builders,
so they show the same pictures. Plotly only, no Dash: a table drawn as page components lives with its view.

- `theme`: colours and layout every chart shares, and `fmt`, the one way a number (with its error) is written.
- `catalog`: every result's charts by name (what `Result.figures()` returns), the main one first.
- `verdict_sentences`: the sentences the page states as conclusions, computed from the numbers its chart draws.
- `ensemble_charts`: one simulation result (the Ensemble view).
- `heatmaps`: the subspace-overlap heatmap, shared by a simulation's heads and a trained model's layer.
- `weighting_charts`: the weighting schemes, all from one simulation result.
- `sweep_charts`: the long computations: surfaces, diversity sweeps, architectures and theory curves.
- `covariance_charts`: the covariance lab: the measured inter-head covariance, its split, and Lemma 4.1's bound.
- `training_charts`: the training lab: loss and HDI over the steps, the held-out MSE split, one step's overlaps.
- `foundations_charts`: the foundations lessons' charts.
- `model_charts`: a trained model's head diversity: per-layer HDI against chance, a layer's overlap and angles.
"""
