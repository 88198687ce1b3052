"""One URL parameter of the dashboard (`Param`): its kind, default and bounds, how it reads from a query
string and writes back, and how it maps to its control. `state.UrlRegistry` holds them all."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from headdiv.i18n import N_, _

Kind = Literal["int", "float", "choice", "bool", "floats", "flags", "name"]
Value = Any

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$")
"""A name the server gives (a model's id: `dir:tiny-t5`, `Qwen/Qwen2.5-0.5B`): letters, digits and _ . : / -."""
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _fmt(x: float) -> str:
    """Shortest faithful text of a number: 8 not 8.0, 0.7 not 0.69999."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def _number(text: str, name: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise ValueError(_("{label}: '{text}' is not a number").format(label=name, text=text)) from None
    if not math.isfinite(x):
        raise ValueError(_("{label}: '{text}' is not a finite number").format(label=name, text=text))
    return x


@dataclass(frozen=True)
class Param:
    """One URL parameter: its name, type, default, bounds, and the control that shows it.

    `component`/`prop` name the Dash control holding the value (None: the parameter lives only in the
    URL, like lecture flags). `to_component`/`from_component` convert between the state's value and
    the control's (e.g. a log-scale slider). `resets` names parameters reset to their defaults when
    this one is changed by the user (e.g. a surface axis' values when its parameter changes).
    """

    name: str
    kind: Kind
    default: Value
    component: str | None = None
    label: str = ""
    """What the control's label says (the name when empty)."""
    prop: str = "value"
    choices: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    scenario: bool = False
    resets: tuple[str, ...] = ()
    max_items: int = 64
    to_component: Callable[[Value], Any] | None = None
    from_component: Callable[[Any], Value] | None = None
    help: str = ""
    absent: str = N_("none")
    """How a notice names an empty default (what the view does without a value)."""
    check: Callable[[Value, Mapping[str, Value]], str | None] | None = None
    """A rule between this value and the others of the page (None when it holds, else what is wrong)."""

    # -- text <-> value -------------------------------------------------------------------------
    @property
    def shown(self) -> str:
        """The name a reader sees (the control's label, in the page's language), used in every notice; the URL
        key if none."""
        return _(self.label) if self.label else self.name

    def parse(self, text: str) -> tuple[Value, str | None]:
        """URL text to a value, clamped into bounds; a notice says what was changed. Raises ValueError."""
        text = text.strip()
        if self.kind == "bool":
            low = text.lower()
            if low in _TRUE:
                return True, None
            if low in _FALSE:
                return False, None
            raise ValueError(_("{label}: '{text}' is not one of 1/0/true/false").format(label=self.shown, text=text))
        if self.kind == "name":
            if not text:
                return self.default, None
            if not SERVER_NAME.fullmatch(text):
                raise ValueError(
                    _("{label}: {text} is not a name (letters, digits and _ . : / -)").format(
                        label=self.shown, text=repr(text[:40])
                    )
                )
            return text, None
        if self.kind == "choice":
            if text not in self.choices:
                raise ValueError(
                    _("{label}: '{text}' is not one of {choices}").format(
                        label=self.shown, text=text, choices=", ".join(self.choices)
                    )
                )
            return text, None
        if self.kind == "flags":
            items = [t.strip() for t in text.split(",") if t.strip()]
            unknown = [t for t in items if self.choices and t not in self.choices]
            kept = tuple(dict.fromkeys(t for t in items if t not in unknown))
            note = (
                _("{label}: ignored unknown {names}").format(label=self.shown, names=", ".join(unknown))
                if unknown
                else None
            )
            return kept, note
        if self.kind == "floats":
            if not text:
                return self.default, None
            parts = [p for p in re.split(r"[,\s;]+", text) if p]
            if len(parts) > self.max_items:
                raise ValueError(
                    _("{label}: {count} values, at most {most}").format(
                        label=self.shown, count=len(parts), most=self.max_items
                    )
                )
            return [_number(p, self.shown) for p in parts], None
        x = _number(text, self.shown)
        if self.kind == "int":
            if not x.is_integer():
                raise ValueError(_("{label}: '{text}' is not a whole number").format(label=self.shown, text=text))
            return self.clamp(int(x))
        return self.clamp(x)

    def clamp(self, x: float) -> tuple[Value, str | None]:
        """Move a number into the parameter's bounds, saying so; an open bound falls back to the default."""
        if self.lo is not None and (x < self.lo or (self.lo_open and x <= self.lo)):
            if self.lo_open:
                return (
                    self.default,
                    _("{label}: {value} must be above {lo}; using {default}").format(
                        label=self.shown, value=_fmt(x), lo=_fmt(self.lo), default=_fmt(self.default)
                    ),
                )
            lo = int(self.lo) if self.kind == "int" else self.lo
            return lo, _("{label}: {value} is below the minimum {lo}; using {lo}").format(
                label=self.shown, value=_fmt(x), lo=_fmt(lo)
            )
        if self.hi is not None and x > self.hi:
            hi = int(self.hi) if self.kind == "int" else self.hi
            return hi, _("{label}: {value} is above the maximum {hi}; using {hi}").format(
                label=self.shown, value=_fmt(x), hi=_fmt(hi)
            )
        return x, None

    def dump(self, value: Value) -> str:
        """A value as URL text (the inverse of `parse` for in-bounds values)."""
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind in ("floats", "flags"):
            return ",".join(_fmt(v) if self.kind == "floats" else str(v) for v in (value or ()))
        if self.kind in ("int", "float"):
            return _fmt(value)
        return str(value)

    # -- value <-> control ----------------------------------------------------------------------
    def component_value(self, value: Value) -> Any:
        if self.to_component is not None:
            return self.to_component(value)
        if self.kind == "floats":
            return ", ".join(_fmt(v) for v in (value or ()))
        return value

    def value_from_component(self, raw: Any) -> tuple[Value, str | None]:
        """A control's value back to a state value; the control may hold anything, so check it."""
        if self.from_component is not None:
            try:
                return self.from_component(raw), None
            except (TypeError, ValueError, OverflowError):  # e.g. 2 ** 1e308 for a log slider, or "nan"
                raise ValueError(
                    _("{label}: {text} cannot be read").format(label=self.shown, text=repr(str(raw)[:40]))
                ) from None
        if raw is None:
            return self.default, None
        if self.kind == "floats":
            return self.parse(str(raw))
        if self.kind in ("int", "float"):
            return self.parse(str(raw))
        if self.kind == "bool":
            return bool(raw), None
        if self.kind == "flags":
            if not isinstance(raw, (list, tuple)) or not all(isinstance(f, str) for f in raw):
                raise ValueError(_("{label}: expected a list of names").format(label=self.shown))
            return tuple(raw), None
        return self.parse(str(raw))


def checkbox(name: str, default: bool, component: str, help: str = "") -> Param:
    """A boolean shown as a one-box `dcc.Checklist` (value `["on"]` when ticked)."""
    return Param(
        name,
        "bool",
        default,
        component=component,
        to_component=lambda v: ["on"] if v else [],
        from_component=lambda c: bool(c),
        help=help,
    )
