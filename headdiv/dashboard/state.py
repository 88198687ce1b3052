"""The one typed registry of every URL parameter of the dashboard (after TensorFlow Playground's state.ts).

The URL query string holds the whole state: the tab, every scenario key by its API name, lecture-mode
flags, and the parameters views declare. Parsing and writing happen here and nowhere else, so a link
always means the same thing. Scenario values are checked against `headdiv.workers.schemas.Scenario` itself
(its bounds, labels and choices are read from the model and its registries, never copied), so a link
the dashboard accepts is a request the API accepts. A bad value never breaks the page: it becomes a
readable notice and the default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args, get_origin
from urllib.parse import parse_qsl, urlencode

from pydantic import ValidationError

from headdiv.workers.schemas import Scenario
from headdiv.workers.schemas.fields import error_field, error_message, field_bounds
from headdiv.workers.schemas.scenario import FIELD_ORDER

Kind = Literal["int", "float", "choice", "bool", "floats", "flags"]
Value = Any

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
        raise ValueError(f"{name}: '{text}' is not a number") from None
    if not math.isfinite(x):
        raise ValueError(f"{name}: '{text}' is not a finite number")
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

    # -- text <-> value -------------------------------------------------------------------------
    @property
    def shown(self) -> str:
        """The name a reader sees (the control's label), used in every notice; the URL key if none."""
        return self.label or self.name

    def parse(self, text: str) -> tuple[Value, str | None]:
        """URL text to a value, clamped into bounds; a notice says what was changed. Raises ValueError."""
        text = text.strip()
        if self.kind == "bool":
            low = text.lower()
            if low in _TRUE:
                return True, None
            if low in _FALSE:
                return False, None
            raise ValueError(f"{self.shown}: '{text}' is not one of 1/0/true/false")
        if self.kind == "choice":
            if text not in self.choices:
                raise ValueError(f"{self.shown}: '{text}' is not one of {', '.join(self.choices)}")
            return text, None
        if self.kind == "flags":
            items = [t.strip() for t in text.split(",") if t.strip()]
            unknown = [t for t in items if self.choices and t not in self.choices]
            kept = tuple(dict.fromkeys(t for t in items if t not in unknown))
            note = f"{self.shown}: ignored unknown {', '.join(unknown)}" if unknown else None
            return kept, note
        if self.kind == "floats":
            if not text:
                return self.default, None
            parts = [p for p in re.split(r"[,\s;]+", text) if p]
            if len(parts) > self.max_items:
                raise ValueError(f"{self.shown}: {len(parts)} values, at most {self.max_items}")
            return [_number(p, self.shown) for p in parts], None
        x = _number(text, self.shown)
        if self.kind == "int":
            if not x.is_integer():
                raise ValueError(f"{self.shown}: '{text}' is not a whole number")
            return self.clamp(int(x))
        return self.clamp(x)

    def clamp(self, x: float) -> tuple[Value, str | None]:
        """Move a number into the parameter's bounds, saying so; an open bound falls back to the default."""
        if self.lo is not None and (x < self.lo or (self.lo_open and x <= self.lo)):
            if self.lo_open:
                return (
                    self.default,
                    f"{self.shown}: {_fmt(x)} must be above {_fmt(self.lo)}; using {_fmt(self.default)}",
                )
            lo = int(self.lo) if self.kind == "int" else self.lo
            return lo, f"{self.shown}: {_fmt(x)} is below the minimum {_fmt(lo)}; using {_fmt(lo)}"
        if self.hi is not None and x > self.hi:
            hi = int(self.hi) if self.kind == "int" else self.hi
            return hi, f"{self.shown}: {_fmt(x)} is above the maximum {_fmt(hi)}; using {_fmt(hi)}"
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
            return self.from_component(raw), None
        if raw is None:
            return self.default, None
        if self.kind == "floats":
            return self.parse(str(raw))
        if self.kind in ("int", "float"):
            return self.parse(str(raw))
        if self.kind == "bool":
            return bool(raw), None
        if self.kind == "flags":
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


# -- the scenario's keys, derived from the pydantic model ------------------------------------------
def scenario_control_id(name: str) -> str:
    """Component id of the control showing scenario key `name` (shared by the sidebar and views)."""
    return f"sc-{name}"


def _log2_slider(default: int) -> dict[str, Callable[[Any], Any]]:
    """n spans 2..65536 and d_k 1..256: their sliders move in powers of two (the slider holds log2 of
    the value), while the state keeps the exact integer a link gave (n=300 stays 300)."""
    return {
        "to_component": lambda v: math.log2(v),
        "from_component": lambda c: round(2 ** float(c)) if c is not None else default,
    }


_CONVERSIONS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "n": _log2_slider(int(Scenario.model_fields["n"].default)),
    "d_k": _log2_slider(int(Scenario.model_fields["d_k"].default)),
}


def scenario_params() -> list[Param]:
    """One Param per field of `Scenario`, in reading order, named by the API's names."""
    out: list[Param] = []
    for name in FIELD_ORDER:
        info = Scenario.model_fields[name]
        ann = info.annotation
        b = field_bounds(info)
        common: dict[str, Any] = {
            "component": scenario_control_id(name),
            "scenario": True,
            "label": info.title or name,
            "help": info.description or "",
            **_CONVERSIONS.get(name, {}),
        }
        if get_origin(ann) is Literal:
            out.append(Param(name, "choice", info.default, choices=tuple(get_args(ann)), **common))
        elif ann is int:
            out.append(Param(name, "int", info.default, lo=b.lo, hi=b.hi, lo_open=b.lo_open, **common))
        elif ann is float:
            out.append(Param(name, "float", info.default, lo=b.lo, hi=b.hi, lo_open=b.lo_open, **common))
        else:  # list[float] | None: the per-head tilts
            out.append(Param(name, "floats", info.default, **common))
    return out


SCENARIO_KEYS: tuple[str, ...] = FIELD_ORDER
SCENARIO_LABELS: dict[str, str] = {name: Scenario.model_fields[name].title or name for name in FIELD_ORDER}
"""What the sidebar calls each scenario key (its field's title): notices speak the reader's words."""

HIDEABLE: tuple[str, ...] = (
    *SCENARIO_KEYS,
    "explain",
    "advanced",
    "presets",
    "tabs",
    "reproduce",
    "export",
    "sidebar",
)
"""What `hide=` may name: any scenario control, or a part of the page."""


def global_params(tabs: Iterable[str]) -> list[Param]:
    """The parameters every page has: the tab, lecture flags, large fonts, image export format."""
    tabs = tuple(tabs)
    return [
        Param("tab", "choice", tabs[0], component="tabs", label="view", choices=tabs, help="The view shown."),
        Param(
            "hide",
            "flags",
            (),
            label="hidden parts",
            choices=HIDEABLE,
            help="Controls or page parts hidden (lecture mode).",
        ),
        Param(
            "lecture",
            "bool",
            False,
            label="lecture mode",
            help="Lecture mode: hides the advanced panel, reproduce box and export.",
        ),
        replace(checkbox("large", False, "large-fonts", "Large fonts for projectors."), label="large fonts"),
        Param(
            "img",
            "choice",
            "png",
            component="img-format",
            label="charts export as",
            choices=("png", "svg"),
            help="Chart export format.",
        ),
    ]


# -- the state and the registry --------------------------------------------------------------------
@dataclass
class State:
    """Every parameter's value, plus the notices produced while reading them."""

    values: dict[str, Value]
    notices: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> Value:
        return self.values[name]

    def get(self, name: str, default: Value = None) -> Value:
        return self.values.get(name, default)

    def scenario(self) -> dict[str, Value]:
        """The scenario keys only, as the API's JSON body (unset tilts left out)."""
        return scenario_body(self.values)

    def hidden(self) -> set[str]:
        """Parts and controls hidden by lecture flags."""
        out = set(self.values.get("hide", ()))
        if self.values.get("lecture"):
            out |= {"advanced", "reproduce", "export"}
        return out

    def to_data(self) -> dict[str, Value]:
        """JSON-able form for a dcc.Store."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.values.items()}

    @classmethod
    def from_data(cls, data: Mapping[str, Value] | None) -> State:
        return cls(dict(data or {}))


def scenario_body(values: Mapping[str, Value]) -> dict[str, Value]:
    out = {k: values[k] for k in SCENARIO_KEYS if k in values}
    if out.get("tilts") in (None, [], ()):
        out.pop("tilts", None)
    if out.get("dependence", "iid") == "iid" and not out.get("phi"):  # i.i.d. tokens: the API's default
        out.pop("dependence", None)
        out.pop("phi", None)
    return out


def scenario_errors(values: Mapping[str, Value]) -> list[tuple[str | None, str]]:
    """(field or None, readable reason) for every rule of `Scenario` the values break."""
    try:
        Scenario.model_validate(scenario_body(values))
    except ValidationError as exc:
        out: list[tuple[str | None, str]] = []
        for err in exc.errors():
            msg = error_message(err)
            name: str | None = error_field(err).split(".", 1)[0]
            if name not in SCENARIO_KEYS:  # a rule between fields names the field it blames first
                head, _, rest = msg.partition(":")
                name = head.strip() if head.strip() in SCENARIO_KEYS else None
                text = f"{SCENARIO_LABELS[name]}:{rest}" if name is not None and rest else msg
            else:
                text = f"{SCENARIO_LABELS.get(name, name)}: {msg}"
            out.append((name, text))
        return out
    return []


class UrlRegistry:
    """All parameters of the page: parse a query string, write one, check values from controls."""

    def __init__(self, params: Iterable[Param]) -> None:
        self.params: dict[str, Param] = {}
        for p in params:
            if p.name in self.params:
                raise ValueError(f"URL parameter '{p.name}' is declared twice")
            self.params[p.name] = p

    def __iter__(self) -> Any:
        return iter(self.params.values())

    def label(self, labels: Mapping[str, str]) -> None:
        """Name the parameters that have no label yet by what their controls' labels say (read from the
        built layout), so that notices use the words on the page rather than URL keys."""
        for name, text in labels.items():
            p = self.params.get(name)
            if p is not None and not p.label and text.strip():
                self.params[name] = replace(p, label=text.strip())

    def __getitem__(self, name: str) -> Param:
        return self.params[name]

    @property
    def controlled(self) -> list[Param]:
        """Parameters shown by a control, in registry order (the order of the sync callback's I/O)."""
        return [p for p in self.params.values() if p.component is not None]

    def defaults(self) -> dict[str, Value]:
        return {p.name: p.default for p in self.params.values()}

    def parse(self, search: str | None) -> State:
        """A query string (with or without '?') to a valid state; every problem becomes a notice."""
        values = self.defaults()
        notices: list[str] = []
        given: set[str] = set()
        for key, text in parse_qsl((search or "").lstrip("?"), keep_blank_values=True):
            param = self.params.get(key)
            if param is None:
                notices.append(f"unknown URL parameter '{key}' ignored")
                continue
            try:
                value, note = param.parse(text)
            except ValueError as exc:
                notices.append(f"{exc}; using the default {param.dump(param.default) or 'none'}")
                continue
            values[key] = value
            given.add(key)
            if note:
                notices.append(note)
        notices += self.repair_scenario(values, given)
        return State(values, notices)

    def repair_scenario(self, values: dict[str, Value], given: set[str]) -> list[str]:
        """Fall back to defaults for the scenario keys that break a cross-field rule or the budget."""
        notices: list[str] = []
        for _ in range(len(SCENARIO_KEYS) + 1):
            errors = scenario_errors(values)
            if not errors:
                return notices
            name, text = errors[0]
            if name is None or name not in given:
                name = self._culprit(values, given, text)
            if name is not None:
                values[name] = self.params[name].default
                given.discard(name)
                default = self.params[name].dump(self.params[name].default) or "none"
                notices.append(f"{text}; using the default {self.params[name].shown} = {default}")
                continue
            for key in SCENARIO_KEYS:
                values[key] = self.params[key].default
            given.difference_update(SCENARIO_KEYS)
            notices.append(f"{text}; using the default scenario")
        return notices

    def _culprit(self, values: dict[str, Value], given: set[str], text: str) -> str | None:
        """The given key whose default makes the error `text` go away (the last such, in registry order)."""
        found = None
        for key in SCENARIO_KEYS:
            if key not in given:
                continue
            trial = {**values, key: self.params[key].default}
            if text not in [t for _, t in scenario_errors(trial)]:
                found = key
        return found

    def serialize(self, values: Mapping[str, Value]) -> str:
        """The query string of a state: '?' + non-default parameters in registry order ('' if none)."""
        pairs: list[tuple[str, str]] = []
        for p in self.params.values():
            if p.name not in values:
                continue
            v = values[p.name]
            if _same(v, p.default):
                continue
            pairs.append((p.name, p.dump(v)))
        return "?" + urlencode(pairs, safe=",:") if pairs else ""

    def from_controls(self, raw: Mapping[str, Any], base: Mapping[str, Value]) -> State:
        """Values read from the controls (others kept from `base`); notices list what is wrong.

        Unlike `parse`, nothing is repaired: the user is looking at the control and should see why
        the value is refused rather than have it silently replaced.
        """
        values = dict(self.defaults())
        values.update(base)
        notices: list[str] = []
        for name, r in raw.items():
            try:
                value, note = self.params[name].value_from_component(r)
            except ValueError as exc:
                notices.append(str(exc))
                continue
            values[name] = value
            if note:
                notices.append(note)
        notices += [text for _, text in scenario_errors(values)]
        return State(values, notices)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return list(a or []) == list(b or [])
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return bool(a == b)
