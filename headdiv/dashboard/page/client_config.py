"""What the page's clientside callbacks (`assets/clientside.js`) need from the server, built once.

The functions themselves live in `assets/` (JavaScript only there); Python registers them by name with
`clientside(name)` and hands them this configuration as the store `CLIENT_CONFIG`, their last argument:
the tabs and which of them draw the simulation, the tour gate's watched keys, each preset's values and
story, and the ▶ button's pace. The same for every visitor: it is part of the layout, built with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dash import ClientsideFunction, State

from headdiv.dashboard.page.url_state import SCENARIO_KEYS, PageState, UrlRegistry
from headdiv.dashboard.teaching.presets import PRESETS, Preset
from headdiv.dashboard.teaching.tours import PAGE_KEYS
from headdiv.i18n import _

if TYPE_CHECKING:
    from headdiv.dashboard.views.view_protocol import View

CLIENT_CONFIG = "client-config"
NAMESPACE = "headdiv"
NAV_KEYS = ("tour", "step", "tab", *PAGE_KEYS)
"""Keys that say where the page is, not what it computes (ignored when matching a preset)."""
HIDING_PRESETS = ("presets", "sidebar")
"""`hide` parts that take the preset buttons off the page."""
PLAY, PAUSE = "▶", "⏸"
PLAY_STEPS = 9
"""Steps of ▶ from one end of a slider's range to the other."""


def clientside(name: str) -> ClientsideFunction:
    """The function `name` of `assets/clientside.js`."""
    return ClientsideFunction(namespace=NAMESPACE, function_name=name)


def config_state() -> State:
    """The configuration, as a callback's last State."""
    return State(CLIENT_CONFIG, "data")


def preset_keys(registry: UrlRegistry) -> list[str]:
    """The keys a preset is matched on: everything that says what the page computes."""
    return sorted(set(SCENARIO_KEYS) | {p.name for p in registry if p.name not in NAV_KEYS})


def sets_only_defaults(registry: UrlRegistry, preset: Preset) -> bool:
    """Whether `preset` sets nothing but its view's defaults: its state is then what opening that view shows,
    so matching it says nothing about a choice; its story waits for its button (`presetStory`)."""
    target, defaults = registry.parse(preset.query).values, registry.defaults()
    return all(same_value(target.get(k), defaults.get(k)) for k in preset_keys(registry))


def same_value(a: Any, b: Any) -> bool:
    """Two values of a page state, a list and a tuple alike (a store holds lists, a parsed link tuples)."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return list(a or []) == list(b or [])
    return bool(a == b)


def client_config(registry: UrlRegistry, views: list[View]) -> dict[str, Any]:
    keys = preset_keys(registry)
    watched = ["tour", "step", *PAGE_KEYS]
    defaults = PageState(registry.defaults()).to_data()
    return {
        "tabs": [v.id for v in views],
        "drawing": [v.id for v in views if v.shows_simulation],
        "watched": watched,
        "plain": {k: defaults.get(k) for k in watched},
        "presets": {
            "keys": keys,
            "targets": {
                p.id: {k: PageState(registry.parse(p.query).values).to_data().get(k) for k in keys} for p in PRESETS
            },
            "views": {p.id: p.tab for p in PRESETS},
            "plain": {p.id: sets_only_defaults(registry, p) for p in PRESETS},
            "stories": {p.id: [_(p.name), _(p.story)] for p in PRESETS},
            "word": _("Preset"),
            "hiding": list(HIDING_PRESETS),
        },
        "play": {"play": PLAY, "pause": PAUSE, "steps": PLAY_STEPS},
    }
