"""Where a result leaves the engine: built as its pydantic model, or a readable EngineError."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from headdiv.schemas.errors import EngineError

ResultT = TypeVar("ResultT", bound=BaseModel)


def result_of(model: type[ResultT], data: dict[str, Any]) -> ResultT:
    """`data` validated as `model`. A non-finite number says where it is and what to try; any other
    mismatch is the engine's bug, named as such (never a silent, half-shaped result)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] == "finite_number":
            raise EngineError(
                f"the engine produced a non-finite {where}; try a larger bandwidth or temperature, more replicates or a larger n"
            ) from exc
        raise EngineError(f"internal error: the {model.__name__} at {where} is wrong: {error['msg']}") from exc
