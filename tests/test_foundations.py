"""The foundations lessons against closed forms, and their API (422 on bad input, seeded answers)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError

from headdiv.schemas.lesson_queries import BudgetQuery, EntropyQuery, ScalingQuery, SoftmaxQuery
from headdiv.server.api.routes.foundations_routes import router
from headdiv.workers.engine.foundations import (
    attention_flops,
    attention_params,
    budget_lesson,
    entropy_lesson,
    scaling_lesson,
    softmax_lesson,
)

# ---------------------------------------------------------------------------------------------------
# Scaling: Var(q.k) = d_k, Var(q.k / sqrt(d_k)) = 1, Var(cos) = 1 / d_k
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_dot_product_variances(d_k: int) -> None:
    r = scaling_lesson(ScalingQuery(d_k=d_k, samples=min(50_000, 2_000_000 // d_k), seed=3)).model_dump(mode="json")
    n = r["samples"]
    # the sample variance of q.k has relative standard error about sqrt(2 / n) * sqrt(1 + 2/d_k)... use 6 sigma
    rel = 6 * math.sqrt((2 + 6 / d_k) / n)
    assert r["unscaled"]["theory_variance"] == d_k and r["scaled"]["theory_variance"] == 1.0
    assert r["unscaled"]["variance"] == pytest.approx(d_k, rel=rel)
    assert r["scaled"]["variance"] == pytest.approx(1.0, rel=rel)
    assert r["unscaled"]["variance"] / r["scaled"]["variance"] == pytest.approx(d_k, rel=1e-9)
    assert r["cosine"]["variance"] == pytest.approx(1.0 / d_k, rel=rel + 0.05)


def test_scaling_histograms_and_cosine_curve() -> None:
    r = scaling_lesson(ScalingQuery(d_k=64, samples=4000, bins=30, seed=0)).model_dump(mode="json")
    for part in ("unscaled", "scaled"):
        hist = r[part]["histogram"]
        assert len(hist["counts"]) == 30 and len(hist["edges"]) == 31
        width = hist["edges"][1] - hist["edges"][0]
        assert sum(hist["density"]) * width == pytest.approx(1.0)
    assert sum(r["scaled"]["histogram"]["counts"]) > 0.99 * 4000  # +-4 sd holds nearly all
    curve = r["cosine"]["curve"]
    # the spread of cosine similarity shrinks as 1/sqrt(d_k): concentration at orthogonality
    assert curve["std"][0] > curve["std"][-1] * 10
    for std, theory in zip(curve["std"][1:], curve["theory_std"][1:], strict=True):
        assert std == pytest.approx(theory, rel=0.2)


def test_scaling_is_seeded() -> None:
    a = scaling_lesson(ScalingQuery(seed=5)).model_dump(mode="json")
    assert a == scaling_lesson(ScalingQuery(seed=5)).model_dump(mode="json")
    assert (
        a["unscaled"]["variance"]
        != scaling_lesson(ScalingQuery(seed=6)).model_dump(mode="json")["unscaled"]["variance"]
    )


# ---------------------------------------------------------------------------------------------------
# Softmax: Boltzmann weights, entropy limits log n (T -> inf) and 0 / log m (T -> 0)
# ---------------------------------------------------------------------------------------------------


def test_softmax_weights_and_entropy_limits() -> None:
    scores = [3.0, 1.0, 0.0, -2.0, 0.5]
    r = softmax_lesson(SoftmaxQuery(scores=scores, temperature=1.0)).model_dump(mode="json")
    expected = np.exp(scores) / np.exp(scores).sum()
    np.testing.assert_allclose(r["weights"], expected, rtol=1e-12)
    assert r["entropy"] == pytest.approx(float(-(expected * np.log(expected)).sum()))
    assert r["max_entropy"] == pytest.approx(math.log(5))
    hot = softmax_lesson(SoftmaxQuery(scores=scores, temperature=1e3)).model_dump(mode="json")
    assert hot["entropy"] == pytest.approx(math.log(5), abs=1e-4)
    np.testing.assert_allclose(hot["weights"], hot["limits"]["uniform"], atol=1e-3)
    cold = softmax_lesson(SoftmaxQuery(scores=scores, temperature=1e-3)).model_dump(mode="json")
    assert cold["entropy"] == pytest.approx(0.0, abs=1e-12)
    assert cold["weights"] == pytest.approx(cold["limits"]["argmax"]) == [1.0, 0, 0, 0, 0]
    curve = r["curve"]
    assert curve["entropy"][0] == pytest.approx(0.0, abs=1e-9)
    assert curve["entropy"][-1] == pytest.approx(math.log(5), abs=1e-3)
    assert all(a <= b + 1e-12 for a, b in zip(curve["entropy"], curve["entropy"][1:], strict=False))  # monotone in T


def test_softmax_ties_and_free_energy() -> None:
    r = softmax_lesson(SoftmaxQuery(scores=[2.0, 2.0, -1.0], temperature=1e-3)).model_dump(mode="json")
    assert r["entropy"] == pytest.approx(math.log(2)) and r["argmax_entropy"] == pytest.approx(math.log(2))
    assert r["limits"]["argmax"] == [0.5, 0.5, 0.0]
    # Boltzmann identity: F = <E> - T S
    r = softmax_lesson(SoftmaxQuery(scores=[1.0, -0.5, 0.25, 4.0], temperature=0.7)).model_dump(mode="json")
    assert r["free_energy"] == pytest.approx(r["mean_energy"] - 0.7 * r["entropy"])
    # huge scores at tiny temperature do not overflow
    r = softmax_lesson(SoftmaxQuery(scores=[1000.0, -1000.0], temperature=1e-3)).model_dump(mode="json")
    assert r["weights"] == [1.0, 0.0] and math.isfinite(r["log_partition"])


# ---------------------------------------------------------------------------------------------------
# Entropy against H
# ---------------------------------------------------------------------------------------------------


def test_entropy_lesson_bounds_and_trend() -> None:
    r = entropy_lesson(EntropyQuery(d_model=64, seq_len=32, samples=4, heads=[1, 4, 16, 64], seed=1)).model_dump(
        mode="json"
    )
    assert r["max_entropy"] == pytest.approx(math.log(32))
    assert [p["H"] for p in r["points"]] == [1, 4, 16, 64] and [p["d_k"] for p in r["points"]] == [64, 16, 4, 1]
    for p in r["points"]:
        assert 0.0 < p["min"] <= p["mean"] <= p["max"] <= math.log(32) + 1e-6
        assert len(p["head_entropies"]) == 4 * p["H"]
    # with one head there is one value per sample; more, smaller heads spread further apart
    assert r["points"][-1]["std"] > r["points"][0]["std"]
    # unscaled scores have variance d_k: fewer, wider heads are much sharper (lower entropy)
    u = entropy_lesson(EntropyQuery(d_model=64, seq_len=32, samples=4, heads=[1, 64], seed=1, scaled=False)).model_dump(
        mode="json"
    )
    assert u["points"][0]["mean"] < u["points"][1]["mean"] - 1.0
    assert r == entropy_lesson(
        EntropyQuery(d_model=64, seq_len=32, samples=4, heads=[1, 4, 16, 64], seed=1)
    ).model_dump(mode="json")


def test_entropy_never_exceeds_log_n() -> None:
    # the uniform distribution over n tokens is the ceiling, whatever the scores
    r = entropy_lesson(EntropyQuery(d_model=2, seq_len=2, samples=2, heads=[1, 2], scaled=False)).model_dump(
        mode="json"
    )
    for p in r["points"]:
        assert p["min"] >= 0.0 and p["max"] <= math.log(2) + 1e-9


# ---------------------------------------------------------------------------------------------------
# Budget: 4 d^2 + 4 d parameters independent of H, quadratic cost in n
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("d", "h"), [(512, 8), (768, 12), (64, 1), (64, 64)])
def test_parameter_count_is_4d2_plus_4d_for_any_h(d: int, h: int) -> None:
    r = budget_lesson(BudgetQuery(d_model=d, H=h, seq_len=128)).model_dump(mode="json")
    assert r["chosen"]["params"] == 4 * d * d + 4 * d == attention_params(d)
    assert attention_params(d, bias=False) == 4 * d * d
    assert {row["params"] for row in r["by_heads"]} == {4 * d * d + 4 * d}
    assert h in [row["H"] for row in r["by_heads"]]
    # per head: Q, K, V slices of d x d_k (+ biases); summed over heads plus W_O gives the total
    head = r["chosen"]["params_per_head"]
    assert h * head + d * d + d == r["chosen"]["params"]


def test_flops_and_memory_quadratic_in_length() -> None:
    r = budget_lesson(BudgetQuery(d_model=256, H=8, seq_len=1024)).model_dump(mode="json")
    rows = {row["seq_len"]: row for row in r["by_length"]}
    assert rows[2048]["attention_bytes"] == 4 * rows[1024]["attention_bytes"] == 4 * 8 * 1024 * 1024 * 4
    f1, f2 = attention_flops(256, 8, 1024), attention_flops(256, 8, 2048)
    assert f2["scores"] == 4 * f1["scores"] and f2["projections"] == 2 * f1["projections"]
    assert f1["total"] == 8 * 1024 * 256**2 + 4 * 1024**2 * 256 + 3 * 8 * 1024**2
    assert rows[1024]["flops"] == f1["total"]


# ---------------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "kwargs", "words"),
    [
        (BudgetQuery, {"d_model": 10, "H": 3}, "does not divide"),
        (EntropyQuery, {"d_model": 64, "heads": [3]}, "does not divide"),
        (EntropyQuery, {"heads": [2, 2]}, "distinct"),
        (EntropyQuery, {"d_model": 1024, "seq_len": 512, "samples": 64}, "exceeds"),
        (EntropyQuery, {"d_model": 128, "seq_len": 512, "samples": 1, "heads": [64, 128]}, "attention weights exceeds"),
        (ScalingQuery, {"d_k": 1024, "samples": 50_000}, "exceeds"),
        (ScalingQuery, {"d_k": 0}, "greater than or equal"),
        (SoftmaxQuery, {"scores": [1.0]}, "at least 2"),
        (SoftmaxQuery, {"scores": [1.0, 5000.0]}, "less than or equal to 1000"),
        (SoftmaxQuery, {"temperature": 0.0}, "greater than or equal"),
        (SoftmaxQuery, {"scores": [1.0, float("nan")]}, "finite"),
        (BudgetQuery, {"H": True}, "boolean"),
    ],
)
def test_bad_queries(model: type, kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        model(**kwargs)


# ---------------------------------------------------------------------------------------------------
# The HTTP API (a minimal app with just this router; the full app mounts the same router)
# ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = FastAPI()
    app.include_router(router, prefix="/api/v1")
    return TestClient(app)


def test_api_get_and_post_agree(client: TestClient) -> None:
    got = client.get("/api/v1/foundations/scaling", params={"d_k": 32, "samples": 1000, "seed": 4})
    posted = client.post("/api/v1/foundations/scaling", json={"d_k": 32, "samples": 1000, "seed": 4})
    assert got.status_code == posted.status_code == 200
    assert got.json() == posted.json() and got.json()["d_k"] == 32
    got = client.get("/api/v1/foundations/softmax", params=[("scores", 1), ("scores", 2), ("temperature", 0.5)])
    assert got.status_code == 200
    assert got.json()["weights"] == pytest.approx(
        softmax_lesson(SoftmaxQuery(scores=[1, 2], temperature=0.5)).model_dump(mode="json")["weights"]
    )
    got = client.get(
        "/api/v1/foundations/entropy", params=[("d_model", 32), ("heads", 1), ("heads", 4), ("seq_len", 8)]
    )
    assert got.status_code == 200 and [p["H"] for p in got.json()["points"]] == [1, 4]
    got = client.get("/api/v1/foundations/budget", params={"d_model": 768, "H": 12, "seq_len": 512})
    assert got.status_code == 200 and got.json()["chosen"]["params"] == 4 * 768**2 + 4 * 768


@pytest.mark.parametrize(
    ("method", "path", "payload", "field"),
    [
        ("get", "/api/v1/foundations/budget", {"d_model": 10, "H": 3}, ""),
        ("get", "/api/v1/foundations/scaling", {"d_k": "many"}, "d_k"),
        ("get", "/api/v1/foundations/scaling", {"bogus": 1}, "bogus"),
        ("post", "/api/v1/foundations/softmax", {"scores": [1], "temperature": 1}, "scores"),
        ("post", "/api/v1/foundations/softmax", {"scores": [1, 2], "temperature": -1}, "temperature"),
        ("post", "/api/v1/foundations/entropy", {"heads": [5]}, ""),
    ],
)
def test_api_rejects_bad_input_with_422(
    client: TestClient, method: str, path: str, payload: dict[str, object], field: str
) -> None:
    r = client.get(path, params=payload) if method == "get" else client.post(path, json=payload)
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail and all("msg" in d for d in detail)
    if field:
        assert any(field in d["loc"] for d in detail)


def test_api_is_cheap(client: TestClient) -> None:
    for path in ("scaling", "softmax", "entropy", "budget"):
        client.get(f"/api/v1/foundations/{path}")  # warm
        start = time.perf_counter()
        r = client.get(f"/api/v1/foundations/{path}")
        elapsed = time.perf_counter() - start
        assert r.status_code == 200
        assert elapsed < 1.0, f"{path} took {elapsed:.3f} s with its defaults"  # < 100 ms unloaded; CI shares cores
