"""The URL registry without a browser: round trips, clamping, bad values, cross-field repair."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.url_state import PageState, Param, UrlRegistry, scenario_params
from headdiv.dashboard.views import VIEWS
from headdiv.i18n import LANGUAGES
from headdiv.schemas import Scenario

REG = build_registry(VIEWS)


def test_every_scenario_field_is_a_url_parameter_with_the_models_bounds() -> None:
    for name, info in Scenario.model_fields.items():
        p = REG[name]
        assert p.scenario and p.default == info.default
    assert (REG["H"].lo, REG["H"].hi) == (1, 64)
    assert (REG["n"].lo, REG["n"].hi) == (2, 65536)
    assert REG["rho"].lo == 0 and REG["rho"].lo_open
    assert REG["geometry"].choices == ("equiangular", "tilted", "shared_dims", "random")


def test_defaults_serialize_to_nothing_and_parse_back() -> None:
    assert REG.serialize(REG.defaults()) == ""
    state = REG.parse("")
    assert state.values == REG.defaults() and state.notices == []


def test_a_shared_link_round_trips() -> None:
    search = "?tab=surfaces&H=8&d_k=16&n=300&theta=22.5&geometry=tilted&tilts=0,10,20,30,40,50,60,90&sx=n&sxv=32,64"
    state = REG.parse(search)
    assert state.notices == []
    assert state["H"] == 8 and state["n"] == 300 and state["theta"] == 22.5
    assert state["tilts"] == [0, 10, 20, 30, 40, 50, 60, 90]
    assert state["sxv"] == [32, 64]
    assert REG.parse(REG.serialize(state.values)).values == state.values
    body = state.scenario()
    assert Scenario.model_validate(body).H == 8  # what the URL holds, the API accepts


def test_out_of_bounds_values_are_clamped_with_a_notice() -> None:
    state = REG.parse("?H=500&theta=-3&replicates=1")
    assert (state["H"], state["theta"], state["replicates"]) == (64, 0.0, 2)
    assert "heads H: 500 is above the maximum 64; using 64" in state.notices
    assert "angle θ between heads (°): -3 is below the minimum 0; using 0" in state.notices
    assert any(n.startswith("replicates R: 1 is below the minimum 2") for n in state.notices)


@pytest.mark.parametrize(
    ("search", "fragment", "key"),
    [
        ("?H=abc", "heads H: 'abc' is not a number", "H"),
        ("?H=2.5", "heads H: '2.5' is not a whole number", "H"),
        ("?theta=nan", "angle θ between heads (°): 'nan' is not a finite number", "theta"),
        ("?noise=inf", "noise σ: 'inf' is not a finite number", "noise"),
        ("?kernel=cosine", "kernel: 'cosine' is not one of gaussian, softmax", "kernel"),
        ("?tab=nowhere", "view: 'nowhere' is not one of", "tab"),
        ("?large=maybe", "large fonts: 'maybe' is not one of 1/0/true/false", "large"),
        ("?rho=0", "ρ (geometric): 0 must be above 0", "rho"),
    ],
)
def test_bad_values_fall_back_to_the_default_with_a_readable_notice(search: str, fragment: str, key: str) -> None:
    state = REG.parse(search)
    assert any(fragment in n for n in state.notices), state.notices
    assert state[key] == REG[key].default


def test_unknown_parameters_and_flags_are_ignored_with_a_notice() -> None:
    state = REG.parse("?bogus=1&hide=H,nonsense,explain")
    assert "unknown URL parameter 'bogus' ignored" in state.notices
    assert state["hide"] == ("H", "explain")
    assert state.hidden() == {"H", "explain"}
    assert REG.parse("?lecture=1").hidden() >= {"advanced", "reproduce", "export"}


def test_a_link_full_of_junk_gives_a_few_short_notices() -> None:
    """A link's author chooses its text: thousands of unknown parameters and bad values make one line for
    the unknown ones (the first three named) and at most MAX_NOTICES in all, each clipped, plus a count."""
    from headdiv.dashboard.page.notices import MAX_NOTICES, NOTICE_CHARS

    junk = "&".join(f"p{i}={'x' * 5}" for i in range(7000))
    bad = "&".join(f"{key}=nan" for key in ("theta", "noise", "temperature", "beta", "rho", "H", "n", "d_k"))
    state = REG.parse(f"?{junk}&{bad}&theta={'9' * 5000}")
    assert state.notices[0] == "unknown URL parameters 'p0', 'p1', 'p2' and 6997 more ignored"
    assert len(state.notices) == MAX_NOTICES + 1 and state.notices[-1].endswith("more problems with this link")
    assert all(len(n) <= NOTICE_CHARS for n in state.notices)
    assert sum(len(n) for n in state.notices) < 2000
    assert state["theta"] == REG["theta"].default
    assert REG.parse("?bogus=1&bogus=2").notices == ["unknown URL parameter 'bogus' ignored"]


def test_a_repeated_parameter_is_said_once_and_the_last_value_used() -> None:
    """So the page rewrites the link with one value (a share link never carries `theta=10&theta=20`)."""
    state = REG.parse("?theta=10&theta=20&theta=30&H=2")
    assert state["theta"] == 30 and state["H"] == 2
    assert state.notices == [f"{REG['theta'].shown} is given more than once; using the last value"]
    assert REG.serialize(state.values).count("theta=") == 1
    assert REG.parse("?theta=30&H=2").notices == []


def test_cross_field_rules_revert_only_the_offending_key() -> None:
    state = REG.parse("?H=8&geometry=shared_dims&shared_dims=9")
    assert state["H"] == 8 and state["geometry"] == "shared_dims"
    assert state["shared_dims"] == 1
    assert any(n.startswith("shared dimensions: 9 exceeds d_k = 4") for n in state.notices)

    state = REG.parse("?geometry=tilted&H=3")  # tilted without tilts: the geometry goes, H stays
    assert state["geometry"] == "equiangular" and state["H"] == 3


def test_the_work_budget_is_enforced_by_the_models_own_rule() -> None:
    state = REG.parse("?H=64&n=65536&replicates=5000&queries=1024")
    assert any("work budget" in n for n in state.notices)
    Scenario.model_validate(state.scenario())  # whatever is left is runnable


def test_values_from_controls_are_checked_not_repaired() -> None:
    raw = {p.name: p.component_value(REG.defaults()[p.name]) for p in REG.controlled}
    raw["H"] = 6
    raw["geometry"] = "shared_dims"
    raw["shared_dims"] = 5
    state = REG.from_controls(raw, REG.defaults())
    assert state["H"] == 6 and state["shared_dims"] == 5
    assert any(n.startswith("shared dimensions: 5 exceeds d_k = 4") for n in state.notices)


def test_log_sliders_keep_exact_values() -> None:
    n = REG["n"]
    assert n.component_value(256) == 8
    assert n.value_from_component(n.component_value(300))[0] == 300
    assert REG["d_k"].value_from_component(5.0)[0] == 32


def test_duplicate_parameter_names_are_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        UrlRegistry([*scenario_params(), Param("H", "int", 1)])


def test_state_store_round_trip() -> None:
    state = REG.parse("?hide=H,theta&H=5")
    again = PageState.from_data(state.to_data())
    assert again["H"] == 5 and set(again["hide"]) == {"H", "theta"}


@settings(max_examples=60, deadline=None)
@given(
    H=st.integers(-10, 100),
    theta=st.floats(-50, 200, allow_nan=False),
    n=st.integers(-5, 10**6),
    junk=st.text(max_size=8),
)
def test_any_query_string_gives_a_valid_scenario(H: int, theta: float, n: int, junk: str) -> None:
    from urllib.parse import urlencode

    search = "?" + urlencode({"H": H, "theta": theta, "n": n, "seed": junk, "replicates": 20, "queries": 16})
    state = REG.parse(search)
    Scenario.model_validate(state.scenario())
    reparsed: dict[str, Any] = REG.parse(REG.serialize(state.values)).values
    assert reparsed == state.values


def test_notices_use_the_labels_on_the_page_not_url_keys() -> None:
    """A view's parameter is named in notices by its control's label, read from the built layout."""
    from headdiv.dashboard.page.app import build_registry
    from headdiv.dashboard.page.frame import control_labels, page_layout

    reg = build_registry(VIEWS)
    reg.label(control_labels(page_layout(reg, VIEWS)))
    notices = reg.parse("?dn=abc&sxv=0,x&H=abc").notices
    assert any(n.startswith("angles in the sweep: 'abc' is not a number") for n in notices), notices
    assert not any(n.startswith(("dn:", "sxv:", "H:")) for n in notices), notices
    assert any(n.startswith("heads H: 'abc'") for n in notices), notices


def test_a_bad_value_with_an_empty_default_names_what_the_view_does_instead() -> None:
    notices = REG.parse("?tab=surfaces&sxv=0,15,abc").notices
    assert notices == ["sxv: 'abc' is not a number; using the default grid of the swept key"]
    assert all("default none" not in n for n in notices)


def test_a_surface_axis_value_outside_its_swept_keys_range_is_a_notice_not_an_api_error() -> None:
    state = REG.parse("?tab=surfaces&sx=theta&sxv=0,95")
    assert state.notices == ["sxv: 95 is outside the range of theta (0 to 90); using the default grid of the swept key"]
    assert state["sxv"] is None and "sxv" not in REG.serialize(state.values)  # the link is cleaned too
    assert REG.parse("?tab=surfaces&sx=theta&sxv=0,45,90").notices == []
    typed = REG.from_controls({"sxv": "0, 95"}, REG.parse("?tab=surfaces&sx=theta").values)
    assert typed.notices == ["sxv: 95 is outside the range of theta (0 to 90)"]


def test_a_links_language_is_a_parameter_every_registered_language_and_only_those() -> None:
    """`lang` keeps a shared link's language (docs/languages.md): each registered language round-trips, no
    `lang` means the browser's, and a language the registry lacks is a notice naming the parameter."""
    assert REG["lang"].choices == tuple(LANGUAGES)
    for code in LANGUAGES:
        state = REG.parse(f"?lang={code}&theta=30")
        assert state["lang"] == code and state.notices == []
        assert REG.parse(REG.serialize(state.values)).values == state.values
    assert REG.parse("?theta=30")["lang"] == ""
    assert "lang=" not in REG.serialize(REG.parse("?theta=30").values)
    bad = REG.parse("?lang=klingon")
    assert bad["lang"] == "" and len(bad.notices) == 1 and bad.notices[0].startswith("language: 'klingon'")


def test_a_links_notices_are_said_in_the_pages_language() -> None:
    """A page in Spanish reads its link's problems in Spanish, the control's label included; English outside."""
    from headdiv.i18n import speaking, translator

    es = translator("es").gettext
    with speaking("es"):
        state = REG.parse("?H=500&bogus=1")
    clamped = es("{label}: {value} is above the maximum {hi}; using {hi}").format(
        label=es(REG["H"].label), value="500", hi="64"
    )
    assert state.notices == [es("unknown URL parameter {names} ignored").format(names="'bogus'"), clamped]
    assert clamped != "heads H: 500 is above the maximum 64; using 64"
    assert REG.parse("?H=500").notices == ["heads H: 500 is above the maximum 64; using 64"]
