"""What each Foundations lesson asks the API for, from the page state: the query of
`GET /api/v1/foundations/<lesson>`, kept within the API's own budgets (`headdiv.schemas.lessons`) by
shrinking the number of samples rather than being refused."""

from __future__ import annotations

from typing import Any

from headdiv.dashboard.state import PageState
from headdiv.schemas.lessons import MAX_ENTROPY_WEIGHTS, MAX_ENTROPY_WORK, MAX_SCALING_WORK, entropy_work


def scaling_params(st: PageState) -> dict[str, Any]:
    d_k, samples = int(st.get("sc_dk", 64)), int(st.get("sc_n", 4000))
    limit = MAX_SCALING_WORK // max(d_k, 1)  # the API's samples * d_k budget: shrink samples rather than fail
    return {"d_k": d_k, "samples": max(100, min(samples, limit)), "seed": int(st.get("fseed", 0))}


def softmax_params(st: PageState) -> dict[str, Any]:
    return {"scores": list(st.get("sm_scores") or []), "temperature": st.get("sm_T", 1.0)}


def entropy_params(st: PageState) -> dict[str, Any]:
    d = int(st.get("en_d", 128))
    heads = sorted({int(h) for h in (st.get("en_heads") or []) if h >= 1 and d % int(h) == 0}) or [1]
    n = int(st.get("en_len", 64))
    # as many random sequences (up to 8) as the API's two budgets allow; 1 beyond them, and the API explains
    by_weights = MAX_ENTROPY_WEIGHTS // max(n * n * sum(heads), 1)
    by_work = MAX_ENTROPY_WORK // max(entropy_work(d, n, 1, len(heads)), 1)
    return {
        "d_model": d,
        "seq_len": n,
        "heads": heads,
        "scaled": bool(st.get("en_scaled", True)),
        "seed": int(st.get("fseed", 0)),
        "samples": int(max(1, min(8, by_weights, by_work))),
    }


def budget_params(st: PageState) -> dict[str, Any]:
    return {"d_model": int(st.get("bu_d", 512)), "H": int(st.get("bu_H", 8)), "seq_len": int(st.get("bu_len", 1024))}
