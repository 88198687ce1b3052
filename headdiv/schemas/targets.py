"""Regression functions m(x) = f(a . x) (docs/model.md section 3), one registered class per f.

`f` works on the tensor of indices t = a . x through tensor methods, so this table needs no torch.
"""

from __future__ import annotations

from typing import Any

from headdiv.i18n import N_
from headdiv.schemas.registry import Choice, Registry


class Target(Choice):
    """The regression function of the data."""

    implements = ("f",)

    def f(self, t: Any) -> Any:
        """f(t) for the tensor of scalar indices t = a . x."""
        raise NotImplementedError


TARGETS: Registry[Target] = Registry("target", Target)


@TARGETS.register("constant", N_("constant 0"))
class Constant(Target):
    """m(x) = 0: the response is pure noise."""

    def f(self, t: Any) -> Any:
        return t.new_zeros(t.shape)


@TARGETS.register("linear", N_("linear"))
class Linear(Target):
    """m(x) = a·x."""

    def f(self, t: Any) -> Any:
        return t


@TARGETS.register("sine", "sin(2 a·x)")
class Sine(Target):
    """m(x) = sin(2 a·x)."""

    def f(self, t: Any) -> Any:
        return (2.0 * t).sin()


@TARGETS.register("quadratic", "(a·x)²")
class Quadratic(Target):
    """m(x) = (a·x)²."""

    def f(self, t: Any) -> Any:
        return t * t
