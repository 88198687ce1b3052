"""The reports answered at once, without a job: HDI of given heads, the theory curves, trained models."""

from __future__ import annotations

from pydantic import Field

from headdiv.schemas.results.result_parts import AnglePair, Matrix, ResultModel, Split


class HdiReport(ResultModel):
    """HDI, the overlap matrix and the principal angles of a list of head matrices (docs/model.md section 6)."""

    hdi: float | None = Field(description="Null for fewer than two heads.")
    overlap_matrix: Matrix
    principal_angles_deg: list[AnglePair]
    principal_angles_note: str | None = Field(None, description="Which pairs are listed, when some were left out.")


class TheoryPoint(ResultModel):
    H: int
    d_k: int
    mse: float | None = Field(description="Null where the objective is not finite.")


class DkStarCurve(ResultModel):
    """The optimal d_k along n, beside the rate the paper states."""

    n: list[int]
    d_k: list[int]
    stated_rate: list[float]
    stated_rate_d: int


class HStarCurve(ResultModel):
    """The optimal H along the budget."""

    budget: list[int]
    H: list[int]


class TheoryReport(ResultModel):
    """The architecture objective (7.1) at every split of the budget, its minimiser and the optimal-split curves."""

    n: int
    budget: int
    c1: float
    c2: float
    candidates: list[TheoryPoint]
    best: Split
    dk_star_vs_n: DkStarCurve
    h_star_vs_budget: HStarCurve


class HeadClusters(ResultModel):
    """Heads clustered by their overlaps (average linkage), with each head's share of the layer's HDI."""

    method: str
    linkage: list[list[float]]
    order: list[int]
    icoord: list[list[float]]
    dcoord: list[list[float]]
    labels: list[int]
    cut: float
    groups: list[int]
    hdi: float
    contribution: list[float]
    redundant_first: list[int]


class LayerClusters(ResultModel):
    """Null for a kind of head the layer has only one of (nothing to cluster)."""

    key: HeadClusters | None
    query: HeadClusters | None


class LayerHeads(ResultModel):
    """One attention layer's key and query head diversity, beside random subspaces of the same shape."""

    layer: int
    name: str
    stack: str = ""
    """Which stack of attention the layer is in ("encoder self-attention", "decoder cross-attention"); empty
    where the model has one."""
    key_hdi: float | None
    query_hdi: float | None
    random_hdi: float | None
    key_overlap: Matrix
    key_principal_angles_deg: list[AnglePair]
    query_overlap: Matrix
    clusters: LayerClusters

    def head_diversity(self, which: str = "key") -> list[float] | None:
        """Each head's diversity: its mean distance `1 - s_hh'` to the layer's other heads (docs/model.md
        section 6's overlap; their mean is the layer's HDI). None with fewer than two heads."""
        overlap = self.query_overlap if which == "query" else self.key_overlap
        h = len(overlap)
        if h < 2:
            return None
        return [sum(1.0 - overlap[i][j] for j in range(h) if j != i) / (h - 1) for i in range(h)]


class ModelHeadsReport(ResultModel):
    """Per-layer HDI of a trained model's attention heads (docs/model.md section 6)."""

    model: str | None
    style: str
    num_heads: int
    num_kv_heads: int
    d_model: int
    d_k: int
    seed: int
    expected_random_hdi: float | None
    layers: list[LayerHeads]

    def head_diversity(self, which: str = "key") -> list[list[float] | None]:
        """Layers x heads: each head's diversity (`LayerHeads.head_diversity`), one row per layer."""
        return [layer.head_diversity(which) for layer in self.layers]


class ModelComparison(ResultModel):
    """Two models' heads measured alike (the same baseline seed), to be read on the same axes: a base model
    and its fine-tune, or two sizes of one family."""

    a: ModelHeadsReport
    b: ModelHeadsReport

    def rows(self) -> list[dict[str, object]]:
        """One row per model and layer: its HDI, the baseline's, its depth (layer / last layer, where two
        models of different depths meet) and each key head's diversity (`head_1`, ...): the numbers the
        comparison draws, as one table for a CSV or a DataFrame."""
        width = max((len(r or []) for m in (self.a, self.b) for r in m.head_diversity()), default=0)
        out: list[dict[str, object]] = []
        for which, m in (("a", self.a), ("b", self.b)):
            last = max(len(m.layers) - 1, 1)
            for i, (layer, heads) in enumerate(zip(m.layers, m.head_diversity(), strict=True)):
                row: dict[str, object] = {
                    "model": which,
                    "name": m.model,
                    "layer": layer.layer,
                    "stack": layer.stack,
                    "depth": i / last,
                    "key_hdi": layer.key_hdi,
                    "query_hdi": layer.query_hdi,
                    "random_hdi": layer.random_hdi,
                }
                row.update({f"head_{h + 1}": (heads[h] if heads and h < len(heads) else None) for h in range(width)})
                out.append(row)
        return out


class BuiltinModel(ResultModel):
    """A built-in example model, whether it is installed, and its shape when it is."""

    name: str
    description: str
    package: str
    available: bool
    install: str | None = Field(None, description="The command that installs it, when it is not installed.")
    num_layers: int | None = None
    num_heads: int | None = None
    d_model: int | None = None


class LocalModel(ResultModel):
    """A model this server has on disk (its models folder or its Hugging Face cache), measured on demand."""

    id: str = Field(description="`dir:<name>` for the models folder's entries, owner/name for the cache's.")
    source: str = Field(description="`models_dir` (HEADDIV_MODELS_DIR) or `hf_cache` (the Hugging Face cache).")
    size_bytes: int
    style: str | None = Field(None, description="The attention layout its tensors show; None when none is read.")
    layers: int | None = None
    note: str | None = Field(None, description="Why its layout is not read, in one line.")


class LocalModels(ResultModel):
    models: list[LocalModel]


class BuiltinModels(ResultModel):
    models: list[BuiltinModel]
