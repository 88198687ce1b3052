"""The building blocks of every request model, and the one way a validation error becomes text.

- `StrictModel`: unknown keys and non-finite floats are errors, not surprises.
- `Int`, `Float`, `Bool`: JSON's own types only: `"4"` is not a number and `0` is not `false` (a query
  string is text, so the API converts it first: `headdiv/server/api/query_text.py`); `Seed`: the seed's bounds.
- `Sweep`, `Slider`: hints a field carries for the dashboard (ignored by validation and the schema).
- `field_bounds`: a field's numeric bounds, read from the model so no caller copies them.
- `error_lines`: pydantic's (or FastAPI's) error dicts as `field: reason` lines, for the API, the CLI,
  the job failures and the dashboard alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import annotated_types
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError
from pydantic.fields import FieldInfo

MAX_SEED = 2**32 - 1

MAX_MODEL_HEADS = 256
"""Heads measured per layer of a trained model, whichever door asks (the API's form, the Python call, the
file reader): the overlap matrix has H^2 / 2 pairs, and real models have at most ~128."""


def _excerpt(value: str | bytes, limit: int = 24) -> str:
    text = repr(value[:limit])
    return f"{text[:-1]}...{text[-1]}" if len(value) > limit else text


def only_numbers(value: Any) -> Any:
    """JSON `true` is not the number 1, nor `"4"` the number 4: either where a number belongs is a client
    bug that a lax parser would hide. A whole float (`4.0`) stays an integer, as JSON Schema counts it."""
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    if isinstance(value, str | bytes):
        raise ValueError(f"expected a number, got the text {_excerpt(value)}")
    return value


Int = Annotated[int, BeforeValidator(only_numbers)]
"""Bounds go on the field (`x: Int = Field(4, ge=1)`); a bounded alias is written `Annotated[int, Field(...),
BeforeValidator(only_numbers)]`, the bounds first: bounds put on an `Int` inside another Annotated are left
out of the JSON schema (as raw `ge`/`le` keys) by pydantic."""
# Strict float takes ints and floats only; it is checked in the validator's core, which matters for
# the 4 million numbers an /hdi body may hold.
Float = Annotated[float, Strict()]
Bool = Annotated[bool, Strict()]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED), BeforeValidator(only_numbers)]


class StrictModel(BaseModel):
    """Base for every request body: unknown keys and non-finite floats are errors, not surprises."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, validate_default=True)


@dataclass(frozen=True)
class Sweep:
    """Marks a numeric scenario field as a surface axis; `grid` is the axis a user gets by default."""

    grid: tuple[float, ...]


@dataclass(frozen=True)
class Slider:
    """How the dashboard shows a parameter inside the view that uses it: range and step of its slider."""

    lo: float
    hi: float
    step: float


T = TypeVar("T")


def hint(info: FieldInfo, kind: type[T]) -> T | None:
    """The field's hint of type `kind` (`Sweep`, `Slider`), if it carries one."""
    return next((m for m in info.metadata if isinstance(m, kind)), None)


@dataclass(frozen=True)
class Bounds:
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False


def field_bounds(info: FieldInfo) -> Bounds:
    """(lower, upper, lower-is-open) of a numeric field, from its own constraints."""
    lo: float | None = None
    hi: float | None = None
    lo_open = False
    for m in info.metadata:
        if isinstance(m, annotated_types.Ge):
            lo = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Gt):
            lo, lo_open = float(m.gt), True  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Le):
            hi = float(m.le)  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Lt):
            hi = float(m.lt)  # type: ignore[arg-type]
    return Bounds(lo, hi, lo_open)


_WHERE = frozenset({"body", "query", "path", "form"})
_PREFIXES = ("Value error, ", "Assertion failed, ")


def error_field(error: Mapping[str, Any]) -> str:
    """The dotted field an error blames, without the request part it was found in ('' for the whole); only
    the first step of its location can be that part (a field may be called `query`)."""
    loc = list(error.get("loc", ()))
    if loc and loc[0] in _WHERE:
        loc = loc[1:]
    return ".".join(str(p) for p in loc)


UNKNOWN_FIELD = "not a field of this request (a typo?): leave it out, or see the request's fields in /docs"


def error_message(error: Mapping[str, Any]) -> str:
    if error.get("type") == "extra_forbidden":
        return UNKNOWN_FIELD
    message = str(error.get("msg", "invalid value"))
    for prefix in _PREFIXES:
        message = message.removeprefix(prefix)
    return message


def error_line(error: Mapping[str, Any]) -> str:
    """`field: reason`; a rule between fields already starts with the field it blames, so it stands alone."""
    field, message = error_field(error), error_message(error)
    last = field.rsplit(".", 1)[-1]
    if not field or message.startswith(f"{last}:"):
        return message
    return f"{field}: {message}"


def error_lines(errors: Iterable[Mapping[str, Any]]) -> list[str]:
    return [error_line(e) for e in errors]


def refusal_lines(body: Any) -> list[str]:
    """The API's 422 body as one `field: reason` line per problem: the one reading of a refusal, shown joined
    by the dashboard and raised as `InvalidRequest` by the Python API, in the words of a local validation."""
    detail = body.get("detail") if isinstance(body, dict) else body
    if isinstance(detail, str):
        return [detail]
    if not isinstance(detail, list) or not detail:
        return ["the request was refused as invalid"]
    return [error_line(item) if isinstance(item, dict) else str(item) for item in detail]


def first_error(exc: ValidationError) -> str:
    return error_line(exc.errors(include_url=False)[0])


def canonical(request: BaseModel) -> dict[str, Any]:
    """The one canonical form of a validated request: its JSON with every default filled, keys sorted. Job
    ids, cache keys and the links that reproduce a result are all made from it."""
    return dict(sorted(request.model_dump(mode="json").items()))
