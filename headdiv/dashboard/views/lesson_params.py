"""Each Foundations lesson's settings and what it asks the API for: its URL parameters (defaults and bounds
read from the API's own query models, `headdiv.schemas.lesson_queries`, so a control never asks for what the API
refuses) and, from the page state, the query of `GET /api/v1/foundations/<lesson>`, kept within the API's
budgets by shrinking the number of samples rather than being refused."""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel

from headdiv.dashboard.page.url_state import PageState, Param, checkbox
from headdiv.schemas.fields import field_bounds
from headdiv.schemas.lesson_queries import (
    MAX_ENTROPY_WEIGHTS,
    MAX_ENTROPY_WORK,
    MAX_SCALING_WORK,
    BudgetQuery,
    EntropyQuery,
    ScalingQuery,
    SoftmaxQuery,
    entropy_work,
)


def _default(model: type[BaseModel], name: str) -> Any:
    return model.model_fields[name].get_default(call_default_factory=True)


def _int_param(name: str, model: type[BaseModel], field: str, component: str, help_text: str) -> Param:
    """A whole-number lesson parameter with the query model's own default and bounds."""
    b = field_bounds(model.model_fields[field])
    return Param(name, "int", _default(model, field), component=component, lo=b.lo, hi=b.hi, help=help_text)


def _log10_slider(default: float) -> dict[str, Any]:
    """Temperature spans 1e-3..1e3: the slider moves in log10, the state keeps the number itself."""
    return {
        "to_component": lambda v: math.log10(v),
        "from_component": lambda c: round(10 ** float(c), 6) if c is not None else default,
    }


def _heads_from_component(raw: Any) -> list[float]:
    return [float(h) for h in (raw or [])]


_T = field_bounds(SoftmaxQuery.model_fields["temperature"])
URL_PARAMS: list[Param] = [
    _int_param("sc_dk", ScalingQuery, "d_k", "fd-sc-dk", "Scaling lesson: head dimension d_k."),
    _int_param("sc_n", ScalingQuery, "samples", "fd-sc-n", "Scaling lesson: random (query, key) pairs."),
    _int_param("fseed", ScalingQuery, "seed", "fd-seed", "Seed of the scaling and entropy lessons."),
    Param(
        "sm_scores",
        "floats",
        _default(SoftmaxQuery, "scores"),
        component="fd-sm-scores",
        max_items=64,
        help="Softmax lesson: the scores s_i (comma separated).",
    ),
    Param(
        "sm_T",
        "float",
        1.0,
        component="fd-sm-t",
        lo=_T.lo,
        hi=_T.hi,
        help="Softmax lesson: temperature T.",
        **_log10_slider(1.0),
    ),
    _int_param("en_d", EntropyQuery, "d_model", "fd-en-d", "Entropy lesson: d_model."),
    _int_param("en_len", EntropyQuery, "seq_len", "fd-en-len", "Entropy lesson: tokens per sequence."),
    Param(
        "en_heads",
        "floats",
        [float(h) for h in _default(EntropyQuery, "heads")],
        component="fd-en-heads",
        max_items=12,
        to_component=lambda v: [int(h) for h in (v or [])],
        from_component=_heads_from_component,
        help="Entropy lesson: head counts H compared.",
    ),
    checkbox("en_scaled", True, "fd-en-scaled", "Entropy lesson: divide scores by sqrt(d_k)."),
    _int_param("bu_d", BudgetQuery, "d_model", "fd-bu-d", "Budget lesson: d_model."),
    _int_param("bu_H", BudgetQuery, "H", "fd-bu-h", "Budget lesson: number of heads (must divide d_model)."),
    _int_param("bu_len", BudgetQuery, "seq_len", "fd-bu-len", "Budget lesson: sequence length n."),
]


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
