"""The reports answered at once, without a job: HDI of given heads, the theory curves, trained models."""

from __future__ import annotations

from pydantic import Field

from headdiv.schemas.results.common import AnglePair, Matrix, ResultModel, Split


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
