"""POST /api/v1/hdi with many heads: a bounded answer, the same numbers as the pair-by-pair definitions."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient
from scipy.linalg import subspace_angles

from headdiv.schemas.report_queries import MAX_HDI_WORK, MAX_LISTED_ANGLES, MAX_LISTED_PAIRS
from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings

MAX_ANSWER_BYTES = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


def test_256_square_matrices_answer_a_bounded_body(api: TestClient) -> None:
    """The reported case: 256 matrices of 16 x 16 (140 KB in) answered 13.6 MB of every pair's angles."""
    rng = np.random.default_rng(1)
    matrices = [np.round(rng.standard_normal((16, 16)), 3).tolist() for _ in range(256)]
    r = api.post("/api/v1/hdi", json={"matrices": matrices})
    assert r.status_code == 200, r.text[:300]
    assert len(r.content) < MAX_ANSWER_BYTES
    body = r.json()
    assert body["hdi"] == pytest.approx(0.0, abs=1e-9)  # every head spans the whole space: full overlap
    assert np.allclose(body["overlap_matrix"], 1.0)
    listed = body["principal_angles_deg"]
    assert sum(len(p["angles"]) for p in listed) <= MAX_LISTED_ANGLES and len(listed) <= MAX_LISTED_PAIRS
    assert f"of {256 * 255 // 2} pairs" in body["principal_angles_note"]


def test_many_heads_give_the_pairwise_overlaps_and_angles(api: TestClient) -> None:
    rng = np.random.default_rng(2)
    heads = [rng.standard_normal((24, 3)) for _ in range(256)]
    r = api.post("/api/v1/hdi", json={"matrices": [h.tolist() for h in heads]})
    assert r.status_code == 200, r.text[:300]
    body = r.json()
    bases = [np.linalg.qr(h)[0] for h in heads]
    s = np.asarray(body["overlap_matrix"])
    assert s.shape == (256, 256) and np.allclose(s, s.T) and np.allclose(np.diag(s), 1.0)
    for i, j in [(0, 1), (3, 200), (254, 255), (17, 99)]:
        assert s[i, j] == pytest.approx(np.sum((bases[i].T @ bases[j]) ** 2) / 3, abs=1e-12)
    off = (s.sum() - np.trace(s)) / (256 * 255)
    assert body["hdi"] == pytest.approx(1 - off, abs=1e-12)
    listed = body["principal_angles_deg"]
    assert len(listed) == MAX_LISTED_PAIRS
    assert [p["pair"] for p in listed[:3]] == [[0, 1], [0, 2], [0, 3]] and listed[255]["pair"] == [1, 2]
    for entry in listed[::50]:
        i, j = entry["pair"]
        expected = np.sort(np.degrees(subspace_angles(heads[i], heads[j])))
        assert np.allclose(entry["angles"], expected, atol=1e-8)
    assert f"first {MAX_LISTED_PAIRS} of {256 * 255 // 2} pairs" in body["principal_angles_note"]


def test_few_heads_list_every_pair_without_a_note(api: TestClient) -> None:
    r = api.post("/api/v1/hdi", json={"matrices": [[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]})
    body = r.json()
    assert len(body["principal_angles_deg"]) == 1 and body["principal_angles_note"] is None
    assert json.loads(r.text)["hdi"] == pytest.approx(0.5)


def test_a_report_over_the_work_limit_is_a_422_before_anything_runs() -> None:
    # one 1500 x 1500 matrix: its SVD alone is about 2e10 multiply-adds (the body limit is raised for it)
    with TestClient(create_app(embedded_settings(max_body_bytes=64 << 20), mount_dashboard=False)) as c:
        big = np.ones((1500, 1500), dtype=int).tolist()
        r = c.post("/api/v1/hdi", json={"matrices": [big]})
    assert r.status_code == 422, r.text[:300]
    assert f"over the limit of {MAX_HDI_WORK:.0e}" in r.json()["message"]
