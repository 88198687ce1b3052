"""Real heads clustered and ranked (the paper's open problem 5): scipy's clustering of the principal-angle
distances, each head's diversity contribution, GQA key groups, and the CSV export."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
from scipy.cluster.hierarchy import dendrogram, linkage
from scipy.spatial.distance import squareform

from headdiv.schemas.csv_tables import head_clusters_csv
from headdiv.schemas.results.report_results import ModelHeadsReport
from headdiv.workers.engine.diversity import hdi, hdi_report
from headdiv.workers.models import model_hdi
from headdiv.workers.models.clusters import head_clusters, query_groups

P, D_K = 24, 3


def mixed_heads(seed: int = 0, n: int = 7) -> list[np.ndarray]:
    """Heads in three families (each a small perturbation of one subspace) plus loners: clear clusters."""
    rng = np.random.default_rng(seed)
    families = [rng.standard_normal((P, D_K)) for _ in range(3)]
    return [families[h % 3] + (0.15 + 0.1 * h) * rng.standard_normal((P, D_K)) for h in range(n)]


def test_clustering_matches_scipy_on_the_same_distances() -> None:
    heads = mixed_heads()
    overlap = np.asarray(hdi_report(heads).model_dump(mode="json")["overlap_matrix"])
    got = head_clusters(overlap)
    assert got is not None
    distance = 1.0 - overlap
    np.fill_diagonal(distance, 0.0)
    z = linkage(squareform(distance, checks=False), method="average")
    np.testing.assert_allclose(got["linkage"], z, atol=1e-12)
    assert got["order"] == dendrogram(z, no_plot=True)["leaves"]
    labels = got["labels"]  # the three families come out as clusters
    assert labels[0] == labels[3] == labels[6] and labels[1] == labels[4] and labels[0] != labels[1]


def test_contributions_match_recomputing_hdi_without_each_head() -> None:
    heads = mixed_heads(seed=3, n=6)
    report = hdi_report(heads).model_dump(mode="json")
    got = head_clusters(np.asarray(report["overlap_matrix"]))
    assert got is not None and got["hdi"] == pytest.approx(report["hdi"], abs=1e-12)
    for h in range(len(heads)):
        without = hdi([w for k, w in enumerate(heads) if k != h])
        assert got["contribution"][h] == pytest.approx(report["hdi"] - without, abs=1e-12)
    ranked = [got["contribution"][h] for h in got["redundant_first"]]
    assert ranked == sorted(ranked)


def test_too_few_heads_have_no_clusters() -> None:
    assert head_clusters(np.eye(2)) is None


def test_gqa_query_heads_carry_their_key_group(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    p, d = 16, 2
    tensors = {"model.embed_tokens.weight": np.ones((10, p), dtype=np.float32)}
    for i in range(2):
        stem = f"model.layers.{i}.self_attn"
        tensors[f"{stem}.q_proj.weight"] = rng.standard_normal((8 * d, p)).astype(np.float32)  # 8 query heads
        tensors[f"{stem}.k_proj.weight"] = rng.standard_normal((4 * d, p)).astype(np.float32)  # 4 key groups
        tensors[f"{stem}.v_proj.weight"] = rng.standard_normal((4 * d, p)).astype(np.float32)
    path = tmp_path / "gqa.safetensors"
    save_file(tensors, str(path))
    r = model_hdi(path, num_heads=8).model_dump(mode="json")
    assert r["num_kv_heads"] == 4
    layer = r["layers"][0]
    assert layer["clusters"]["query"]["groups"] == [0, 0, 1, 1, 2, 2, 3, 3] == query_groups(8, 4)
    assert layer["clusters"]["key"]["groups"] == [0, 1, 2, 3]
    table = list(csv.DictReader(io.StringIO(head_clusters_csv(ModelHeadsReport.model_validate(r)))))
    assert len(table) == 2 * (8 + 4)  # two layers, query and key heads
    first = table[0]
    assert {"layer", "heads", "head", "key_group", "cluster", "order", "contribution", "redundancy_rank"} <= set(first)
    key_rows = [row for row in table if row["layer"] == "0" and row["heads"] == "key"]
    assert [row["head"] for row in key_rows] == ["1", "2", "3", "4"]  # as the page numbers them
    assert [row["key_group"] for row in table if row["layer"] == "0" and row["heads"] == "query"][:3] == ["1", "1", "2"]
    contributions = [float(row["contribution"]) for row in key_rows]
    assert contributions == pytest.approx(layer["clusters"]["key"]["contribution"])


def test_cli_heads_prints_a_file_s_heads_ranked_as_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from headdiv import cli

    rng = np.random.default_rng(6)
    p, d = 16, 2
    tensors = {"model.embed_tokens.weight": np.ones((10, p), dtype=np.float32)}
    for name, rows in (("q", 4 * d), ("k", 4 * d), ("v", 4 * d)):
        tensors[f"model.layers.0.self_attn.{name}_proj.weight"] = rng.standard_normal((rows, p)).astype(np.float32)
    path = tmp_path / "tiny.safetensors"
    save_file(tensors, str(path))
    assert cli.main(["heads", str(path), "--num-heads", "4", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    expected = model_hdi(path, num_heads=4).model_dump(mode="json")["layers"][0]["clusters"]["key"]["contribution"]
    key_rows = [row for row in rows if row["heads"] == "key"]
    assert [float(r["contribution"]) for r in key_rows] == pytest.approx(expected)
    assert cli.main(["heads", str(tmp_path / "missing.safetensors")]) == 2
    assert "neither a built-in model" in capsys.readouterr().err


def test_every_chart_of_a_model_numbers_heads_from_one(tmp_path: Path) -> None:
    """The overlap heatmap, the clustered heatmap, the dendrogram and the contribution chart name the same heads."""
    import re

    from headdiv.figures import model_charts as figs

    rng = np.random.default_rng(8)
    p, d = 16, 2
    tensors = {"model.embed_tokens.weight": np.ones((10, p), dtype=np.float32)}
    for name in ("q", "k", "v"):
        tensors[f"model.layers.0.self_attn.{name}_proj.weight"] = rng.standard_normal((4 * d, p)).astype(np.float32)
    path = tmp_path / "four.safetensors"
    save_file(tensors, str(path))
    r = model_hdi(path, num_heads=4)

    def numbers(labels: object) -> set[int]:
        return {int(m) for label in list(labels or []) for m in re.findall(r"\d+", str(label))[:1]}

    plain = figs.overlap_heatmap(r, 0).data[0]
    clustered = figs.clustered_heatmap(r, 0).data[0]
    dendro = figs.dendrogram_figure(r, 0).layout.xaxis.ticktext
    bars = figs.contribution_bars(r, 0).data[0].x
    assert numbers(plain.x) == numbers(clustered.x) == numbers(dendro) == numbers(bars) == {1, 2, 3, 4}
