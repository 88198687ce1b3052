"""Figures and verdicts are written in the language spoken when they are drawn: English by default (byte for byte
what it always was), the accented pseudo-language en-XA (always available, made from the English text) and
Spanish (whatever its catalogue says, English where it lacks a string), from real engine results."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from headdiv.figures import ensemble_charts as ensemble
from headdiv.figures import weighting_charts as weighting
from headdiv.figures.theme import COMPONENT_LABELS, fmt
from headdiv.figures.verdict_sentences import diversity_verdict
from headdiv.i18n import speaking, translator
from headdiv.i18n.catalogues import accented
from headdiv.schemas import Scenario
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.results.sweep_results import DiversitySweepResult
from headdiv.schemas.verdicts import SIGNIFICANT_Z
from headdiv.workers.engine.simulation import simulate
from headdiv.workers.runner import run_job

Say = Callable[[str], str]
LANGUAGES: dict[str, Say] = {
    "en": lambda text: text,
    "en-XA": accented,
    "es": translator("es").gettext,
}
"""Each language checked, and what it makes of an English string (its template, before fields are filled)."""


@pytest.fixture(scope="module")
def sim() -> SimulationResult:
    return simulate(Scenario(H=3, theta=60, replicates=20, queries=16))


@pytest.fixture(scope="module")
def held() -> DiversitySweepResult:
    """A sweep of pure noise, where Theorem 4.2 holds (tests/test_verdicts.py)."""
    base = Scenario(H=8, replicates=60, queries=16, n=64, target="constant")
    out = run_job("diversity_sweep", {"base": base.model_dump(mode="json"), "thetas": [0, 30, 60, 90]})
    assert isinstance(out, DiversitySweepResult)
    return out


def test_english_is_what_it_always_was(sim: SimulationResult) -> None:
    fig = ensemble.decomposition_bars(sim)
    assert fig.layout.title.text == "MSE decomposition: ensemble vs baselines"
    assert [t.name for t in fig.data] == ["Bias²", "Variance", "Covariance", "MSE"]
    assert list(fig.data[0].x) == ["ensemble", "single head", f"big head (d={sim.baselines.big_head.dim})"]
    assert list(ensemble.per_head_mse(sim).data[0].x) == ["head 1", "head 2", "head 3"]


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_charts_are_drawn_in_the_language_spoken(sim: SimulationResult, code: str) -> None:
    say = LANGUAGES[code]
    with speaking(code):
        bars = ensemble.decomposition_bars(sim)
        heads = ensemble.per_head_mse(sim)
        schemes = weighting.scheme_bars(sim)
    assert bars.layout.title.text == say("MSE decomposition: ensemble vs baselines")
    assert bars.layout.yaxis.title.text == say("error")
    assert [t.name for t in bars.data[:3]] == [say(COMPONENT_LABELS[p]) for p in ("bias2", "variance", "covariance")]
    big = say("big head (d={dim})").format(dim=sim.baselines.big_head.dim)
    assert list(bars.data[0].x) == [say("ensemble"), say("single head"), big]
    assert bars.data[0].hovertemplate == "%{x}<br>" + say("Bias²") + " = %{y:.3g}<extra></extra>"
    assert heads.layout.title.text == say("Per-head MSE")
    assert list(heads.data[0].x) == [say("head {number}").format(number=h) for h in (1, 2, 3)]
    legend = say("ensemble MSE {mse}").format(mse=fmt(sim.mse, sim.mse_se))
    assert legend in [t.name for t in heads.data]
    assert schemes.layout.title.text == say("Weighting schemes: MSE decomposition")
    shown = [weighting.SCHEME_LABELS[s] for s in weighting.SCHEMES if s in sim.weightings]
    assert list(schemes.data[0].x) == [say(label) for label in shown]
    if code == "en-XA":  # the pseudo-language really changed the words: no English left behind
        assert bars.layout.title.text.startswith("⟦") and "ensemble" not in bars.layout.title.text


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_a_verdict_is_said_in_the_language_spoken(held: DiversitySweepResult, code: str) -> None:
    say = LANGUAGES[code]
    c0, k = held.bound.c0, held.bound.K
    consts = say(" with c₀ = {c0}, K = {k}").format(c0=fmt(c0), k=fmt(k))
    expected = say(
        "Holds: across the {angles} angles the MSE never rises with HDI by more than {z} standard errors, and the "
        "bound {form}{consts} lies on or above the MSE at every angle: more diversity, lower MSE, as Theorem 4.2 says."
    ).format(angles=len(held.points), z=f"{SIGNIFICANT_Z:g}", form="c₀ + K (H−1)/H (1 − HDI)", consts=consts)
    with speaking(code):
        said = diversity_verdict(held)
    assert said == expected
    if code == "en":
        assert said.startswith("Holds: across the 4 angles")
    if code == "en-XA":
        assert said.startswith("⟦Ĥöĺðš") and fmt(k) in said


def test_the_language_is_read_when_drawn_not_kept(sim: SimulationResult) -> None:
    with speaking("en-XA"):
        pseudo = ensemble.decomposition_bars(sim).layout.title.text
    assert pseudo != ensemble.decomposition_bars(sim).layout.title.text == "MSE decomposition: ensemble vs baselines"
