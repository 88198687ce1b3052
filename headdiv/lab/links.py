"""The dashboard link of a Python result: the page state whose view computes that very request.

Each call names its view and how its request becomes page parameters (`PAGE_OF`); the link is then checked
by rebuilding the request from the parsed page state with the view's own request builder (the one its job
submits), so a link said to be exact reopens exactly the computation the result came from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from headdiv.schemas.fields import canonical

Page = dict[str, Any]

TRAINING_PARAMS = {
    "steps": "trsteps",
    "lr": "trlr",
    "optimizer": "tropt",
    "init": "trinit",
    "penalty": "trpen",
    "orthonormal": "trortho",
    "learn_weights": "trlearn",
    "separate_qk": "trsep",
    "batch": "trbatch",
    "record_every": "trevery",
}


def _model_param(name: str) -> Page:
    """The Real models view's parameter for a model: a built-in's name, else a server model's id."""
    from headdiv.schemas.builtin_models import BUILTINS

    return {"model": name} if name in BUILTINS else {"smodel": name}


def _base(request: Any) -> Page:
    return request.base.model_dump(mode="json")


PAGE_OF: dict[str, Callable[[Any], Page]] = {
    "simulate": lambda r: {"tab": "ensemble", **r.model_dump(mode="json")},
    "surface": lambda r: {
        "tab": "surfaces",
        **_base(r),
        "sx": r.x.param,
        "sxv": r.x.values,
        "sy": r.y.param,
        "syv": r.y.values,
    },
    "architecture": lambda r: {"tab": "architecture", **_base(r), "budget": r.budget},
    "sweep": lambda r: {"tab": "diversity", **_base(r), "dn": len(r.thetas)},
    "covariance": lambda r: {"tab": "covariance", **_base(r), "cv_n": len(r.thetas)},
    "train": lambda r: {
        "tab": "training",
        **_base(r),
        **{name: getattr(r, field) for field, name in TRAINING_PARAMS.items()},
    },
    "theory": lambda r: {"tab": "architecture", "n": r.n, "budget": r.budget},
    "heads": lambda r: {"tab": "models", "model": r.model, "mseed": r.seed},
    "compare_heads": lambda r: {"tab": "models", **_model_param(r.model), "cmodel": r.other, "mseed": r.seed},
}
"""Call -> the page parameters of its request (a test checks every call has an entry or says why not)."""


def link_of(call: str, request: BaseModel) -> tuple[str, bool]:
    """`(query, exact)`: the page's query for `request`, and whether the view computes exactly it."""
    from headdiv.dashboard import VIEWS, build_registry, simulation_request

    page = PAGE_OF.get(call)
    if page is None:
        raise ValueError(f"no dashboard view shows a {call} result")
    registry = build_registry(VIEWS)
    values = {k: v for k, v in page(request).items() if k in registry.params}
    query = registry.serialize(values).lstrip("?")
    state = registry.parse(query)
    wanted = canonical(request)
    view = next(v for v in VIEWS if v.id == state.get("tab"))
    if call == "heads":  # the Real models view reads a built-in model by name and seed (no job)
        exact = not state.notices and (state.get("model"), state.get("mseed")) == (request.model, request.seed)  # type: ignore[attr-defined]
    elif call == "compare_heads":  # both models by name (a built-in or a server's), one seed (no job)
        first = state.get("smodel") or state.get("model")
        exact = not state.notices and (first, state.get("cmodel"), state.get("mseed")) == (
            request.model,  # type: ignore[attr-defined]
            request.other,  # type: ignore[attr-defined]
            request.seed,  # type: ignore[attr-defined]
        )
    else:
        builders = [job.build for job in view.jobs] or [simulation_request]
        exact = not state.notices and any(_same(build(state), wanted) for build in builders)
    return ("?" + query if query else ""), exact


def _same(built: tuple[str, dict[str, Any]] | None, wanted: Any) -> bool:
    if built is None:
        return False
    from headdiv.jobs.kinds import kind_at

    try:
        return bool(canonical(kind_at(built[0]).validate(built[1])) == wanted)
    except ValueError:
        return False
