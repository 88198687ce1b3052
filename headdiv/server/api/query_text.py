"""Query strings are text: turn `?n=1024&scaled=true` into the numbers and booleans a JSON body would hold.

The request models are strict about JSON types (`"4"` is not a number in a body), so a GET route that
takes a model from the query string validates it through `from_query_text(model)`: the same fields,
bounds and rules, after each value written in plain ASCII (`2`, `-0.5`, `1e-3`, `true`, `0`) has been
read as what its field holds. Anything else stays text and is refused by the field, naming it.
"""

from __future__ import annotations

import re
import types
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, create_model, model_validator

M = TypeVar("M", bound=BaseModel)

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
MAX_INT_DIGITS = 4000
"""Python refuses to read longer integers from text (`sys.int_info.str_digits_check_threshold` is 4300);
a longer one is read as a float, that is infinity, which the field refuses as not finite."""
_TRUE, _FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})


def _kind(annotation: Any) -> str | None:
    """'int', 'float' or 'bool' for a field of that type (or a list, optional or literal of it), else None."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _kind(get_args(annotation)[0])
    if origin in (list, tuple, set, frozenset):
        args = get_args(annotation)
        return _kind(args[0]) if args else None
    if origin is Union or origin is types.UnionType:
        kinds = {_kind(a) for a in get_args(annotation) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    if origin is Literal:
        values = get_args(annotation)
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "int"
        return None
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "int"
    if annotation is float:
        return "float"
    return None


def _read(text: str, kind: str) -> Any:
    if kind == "bool":
        low = text.lower()
        return True if low in _TRUE else False if low in _FALSE else text
    if _INT.fullmatch(text):
        return int(text) if len(text) <= MAX_INT_DIGITS else float(text)
    if kind == "float" and _FLOAT.fullmatch(text):
        return float(text)
    if kind == "int" and _FLOAT.fullmatch(text):
        return float(text)  # 2.0 is a whole number; 2.5 is refused by the field, naming it
    return text


def parse_query_text(model: type[BaseModel], data: Any) -> Any:
    """`data` with each text value of a numeric or boolean field of `model` read as a number or boolean."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for name, info in model.model_fields.items():
        kind = _kind(info.annotation)
        if kind is None or name not in out:
            continue
        value = out[name]
        if isinstance(value, str):
            out[name] = _read(value, kind)
        elif isinstance(value, list):
            out[name] = [_read(v, kind) if isinstance(v, str) else v for v in value]
    return out


def from_query_text(model: type[M]) -> type[M]:
    """A subclass of `model` that first reads its query-string text as numbers and booleans."""

    def read(cls: type[BaseModel], data: Any) -> Any:
        return parse_query_text(model, data)

    validators: dict[str, Any] = {"_read_query_text": model_validator(mode="before")(classmethod(read))}  # type: ignore[arg-type]
    text_model: type[M] = create_model(
        model.__name__, __base__=model, __module__=model.__module__, __validators__=validators
    )
    text_model.__doc__ = model.__doc__
    return text_model
