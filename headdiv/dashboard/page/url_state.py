"""The one typed registry of every URL parameter of the dashboard (after TensorFlow Playground's state.ts).

The URL query string holds the whole state: the tab, every scenario key by its API name, lecture-mode
flags, and the parameters views declare. Parsing and writing happen here and nowhere else, so a link
always means the same thing. Scenario values are checked against `headdiv.schemas.Scenario` itself
(its bounds, labels and choices are read from the model and its registries, never copied), so a link
the dashboard accepts is a request the API accepts. A bad value never breaks the page: it becomes a
readable notice and the default.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args, get_origin
from urllib.parse import parse_qsl, urlencode

from pydantic import ValidationError

from headdiv.dashboard.page.notices import bounded_notices, using_default
from headdiv.dashboard.page.param import Param, Value, checkbox
from headdiv.i18n import LANGUAGES, N_, _
from headdiv.schemas import Scenario
from headdiv.schemas.fields import error_field, error_message, field_bounds
from headdiv.schemas.scenario import FIELD_ORDER


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


INACTIVE_WHEN: dict[str, tuple[Callable[[Mapping[str, Value]], bool], str]] = {
    "phi": (lambda v: v.get("dependence", "iid") == "iid", N_("i.i.d. tokens: φ enters only with AR(1) dependence")),
}
"""Scenario keys that do not enter the scenario in some states: when, and why (their controls are then
disabled on every view)."""


def inactive_scenario_keys(values: Mapping[str, Value]) -> dict[str, str]:
    """The keys of `INACTIVE_WHEN` that do not enter the scenario `values` describes, with why."""
    return {key: _(why) for key, (idle, why) in INACTIVE_WHEN.items() if idle(values)}


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
EMBED_HIDES = frozenset({"sidebar", "tabs", "explain", "reproduce", "export", "presets", "advanced"})
"""What `embed=1` hides besides the header and the tour panel: a frame shows the view's charts alone."""


def global_params(tabs: Iterable[str]) -> list[Param]:
    """The parameters every page has: the tab, lecture flags, large fonts, language, image export format."""
    tabs = tuple(tabs)
    return [
        Param("tab", "choice", tabs[0], component="tabs", label=N_("view"), choices=tabs, help="The view shown."),
        Param(
            "hide",
            "flags",
            (),
            label=N_("hidden parts"),
            choices=HIDEABLE,
            help="Controls or page parts hidden (lecture mode).",
        ),
        Param(
            "lecture",
            "bool",
            False,
            label=N_("lecture mode"),
            help="Lecture mode: hides the advanced panel, reproduce box and export.",
        ),
        Param(
            "embed",
            "bool",
            False,
            label=N_("embedded"),
            help="Only the view's charts, for a frame in another page (no header, sidebar, tabs or text).",
        ),
        Param(
            "present",
            "bool",
            False,
            label=N_("present to the room"),
            help="Present this page to a room: phones that open the room's link follow it (assets/room.js).",
        ),
        replace(checkbox("large", False, "large-fonts", "Large fonts for projectors."), label=N_("large fonts")),
        Param(
            "lang",
            "choice",
            "",
            label=N_("language"),
            choices=tuple(LANGUAGES),
            absent=N_("the browser's"),
            help="The language the page is read in (docs/languages.md); without it, the browser's, else English. "
            "A room's follower keeps its own.",
        ),
        Param(
            "img",
            "choice",
            "png",
            component="img-format",
            label=N_("charts export as"),
            choices=("png", "svg"),
            help="Chart export format.",
        ),
    ]


# -- the state and the registry --------------------------------------------------------------------
@dataclass
class PageState:
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
        if self.values.get("embed"):
            out |= EMBED_HIDES
        return out

    def to_data(self) -> dict[str, Value]:
        """JSON-able form for a dcc.Store."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.values.items()}

    @classmethod
    def from_data(cls, data: Mapping[str, Value] | None) -> PageState:
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
                head, _colon, rest = msg.partition(":")
                name = head.strip() if head.strip() in SCENARIO_KEYS else None
                text = f"{_(SCENARIO_LABELS[name])}:{rest}" if name is not None and rest else msg
            else:
                text = f"{_(SCENARIO_LABELS.get(name, name))}: {msg}"
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

    def parse(self, search: str | None) -> PageState:
        """A query string (with or without '?') to a valid state; every problem becomes a notice."""
        values = self.defaults()
        notices: list[str] = []
        given: set[str] = set()
        unknown: list[str] = []
        seen: set[str] = set()
        repeated: set[str] = set()
        for key, text in parse_qsl((search or "").lstrip("?"), keep_blank_values=True):
            param = self.params.get(key)
            if param is None:
                unknown.append(key)
                continue
            if key in seen and key not in repeated:  # said once; the link is then written with one value
                repeated.add(key)
                notices.append(_("{label} is given more than once; using the last value").format(label=param.shown))
            seen.add(key)
            try:
                value, note = param.parse(text)
            except ValueError as exc:
                notices.append(using_default(str(exc), param))
                continue
            values[key] = value
            given.add(key)
            if note:
                notices.append(note)
        for key in sorted(given, key=list(self.params).index):  # rules between values, once all are read
            param = self.params[key]
            problem = param.check(values[key], values) if param.check is not None else None
            if problem:
                notices.append(using_default(problem, param))
                values[key] = param.default
        notices += self.repair_scenario(values, given)
        return PageState(values, bounded_notices(notices, unknown))

    def repair_scenario(self, values: dict[str, Value], given: set[str]) -> list[str]:
        """Fall back to defaults for the scenario keys that break a cross-field rule or the budget."""
        notices: list[str] = []
        for _attempt in range(len(SCENARIO_KEYS) + 1):
            errors = scenario_errors(values)
            if not errors:
                return notices
            name, text = errors[0]
            if name is None or name not in given:
                name = self._culprit(values, given, text)
            if name is not None:
                values[name] = self.params[name].default
                given.discard(name)
                default = self.params[name].dump(self.params[name].default) or _("none")
                notices.append(
                    _("{problem}; using the default {label} = {value}").format(
                        problem=text, label=self.params[name].shown, value=default
                    )
                )
                continue
            for key in SCENARIO_KEYS:
                values[key] = self.params[key].default
            given.difference_update(SCENARIO_KEYS)
            notices.append(_("{problem}; using the default scenario").format(problem=text))
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

    def from_controls(self, raw: Mapping[str, Any], base: Mapping[str, Value]) -> PageState:
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
        for name in raw:  # rules between values: said, not repaired
            param = self.params[name]
            problem = param.check(values[name], values) if param.check is not None else None
            if problem:
                notices.append(problem)
        notices += [text for _, text in scenario_errors(values)]
        return PageState(values, notices)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return list(a or []) == list(b or [])
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return bool(a == b)
