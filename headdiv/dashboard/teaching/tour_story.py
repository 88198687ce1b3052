"""Which story the panel tells for a page state: the tour step it is on, or the preset it shows exactly
(pure functions of the validated state; the panel's callbacks and the vote page read them)."""

from __future__ import annotations

from headdiv.dashboard.page.client_config import HIDING_PRESETS, preset_keys, same_value, sets_only_defaults
from headdiv.dashboard.page.url_state import PageState, UrlRegistry
from headdiv.dashboard.teaching.presets import PRESETS, Preset
from headdiv.dashboard.teaching.tours import TOURS, Question, Tour


def current_step(st: PageState) -> tuple[Tour, int] | None:
    """The tour the page is on and its step (clamped to the tour), or None."""
    tour = TOURS.get(str(st.get("tour") or ""))
    if tour is None:
        return None
    k = min(max(int(st.get("step") or 1), 1), len(tour.steps))
    return tour, k


def step_key(tour: Tour, k: int) -> str:
    """`tour/step`: what a class poll is about (the vote page shows that step's question)."""
    return f"{tour.id}/{k}"


def question_at(topic: str) -> Question | None:
    """The question of the step a poll's topic names (None when it names none)."""
    name, _, k = topic.partition("/")
    tour = TOURS.get(name)
    if tour is None or not k.isdigit() or not 1 <= int(k) <= len(tour.steps):
        return None
    return tour.steps[int(k) - 1].question


def active_preset(registry: UrlRegistry, st: PageState) -> Preset | None:
    """The preset whose scenario and settings the page shows exactly, on the view it opens (None once
    anything was moved).

    A preset that sets nothing but its view's defaults (Training lab's) is never told from the state alone:
    its state is what opening that tab shows, so matching it says nothing about a choice. The browser tells
    its story once its button was clicked (`presetStory` in assets/clientside.js), which the server cannot see.
    """
    keys = set(preset_keys(registry))
    for preset in PRESETS:
        if preset.tab is not None and st.get("tab") != preset.tab:
            continue
        target = registry.parse(preset.query).values
        if all(same_value(st.get(k), target.get(k)) for k in keys) and not sets_only_defaults(registry, preset):
            return preset
    return None


def preset_story(registry: UrlRegistry, st: PageState) -> Preset | None:
    """The preset whose story the panel tells: none while the presets are hidden (`hide=presets`), where a
    lecturer's link that happens to match a preset must not narrate a button the class cannot see."""
    return None if st.hidden() & set(HIDING_PRESETS) else active_preset(registry, st)
