"""One registry per concept of docs/model.md: a name -> choice table that everything else derives from.

A choice is a small class registered with its concept's registry:

    @WEIGHTINGS.register("geometric", "geometric (ρ)")
    class Geometric(FixedWeights):
        '''The k-th best head weighs ρ^(k-1), normalised.'''      # the description people read

        rho: Float = Field(0.7, gt=0, le=1, title="ρ (geometric)")  # its parameters: fields of the scenario

        def alpha(self, m): ...                                    # its implementation

Its fields become fields of the scenario (so they are keys of the API, the CLI and the URL, with their
bounds and labels), its name a value of the scenario field that picks among the choices, and its methods
are what the engine calls. The scenario's `Literal` choices, the dashboard's options and the docs tables
are all read from these tables, so adding a choice is one class in one module. Asking for a name that
is not registered is an error naming the known ones.

Choices stay importable without torch (the dashboard reads them): they work on the tensors they are
given through tensor methods, or on NumPy arrays. Geometries are the exception to "one class": their
heads are built by the engine (`headdiv.workers.engine.head_layouts`), one builder per entry.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar, cast

from pydantic.fields import FieldInfo

from headdiv.schemas.fields import StrictModel


class Choice(StrictModel):
    """One choice of a concept; its fields are its parameters (the scenario fields it adds)."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    implements: ClassVar[tuple[str, ...]] = ()
    """The methods a choice of this concept must define (checked when it is registered)."""

    @classmethod
    def description(cls) -> str:
        """The first paragraph of the choice's docstring."""
        return inspect.cleandoc(cls.__doc__ or "").split("\n\n", 1)[0].replace("\n", " ")

    @classmethod
    def of(cls, scenario: Any) -> Self:
        """This choice with its parameters taken from an already validated scenario."""
        return cast(Self, cls.model_construct(**{k: getattr(scenario, k) for k in cls.model_fields}))

    def check(self, s: Any) -> None:
        """The rule this choice imposes between the scenario's fields: raise ValueError('field: reason')."""

    def notes(self, s: Any) -> list[str]:
        """Sentences shown beside a result of a scenario that makes this choice."""
        return []


C = TypeVar("C", bound=Choice)
T = TypeVar("T", bound=type[Choice])


class Registry(Generic[C]):
    """The ordered name -> choice table of one concept; closed once the scenario is built from it."""

    def __init__(self, concept: str, base: type[C]) -> None:
        self.concept = concept
        self.base = base
        self._entries: dict[str, type[C]] = {}
        self._closed = False

    def register(self, name: str, label: str) -> Callable[[T], T]:
        """Class decorator adding a choice under `name`, shown as `label`."""

        def add(cls: T) -> T:
            if self._closed:
                raise RuntimeError(f"{self.concept} {name!r}: register choices in the module of their registry")
            if not issubclass(cls, self.base):
                raise TypeError(f"{self.concept} {name!r} must subclass {self.base.__name__}")
            if name in self._entries:
                raise ValueError(f"{self.concept} {name!r} is registered twice")
            if not vars(cls).get("__doc__") or not cls.description():
                raise ValueError(f"{self.concept} {name!r} needs a docstring: it is the description users read")
            missing = [m for m in cls.implements if getattr(cls, m) is getattr(self.base, m)]
            if missing:
                raise TypeError(f"{self.concept} {name!r} must define {', '.join(missing)}")
            cls.name, cls.label = name, label
            self._entries[name] = cls  # type: ignore[assignment]
            return cls  # type: ignore[return-value]

        return add

    def close(self) -> None:
        if not self._entries:
            raise ValueError(f"no {self.concept} is registered")
        self._closed = True

    def __getitem__(self, name: str) -> type[C]:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"unknown {self.concept} {name!r}; expected one of {', '.join(self.names)}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[type[C]]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def literal(self) -> Any:
        """`Literal[name, ...]` for the scenario field that picks among the choices."""
        return Literal[self.names]  # type: ignore[valid-type]

    def param_fields(self) -> dict[str, FieldInfo]:
        """Every choice's parameter fields, in registration order (a name declared twice is an error)."""
        out: dict[str, FieldInfo] = {}
        for entry in self:
            for name, info in entry.model_fields.items():
                if name in out:
                    raise ValueError(f"{self.concept} parameter {name!r} is declared by two choices")
                out[name] = info
        return out
