"""What the registries' entries and a run's cost read of a scenario, as a Protocol.

The scenario is built from the registries (their entries' parameters become its fields), so the registries
cannot import it back without an import circle: they name what they read here instead.
"""

from __future__ import annotations

from typing import Protocol


class ScenarioFields(Protocol):
    """The scenario fields every entry may read (`ScenarioCore`'s; a choice's own parameters are its fields)."""

    @property
    def H(self) -> int: ...

    @property
    def d_k(self) -> int: ...

    @property
    def n(self) -> int: ...

    @property
    def replicates(self) -> int: ...

    @property
    def queries(self) -> int: ...

    @property
    def geometry(self) -> str: ...

    @property
    def bandwidth_rule(self) -> str: ...

    @property
    def ar1_phi(self) -> float:
        """φ of the training inputs' AR(1) chain (0 for i.i.d. tokens)."""
        ...
