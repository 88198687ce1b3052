"""Every common attention layout, measured from the folder `save_pretrained` writes: checkpoints made by the
transformers library itself from tiny random configs of each family, so the files are the real format. Each
layer's key HDI is compared with an independent computation: the key heads taken from the torch modules'
own weights (not from tensor names) and their principal angles from scipy.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.linalg
import torch

transformers = pytest.importorskip("transformers")

from headdiv.schemas.errors import ModelFileError  # noqa: E402
from headdiv.workers.models.model_hdi import model_hdi  # noqa: E402

SMALL = {"vocab_size": 99}


def hdi_of(key_weight: np.ndarray, heads: int) -> float:
    """1 − the mean over pairs of heads of the mean cos² of their principal angles (docs/model.md section 6)."""
    d = key_weight.shape[0] // heads
    bases = [key_weight[h * d : (h + 1) * d].T for h in range(heads)]
    overlaps = [
        float(np.mean(np.cos(scipy.linalg.subspace_angles(a, b)) ** 2)) for a, b in itertools.combinations(bases, 2)
    ]
    return 1.0 - float(np.mean(overlaps))


def w(param: torch.Tensor) -> np.ndarray:
    return param.detach().to(torch.float64).numpy()


def per_head(fused: np.ndarray, heads: int, part: int) -> np.ndarray:
    """Rows of a per-head interleaved (q, k, v) Linear weight: part 1 is the key."""
    rows, p = fused.shape
    return fused.reshape(heads, 3, rows // (3 * heads), p)[:, part].reshape(-1, p)


@dataclass(frozen=True)
class Family:
    build: Callable[[], Any]
    keys: Callable[[Any], dict[str, list[np.ndarray]]]
    """Each stack's key weights (Linear out x in), layer by layer, read from the modules."""
    kv_heads: int
    style: str


def _bert() -> Any:
    return transformers.BertModel(
        transformers.BertConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37, **SMALL
        )
    )


FAMILIES: dict[str, Family] = {
    "bert": Family(_bert, lambda m: {"": [w(x.attention.self.key.weight) for x in m.encoder.layer]}, 4, "bert"),
    "vit": Family(
        lambda: transformers.ViTModel(
            transformers.ViTConfig(
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                intermediate_size=37,
                image_size=8,
                patch_size=4,
            )
        ),
        # transformers 5 names the modules q_proj/k_proj and saves them under the hub's names (attention.attention.key)
        lambda m: {"": [w(x.attention.k_proj.weight) for x in m.layers]},
        4,
        "vit",
    ),
    "distilbert": Family(
        lambda: transformers.DistilBertModel(
            transformers.DistilBertConfig(dim=32, n_layers=2, n_heads=4, hidden_dim=37, **SMALL)
        ),
        lambda m: {"": [w(x.attention.k_lin.weight) for x in m.transformer.layer]},
        4,
        "distilbert",
    ),
    "gpt2": Family(
        lambda: transformers.GPT2Model(
            transformers.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=16, **SMALL)
        ),
        lambda m: {"": [w(x.attn.c_attn.weight)[:, 32:64].T for x in m.h]},  # Conv1D: (in, 3 out), Q | K | V
        4,
        "gpt2",
    ),
    "llama-gqa-wide-heads": Family(  # grouped-query keys, and head_dim 16 over d_model 32 with 4 heads
        lambda: transformers.LlamaModel(
            transformers.LlamaConfig(
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                head_dim=16,
                intermediate_size=37,
                **SMALL,
            )
        ),
        lambda m: {"": [w(x.self_attn.k_proj.weight) for x in m.layers]},
        2,
        "llama",
    ),
    "gpt-neox": Family(
        lambda: transformers.GPTNeoXModel(
            transformers.GPTNeoXConfig(
                hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37, **SMALL
            )
        ),
        lambda m: {"": [per_head(w(x.attention.query_key_value.weight), 4, 1) for x in m.layers]},
        4,
        "gpt-neox",
    ),
    "bloom": Family(
        lambda: transformers.BloomModel(transformers.BloomConfig(hidden_size=32, n_layer=2, n_head=4, **SMALL)),
        lambda m: {"": [per_head(w(x.self_attention.query_key_value.weight), 4, 1) for x in m.h]},
        4,
        "bloom",
    ),
    "phi3-gqa": Family(  # fused Q | K | V rows, the keys two heads of 8
        lambda: transformers.Phi3Model(
            transformers.Phi3Config(
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                intermediate_size=37,
                pad_token_id=0,
                **SMALL,
            )
        ),
        lambda m: {"": [w(x.self_attn.qkv_proj.weight)[32:48] for x in m.layers]},
        2,
        "phi3",
    ),
    "t5": Family(
        lambda: transformers.T5Model(
            transformers.T5Config(d_model=32, d_kv=8, num_heads=4, num_layers=2, num_decoder_layers=2, d_ff=37, **SMALL)
        ),
        lambda m: {
            "encoder self-attention": [w(b.layer[0].SelfAttention.k.weight) for b in m.encoder.block],
            "decoder self-attention": [w(b.layer[0].SelfAttention.k.weight) for b in m.decoder.block],
            "decoder cross-attention": [w(b.layer[1].EncDecAttention.k.weight) for b in m.decoder.block],
        },
        4,
        "t5",
    ),
    "bart": Family(
        lambda: transformers.BartModel(
            transformers.BartConfig(
                d_model=32,
                encoder_layers=2,
                decoder_layers=2,
                encoder_attention_heads=4,
                decoder_attention_heads=4,
                encoder_ffn_dim=37,
                decoder_ffn_dim=37,
                max_position_embeddings=16,
                **SMALL,
            )
        ),
        lambda m: {
            "encoder self-attention": [w(x.self_attn.k_proj.weight) for x in m.encoder.layers],
            "decoder self-attention": [w(x.self_attn.k_proj.weight) for x in m.decoder.layers],
            "decoder cross-attention": [w(x.encoder_attn.k_proj.weight) for x in m.decoder.layers],
        },
        4,
        "llama",
    ),
}


def saved(family: str, folder: Path, **options: Any) -> Any:
    torch.manual_seed(0)
    model = FAMILIES[family].build().eval()
    model.save_pretrained(folder, **options)
    return model


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_familys_saved_folder_is_measured_exactly(family: str, tmp_path: Path) -> None:
    spec = FAMILIES[family]
    model = saved(family, tmp_path)
    report = model_hdi(tmp_path)  # no head counts given: config.json says them
    assert report.style == spec.style and report.num_kv_heads == spec.kv_heads
    expected = spec.keys(model)
    got: dict[str, list[float | None]] = {}
    for layer in report.layers:
        got.setdefault(layer.stack, []).append(layer.key_hdi)
    assert list(got) == list(expected)
    for stack, weights in expected.items():
        assert got[stack] == pytest.approx([hdi_of(k, spec.kv_heads) for k in weights], abs=1e-9), stack


def test_a_sharded_checkpoint_opens_only_the_shards_it_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = saved("llama-gqa-wide-heads", tmp_path, max_shard_size="20KB")
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    shards = set(index["weight_map"].values())
    assert len(shards) >= 3
    holding = {f for t, f in index["weight_map"].items() if "q_proj" in t or "k_proj" in t}
    assert holding < shards  # some shards hold no attention weight ...
    from headdiv.workers.models import checkpoint

    opened: list[str] = []
    real = checkpoint.open_safetensors

    def counted(path: Any) -> Any:
        opened.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(checkpoint, "open_safetensors", counted)
    report = model_hdi(tmp_path)
    assert set(opened) == holding  # ... and are never opened
    keys = FAMILIES["llama-gqa-wide-heads"].keys(model)[""]
    assert [x.key_hdi for x in report.layers] == pytest.approx([hdi_of(k, 2) for k in keys], abs=1e-9)


def test_a_hugging_face_id_is_found_in_the_local_cache_and_never_downloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's own layout (models--owner--name/snapshots/<revision>, refs/main), read by huggingface_hub."""
    cache = tmp_path / "hub"
    revision = "0123456789abcdef0123456789abcdef01234567"
    snapshot = cache / "models--tiny--bert" / "snapshots" / revision
    model = saved("bert", snapshot)
    (cache / "models--tiny--bert" / "refs").mkdir()
    (cache / "models--tiny--bert" / "refs" / "main").write_text(revision)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    report = model_hdi("tiny/bert")
    assert report.model == "tiny/bert"
    keys = FAMILIES["bert"].keys(model)[""]
    assert [x.key_hdi for x in report.layers] == pytest.approx([hdi_of(k, 4) for k in keys], abs=1e-9)
    with pytest.raises(
        ModelFileError, match=r"tiny/absent is not in the local Hugging Face cache .*nothing is downloaded"
    ):
        model_hdi("tiny/absent")


def test_a_layout_it_cannot_read_is_refused_in_one_line_naming_what_it_found(tmp_path: Path) -> None:
    saved("bert", tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "model_type": "falcon"}))
    with pytest.raises(ModelFileError, match="model type 'falcon' is not read here") as refused:
        model_hdi(tmp_path)
    assert "\n" not in str(refused.value)


def test_bf16_and_fp16_checkpoints_are_read(tmp_path: Path) -> None:
    for dtype in (torch.bfloat16, torch.float16):
        folder = tmp_path / str(dtype)
        torch.manual_seed(0)
        model = FAMILIES["gpt-neox"].build().to(dtype)
        model.save_pretrained(folder)
        keys = FAMILIES["gpt-neox"].keys(model)[""]
        report = model_hdi(folder)
        assert [x.key_hdi for x in report.layers] == pytest.approx([hdi_of(k, 4) for k in keys], abs=1e-9)


def test_a_folder_through_the_cli_and_the_python_api_is_the_engines_report_with_its_stacks_drawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import headdiv
    from headdiv.cli import main
    from headdiv.figures.model_charts import layer_bars
    from headdiv.schemas.results.report_results import ModelHeadsReport

    saved("t5", tmp_path)
    engine = model_hdi(tmp_path)
    assert main(["heads", str(tmp_path)]) == 0
    cli = ModelHeadsReport.model_validate_json(capsys.readouterr().out)
    assert cli == engine == headdiv.heads(str(tmp_path)).result
    stacks = [layer.stack for layer in engine.layers]
    assert stacks == ["encoder self-attention"] * 2 + ["decoder self-attention"] * 2 + ["decoder cross-attention"] * 2
    assert list(layer_bars(engine).data[0].x) == [
        "0 enc self",
        "1 enc self",
        "2 dec self",
        "3 dec self",
        "4 dec cross",
        "5 dec cross",
    ]


def test_a_name_that_is_no_model_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from headdiv.cli import main

    assert main(["heads", "no such thing"]) != 0
    err = capsys.readouterr().err.strip()
    assert "neither a built-in model" in err and "a folder nor a Hugging Face id" in err and "\n" not in err


def _server(models_dir: Path) -> Any:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from headdiv.server.api.routes.models_routes import router
    from headdiv.server.server_settings import ServerSettings

    app = FastAPI()
    app.state.settings = ServerSettings(models_dir=models_dir)
    app.include_router(router, prefix="/api/v1")
    return TestClient(app)


def test_the_server_lists_and_measures_its_own_models_by_id_never_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = tmp_path / "models"
    t5 = saved("t5", shelf / "tiny-t5")
    saved("gpt2", shelf / "gpt2-single")
    (shelf / "gpt2-single" / "model.safetensors").rename(shelf / "lone.safetensors")
    (shelf / "notes").mkdir()  # a folder with no model is not listed
    cache = tmp_path / "hub"
    revision = "89abcdef0123456789abcdef0123456789abcdef"
    saved("phi3-gqa", cache / "models--tiny--phi3" / "snapshots" / revision)
    (cache / "models--tiny--phi3" / "refs").mkdir()
    (cache / "models--tiny--phi3" / "refs" / "main").write_text(revision)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    api = _server(shelf)

    listed = {m["id"]: m for m in api.get("/api/v1/models/local").json()["models"]}
    assert set(listed) == {"dir:tiny-t5", "dir:lone.safetensors", "dir:gpt2-single", "tiny/phi3"}
    assert listed["dir:tiny-t5"]["style"] == "t5" and listed["dir:tiny-t5"]["layers"] == 6
    assert listed["tiny/phi3"]["source"] == "hf_cache" and listed["tiny/phi3"]["style"] == "phi3"
    assert listed["dir:gpt2-single"]["style"] is None and "no .safetensors" in listed["dir:gpt2-single"]["note"]
    assert listed["dir:lone.safetensors"]["style"] == "gpt2" and listed["dir:lone.safetensors"]["size_bytes"] > 0

    answer = api.get("/api/v1/models/local/dir:tiny-t5/hdi")
    assert answer.status_code == 200, answer.text
    expected = FAMILIES["t5"].keys(t5)
    assert [x["key_hdi"] for x in answer.json()["layers"]] == pytest.approx(
        [hdi_of(k, 4) for stack in expected.values() for k in stack], abs=1e-9
    )
    assert api.get("/api/v1/models/local/tiny/phi3/hdi").json()["style"] == "phi3"
    # again: from the cache, by content (the measurement is not run a second time)
    from headdiv.workers import instant_reports

    monkeypatch.setattr(instant_reports, "model_heads", lambda *a, **k: pytest.fail("measured twice"))
    assert api.get("/api/v1/models/local/dir:tiny-t5/hdi").json() == answer.json()
    # an id is looked up, never read as a path
    for probe in ("dir:..", "dir:../models/tiny-t5", "etc/passwd", "dir:notes"):
        assert api.get(f"/api/v1/models/local/{probe}/hdi").status_code in (404, 422), probe


def test_the_python_api_lists_and_measures_a_servers_models_and_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import headdiv
    from headdiv.server.main import create_app
    from tests.server.conftest import embedded_settings
    from tests.server.helpers import ServerThread

    shelf = tmp_path / "models"
    model = saved("bloom", shelf / "tiny-bloom")
    expected = [hdi_of(k, 4) for k in FAMILIES["bloom"].keys(model)[""]]
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    app = create_app(embedded_settings(models_dir=shelf), mount_dashboard=False)
    with ServerThread(app) as running:
        remote = headdiv.connect(running.url)
        assert [m.id for m in remote.local_models()] == ["dir:tiny-bloom"]
        there = remote.heads("dir:tiny-bloom")
        assert [x.key_hdi for x in there.result.layers] == pytest.approx(expected, abs=1e-9)
        with pytest.raises(headdiv.JobFailed, match="no model 'dir:elsewhere' on this server"):
            remote.heads("dir:elsewhere")
    monkeypatch.setenv("HEADDIV_MODELS_DIR", str(shelf))
    here = headdiv.connect(None)
    assert [m.id for m in here.local_models()] == ["dir:tiny-bloom"]
    assert here.heads("dir:tiny-bloom").result == there.result


def _upload(api: Any, files: list[tuple[str, bytes]], **form: str) -> Any:
    parts = [("file", (name, data)) for name, data in files]
    return api.post("/api/v1/models/hdi", files=parts, data=form, headers={"X-Headdiv-Upload": "1"})


def test_a_sharded_folder_uploaded_as_its_files_is_measured_as_the_folder(tmp_path: Path) -> None:
    """The page (or curl) sends a model folder's config, shards and index as several `file` parts; the report
    equals the folder's own, head counts from its config.json; a tokenizer or a missing weight is one line."""
    folder = tmp_path / "tiny-llama"
    model = saved("llama-gqa-wide-heads", folder, max_shard_size="20KB")
    files = sorted((p.name, p.read_bytes()) for p in folder.iterdir() if p.is_file())
    assert sum(name.endswith(".safetensors") for name, _ in files) >= 3
    api = _server(tmp_path / "none")
    answer = _upload(api, files, model="tiny-llama")
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["model"] == "tiny-llama" and report["num_kv_heads"] == 2
    keys = FAMILIES["llama-gqa-wide-heads"].keys(model)[""]
    assert [x["key_hdi"] for x in report["layers"]] == pytest.approx([hdi_of(k, 2) for k in keys], abs=1e-9)
    assert report["layers"] == model_hdi(folder).model_dump(mode="json")["layers"]
    assert _upload(api, files).json()["model"] == f"{len(files)} files"

    for parts, says in (
        ([*files, ("tokenizer.json", b"{}")], "'tokenizer.json' is not part of a checkpoint"),
        ([f for f in files if not f[0].endswith(".safetensors")], "no .safetensors file among"),
        ([*files, files[-1]], "two files are named"),
    ):
        refused = _upload(api, parts)
        assert refused.status_code == 422, refused.text
        assert refused.json()["message"].startswith("file: ") and says in refused.json()["message"], refused.text


def test_files_together_over_the_upload_limit_are_413(tmp_path: Path) -> None:
    folder = tmp_path / "tiny-llama"
    saved("llama-gqa-wide-heads", folder, max_shard_size="20KB")
    files = sorted((p.name, p.read_bytes()) for p in folder.iterdir() if p.is_file())
    total = sum(len(data) for _, data in files)
    assert max(len(data) for _, data in files) < total // 2  # each file alone is within the limit below
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from headdiv.server.api.routes.models_routes import router
    from headdiv.server.server_settings import ServerSettings

    app = FastAPI()
    app.state.settings = ServerSettings(max_upload_bytes=total - 1)
    app.include_router(router, prefix="/api/v1")
    answer = _upload(TestClient(app), files)
    assert answer.status_code == 413 and f"at most {total - 1} bytes" in answer.json()["detail"]


def head_diversity_of(key_weight: np.ndarray, heads: int) -> list[float]:
    """Each head's mean over the other heads of 1 − the mean cos² of their principal angles (scipy)."""
    d = key_weight.shape[0] // heads
    bases = [key_weight[h * d : (h + 1) * d].T for h in range(heads)]
    dist = np.zeros((heads, heads))
    for i, j in itertools.combinations(range(heads), 2):
        dist[i, j] = dist[j, i] = 1.0 - float(np.mean(np.cos(scipy.linalg.subspace_angles(bases[i], bases[j])) ** 2))
    return [float(dist[i].sum() / (heads - 1)) for i in range(heads)]


def _bert_of(layers: int, seed: int, folder: Path) -> Any:
    torch.manual_seed(seed)
    model = transformers.BertModel(
        transformers.BertConfig(
            hidden_size=32, num_hidden_layers=layers, num_attention_heads=4, intermediate_size=37, **SMALL
        )
    ).eval()
    model.save_pretrained(folder)
    return model


def test_each_heads_diversity_is_its_mean_distance_and_the_layers_mean_is_its_hdi(tmp_path: Path) -> None:
    """The layers x heads heatmap's numbers, against scipy on the modules' own weights."""
    from headdiv.figures.model_charts import diversity_heatmap

    model = _bert_of(3, 0, tmp_path)
    report = model_hdi(tmp_path)
    rows = report.head_diversity()
    keys = FAMILIES["bert"].keys(model)[""]
    for row, layer, weight in zip(rows, report.layers, keys, strict=True):
        assert row == pytest.approx(head_diversity_of(weight, 4), abs=1e-9)
        assert sum(row or []) / 4 == pytest.approx(layer.key_hdi, abs=1e-12)
    heat = diversity_heatmap(report).data[0]
    assert [list(r) for r in heat.z] == rows and (heat.zmin, heat.zmax) == (0, 1)


def test_two_models_compared_on_one_axis_by_depth_in_python_the_cli_and_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 2-layer and a 3-layer model: the comparison lines them up by depth (0, 1 and 0, 0.5, 1), its table is
    one row per model and layer with each head's diversity, and the command line prints the same rows."""
    import headdiv
    from headdiv.cli import main
    from headdiv.schemas.csv_tables import records_csv

    _bert_of(2, 0, tmp_path / "small")
    _bert_of(3, 1, tmp_path / "deep")
    both = headdiv.compare_heads(str(tmp_path / "small"), str(tmp_path / "deep"))
    a, b = both.result.a, both.result.b
    assert (len(a.layers), len(b.layers)) == (2, 3)
    chart = both.figure("layers")
    assert [list(t.x) for t in chart.data] == [[0.0, 1.0], [0.0, 1.0], [0.0, 0.5, 1.0], [0.0, 0.5, 1.0]]
    assert list(chart.data[2].y) == [x.key_hdi for x in b.layers] and "depth" in chart.layout.xaxis.title.text
    assert set(both.figures()) == {"layers", "diversity_a", "diversity_b"}
    rows = both.to_dict()  # the JSON download's content
    assert rows["a"]["layers"][0]["key_hdi"] == a.layers[0].key_hdi
    table = both.result.rows()
    assert [(r["model"], r["layer"], r["depth"]) for r in table] == [
        ("a", 0, 0.0),
        ("a", 1, 1.0),
        ("b", 0, 0.0),
        ("b", 1, 0.5),
        ("b", 2, 1.0),
    ]
    assert [table[3][f"head_{h + 1}"] for h in range(4)] == b.head_diversity()[1]
    assert "more diverse" in str(both.summary()) or "no clear difference" in str(both.summary())
    assert main(["heads", str(tmp_path / "small"), "--compare", str(tmp_path / "deep"), "--csv"]) == 0
    assert capsys.readouterr().out.strip() == records_csv(table).strip()
    assert main(["heads", str(tmp_path / "small"), "--compare", "no such model"]) != 0
    assert capsys.readouterr().err.strip().startswith("compare: ")


def _report(name: str, keys: list[float], randoms: list[float]) -> Any:
    from headdiv.schemas.results.report_results import ModelHeadsReport

    layers = [
        {
            "layer": i,
            "name": f"l{i}",
            "key_hdi": k,
            "query_hdi": k,
            "random_hdi": r,
            "key_overlap": [[1.0, 1 - k], [1 - k, 1.0]],
            "key_principal_angles_deg": [],
            "query_overlap": [[1.0, 1 - k], [1 - k, 1.0]],
            "clusters": {"key": None, "query": None},
        }
        for i, (k, r) in enumerate(zip(keys, randoms, strict=True))
    ]
    return ModelHeadsReport.model_validate(
        {
            "model": name,
            "style": "bert",
            "num_heads": 2,
            "num_kv_heads": 2,
            "d_model": 8,
            "d_k": 4,
            "seed": 0,
            "expected_random_hdi": 0.5,
            "layers": layers,
        }
    )


def test_the_comparisons_sentence_says_more_diverse_only_beyond_the_baselines_own_spread() -> None:
    from headdiv.figures.model_charts import compare_sentence

    base = _report("base", [0.50, 0.52], [0.49, 0.51])
    tuned = _report("tuned", [0.62, 0.66], [0.50, 0.52])
    assert compare_sentence(base, tuned).startswith("tuned's key heads are more diverse")
    close = _report("close", [0.51, 0.53], [0.49, 0.52])  # 0.01 apart, the baselines vary by 0.03: false
    said = compare_sentence(base, close)
    assert "no clear difference" in said and "more diverse" not in said
