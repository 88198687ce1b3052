"""Guided tours: ordered steps, each a page state (a query string, as presets are), a short narrative,
and optionally a prediction question whose answer is revealed only after the reader has chosen.

A tour is opened by `?tour=NAME&step=K`; the step's query string gives the state, and anything else in
the link overrides it (a lecturer who moved a slider shares what the room saw). Steps are plain query
strings read by the same registry as any link, so a step can never hold a value a link could not
(tests/dashboard/test_tours.py parses every step of every tour). The claims follow docs/model.md and the
paper's sections 4 (the decomposition, Theorem 4.2 and the bound (4.4)) and 6 (the budget H d_k = D).

Every text a reader sees (name, summary, title, narrative, question, choices, why) is marked `N_` here and
passed through `_` where it is shown (`tour_layout`, `tour_panel`, `tour_text`), in the page's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from headdiv.dashboard.page.param import Value
from headdiv.dashboard.page.url_state import Param, UrlRegistry
from headdiv.i18n import N_


@dataclass(frozen=True)
class Answer:
    id: str
    """A short slug: what a class poll counts (never the label)."""
    label: str


@dataclass(frozen=True)
class Question:
    prompt: str
    choices: tuple[Answer, ...]
    answer: str
    """The id of the right choice."""
    why: str
    """Shown with the answer: what the figure below shows and why."""

    def choice(self, cid: str) -> Answer | None:
        return next((c for c in self.choices if c.id == cid), None)


@dataclass(frozen=True)
class Step:
    title: str
    query: str
    narrative: str
    question: Question | None = None


@dataclass(frozen=True)
class Tour:
    id: str
    name: str
    summary: str
    steps: tuple[Step, ...]

    def step(self, k: int) -> Step:
        """Step `k`, counted from 1 and clamped into the tour."""
        return self.steps[min(max(k, 1), len(self.steps)) - 1]


RISE_FALL = (
    Answer("falls", N_("It falls")),
    Answer("stays", N_("It stays about the same")),
    Answer("rises", N_("It rises")),
)

TOURS: dict[str, Tour] = {
    t.id: t
    for t in (
        Tour(
            "why-many-heads",
            N_("Why many heads?"),
            N_("From identical to orthogonal heads: averaging H uncorrelated heads divides the variance by H."),
            (
                Step(
                    N_("One head"),
                    "tab=ensemble&target=constant&H=1&theta=0",
                    N_(
                        "One attention head is a Nadaraya–Watson estimator: a weighted average of the training "
                        "responses. The target here is constant (pure noise), so the head is unbiased and all its "
                        "error is variance."
                    ),
                ),
                Step(
                    N_("Four identical heads"),
                    "tab=ensemble&target=constant&H=4&theta=0",
                    N_("Four heads that look through the same subspace (θ = 0°) compute the same average."),
                    Question(
                        N_(
                            "Compared with the single head, what does averaging these four identical heads do to the MSE?"
                        ),
                        RISE_FALL,
                        "stays",
                        N_(
                            "Identical heads make identical errors: their correlation is 1, the effective number "
                            "of heads is 1, and the average is no better than one head."
                        ),
                    ),
                ),
                Step(
                    N_("Turn them apart"),
                    "tab=ensemble&target=constant&H=4&theta=90",
                    N_("Now θ = 90°: every head sees its own orthogonal subspace, and HDI = 1."),
                    Question(
                        N_("θ goes from 0° to 90°: does the ensemble's MSE rise, fall or stay?"),
                        RISE_FALL,
                        "falls",
                        N_(
                            "Orthogonal heads weigh the training points by different coordinates, so their errors "
                            "are nearly uncorrelated: the cross-head covariance term, which held (H−1)/H of the "
                            "error for identical heads, nearly vanishes, the MSE drops towards V/H and the "
                            "effective heads approach H. With a constant target nothing is lost in bias."
                        ),
                    ),
                ),
                Step(
                    N_("The 1/H law"),
                    "tab=ensemble&target=constant&H=16&theta=90",
                    N_(
                        "Sixteen orthogonal heads. The MSE decomposes into bias² + variance + covariance "
                        "([its formula](#explain-ensemble)); with uniform weights the variance term is V/H, and with "
                        "uncorrelated unbiased heads it is most of what is left."
                    ),
                    Question(
                        N_("From 4 to 16 orthogonal heads, the ensemble's variance…"),
                        (
                            Answer("quarter", N_("drops to about a quarter")),
                            Answer("half", N_("drops to about a half")),
                            Answer("same", N_("stays the same")),
                        ),
                        "quarter",
                        N_(
                            "The variance term of the decomposition is V/H: each head's own variance V does not "
                            "depend on H, so four times the heads make it four times smaller, while the covariance "
                            "term stays small because orthogonal heads are nearly uncorrelated (compare the "
                            "effective heads in the header)."
                        ),
                    ),
                ),
                Step(
                    N_("Theorem 4.2 across every angle"),
                    "tab=diversity&target=constant&H=8",
                    N_(
                        "The sweep turns the heads from θ = 0° to 90°. For unbiased heads the paper's bound "
                        "MSE ≤ B² + V/H + K (H−1)/H (1 − HDI) says: more diversity, lower MSE (Theorem 4.2). The "
                        "verdict under the charts says whether the MSE falls as HDI rises at every angle, beyond its "
                        "Monte Carlo error, and names the tightest bound of that form."
                    ),
                ),
            ),
        ),
        Tour(
            "when-diversity-hurts",
            N_("When diversity hurts"),
            N_("A signal in the shared block: heads that turn away lose it, and the bound fails."),
            (
                Step(
                    N_("A shared signal"),
                    "tab=ensemble&target=sine&signal=shared&noise=0.2&H=4&theta=0",
                    N_(
                        "Now the target is m(x) = sin(2 a·x), and the direction a lies in the block every head "
                        "starts from ([where the signal lives](#explain-ensemble)). At θ = 0° all four heads see it."
                    ),
                ),
                Step(
                    N_("Turn the heads apart"),
                    "tab=ensemble&target=sine&signal=shared&noise=0.2&H=4&theta=90",
                    N_("At θ = 90° every head looks only at its own private block, which holds no signal."),
                    Question(
                        N_("θ goes from 0° to 90° with the signal in the shared block: the ensemble's MSE…"),
                        RISE_FALL,
                        "rises",
                        N_(
                            "Heads that turn away from the shared block lose sight of the signal: each estimates "
                            "E[y | W_hᵀx], which no longer depends on a·x, so the bias grows faster than the "
                            "covariance falls."
                        ),
                    ),
                ),
                Step(
                    N_("The bound across every angle"),
                    "tab=diversity&target=sine&signal=shared&noise=0.2&H=4",
                    N_("The same sweep as in Theorem 4.2, with the shared signal."),
                    Question(
                        N_("Does the fitted bound MSE ≤ B² + V/H + K (H−1)/H (1 − HDI) hold at every angle?"),
                        (Answer("holds", N_("Yes, it holds")), Answer("fails", N_("No, it fails somewhere"))),
                        "fails",
                        N_(
                            "The bound treats the bias B² as fixed, but here it grows with diversity: each head is "
                            "not a consistent estimator of m(x), it loses what its subspace does not see "
                            "([why, in the explanation](#explain-diversity)). The verdict under the charts names "
                            "the fitted constants."
                        ),
                    ),
                ),
                Step(
                    N_("Share the signal, diversify the rest"),
                    "tab=ensemble&geometry=shared_dims&shared_dims=1&d_k=4&H=8&target=sine&noise=0.2",
                    N_(
                        "The way out: each head keeps the signal's one dimension and spends its other three on "
                        "private directions (geometry shared_dims): one principal angle of 0°, the rest 90°."
                    ),
                    Question(
                        N_("Compared with heads that all turned fully apart (θ = 90°), the MSE of these heads is…"),
                        (
                            Answer("lower", N_("lower")),
                            Answer("same", N_("about the same")),
                            Answer("higher", N_("higher")),
                        ),
                        "lower",
                        N_(
                            "Every head still sees a·x, so the bias stays small, while the private dimensions "
                            "decorrelate the heads' errors: low bias and low correlation at once."
                        ),
                    ),
                ),
            ),
        ),
        Tour(
            "splitting-a-budget",
            N_("Splitting a budget"),
            N_("A fixed total dimension D = H·dₖ: many small heads or a few big ones? Theory beside Monte Carlo."),
            (
                Step(
                    N_("Every split of D = 32"),
                    "tab=architecture&budget=32&replicates=100",
                    N_(
                        "The budget D = H·dₖ = 32 can be 32 heads of dimension 1, …, or one head of dimension 32. "
                        "The chart measures every split by Monte Carlo and rings the best one."
                    ),
                ),
                Step(
                    N_("The paper's closed form"),
                    "tab=architecture&budget=32&replicates=100",
                    N_(
                        "With orthogonal heads the paper's objective is c₁ dₖ⁻² + c₂ dₖᵖ / (n D), with the power "
                        "p = dₖ/2 + 1 ([the objective](#explain-architecture)): the first term, the bias, wants big "
                        "heads; the second, the variance, explodes with dₖ."
                    ),
                    Question(
                        N_("With c₁ = c₂ = 1, n = 256 and D = 32, where does that objective put the best split?"),
                        (
                            Answer("tiny", N_("dₖ = 1: as many heads as possible")),
                            Answer("middle", N_("a small dₖ in between")),
                            Answer("one", N_("one big head, dₖ = D")),
                        ),
                        "middle",
                        N_(
                            "The bias term falls like dₖ⁻² while the variance term grows faster than any power "
                            "of dₖ: the minimum is dₖ = 4, H = 8. Fitted to these Monte Carlo points the "
                            "objective is degenerate (their bias does not fall as dₖ grows), so the closed-form "
                            "chart draws it at c₁ = c₂ = 1, as its title says: dₖ* = 4 at n = 256 and H* = 8 at "
                            "D = 32. The star is the Monte Carlo's own best split, dₖ = 2: a different optimum."
                        ),
                    ),
                ),
                Step(
                    N_("More data"),
                    "tab=architecture&budget=32&replicates=20&n=65536",
                    N_(
                        "256 times more training points (n = 65536), the same budget; fewer replicates keep the "
                        "Monte Carlo quick."
                    ),
                    Question(
                        N_("With n 256 times larger, the objective's best head dimension dₖ*…"),
                        (Answer("grows", N_("grows")), Answer("stays", N_("stays")), Answer("shrinks", N_("shrinks"))),
                        "grows",
                        N_(
                            "n divides only the variance term, so more data lets the bigger heads' smaller bias "
                            "win: at c₁ = c₂ = 1 the optimum moves from dₖ = 4 to dₖ = 8 (the step of the "
                            "dₖ* curve between n = 256 and n = 65536 in the closed-form chart). It grows slowly "
                            "with n: the paper states (log n)ʳ with r = 2/(4 + d), the dotted curve; its own "
                            "proof reaches O(log n) ([the two rates](#explain-architecture))."
                        ),
                    ),
                ),
                Step(
                    N_("Softmax is not a local kernel"),
                    "tab=architecture&budget=32&replicates=100&kernel=softmax",
                    N_(
                        "Transformer attention uses the exponential kernel exp(q·k/√dₖ), not a local one: its "
                        "bias does not vanish as n grows ([softmax and the closed form](#explain-architecture)), so "
                        "the closed form, derived for a local kernel, is a guide here, not a law. Its fit to these "
                        "points is degenerate too: "
                        "the closed-form chart shows the paper's c₁ = c₂ = 1, not a property of softmax heads."
                    ),
                ),
            ),
        ),
    )
}

TOUR_IDS: tuple[str, ...] = tuple(TOURS)
MAX_STEPS = max(len(t.steps) for t in TOURS.values())
PAGE_KEYS = ("hide", "lecture", "large", "img")
"""Page-level parameters a tour step leaves as they are (a lecturer's hidden controls stay hidden)."""


def tour_params() -> list[Param]:
    """The URL parameters of tours, declared in the page's registry like any other."""
    return [
        Param("tour", "choice", "", choices=TOUR_IDS, help="Guided tour shown above the view."),
        Param("step", "int", 1, lo=1, hi=MAX_STEPS, help="Step of the tour, from 1.", check=step_within_tour),
    ]


def step_within_tour(step: Value, page: Mapping[str, Value]) -> str | None:
    """A step past the end of the link's tour is said (and dropped from the link), never shown as its last."""
    tour = TOURS.get(str(page.get("tour") or ""))
    if tour is None or not isinstance(step, int) or step <= len(tour.steps):
        return None
    return f"step {step} is past the end of the tour '{tour.id}' ({len(tour.steps)} steps)"


def get_tour(name: str) -> Tour:
    """The tour called `name`; unknown names are errors, never an empty tour."""
    try:
        return TOURS[name]
    except KeyError:
        raise KeyError(f"no tour {name!r}; tours: {', '.join(TOUR_IDS)}") from None


def expand(search: str | None) -> str:
    """A link's query string with its tour step's state put first, so the link's own keys win.

    `?tour=why-many-heads&step=2` becomes the step's query plus `tour` and `step`; a link without a
    known tour is returned unchanged (the registry then reports a bad tour name as usual).
    """
    text = (search or "").lstrip("?")
    pairs = dict(parse_qsl(text, keep_blank_values=True))
    tour = TOURS.get(pairs.get("tour", ""))
    if tour is None:
        return text
    try:
        k = int(pairs.get("step", "1"))
    except ValueError:
        k = 1
    # a step past the end opens the tour at its start, as the registry's notice says (`step_within_tour`)
    step = tour.step(k if k <= len(tour.steps) else 1)
    # each key once: the step's, unless the link names it (a key the link itself repeats stays repeated,
    # for the registry to say so)
    own = parse_qsl(text, keep_blank_values=True)
    named = {key for key, _ in own}
    base = [(key, v) for key, v in parse_qsl(step.query, keep_blank_values=True) if key not in named]
    return urlencode(base + own, safe=",")


def next_tour(tour: Tour) -> Tour | None:
    """The tour after `tour` in the registry's order (the sidebar's), or None after the last."""
    at = TOUR_IDS.index(tour.id)
    return TOURS[TOUR_IDS[at + 1]] if at + 1 < len(TOUR_IDS) else None


def end_link(tour: Tour, k: int, keep: dict[str, str] | None = None) -> str:
    """Step `k`'s state without the tour: ending the tour leaves the reader where the step was, free to explore."""
    pairs = parse_qsl(tour.step(k).query) + [(key, v) for key, v in (keep or {}).items() if v]
    return "?" + urlencode(pairs, safe=",")


def step_link(tour: str, k: int, keep: dict[str, str] | None = None) -> str:
    """The short link of step `k` of `tour`, with the page-level flags in `keep` (already URL text)."""
    pairs = [("tour", tour), ("step", str(k))] + [(key, v) for key, v in (keep or {}).items() if v]
    return "?" + urlencode(pairs, safe=",")


def pin(registry: UrlRegistry, search: str, values: Mapping[str, Any]) -> str:
    """`search` (a serialized state) with the keys its tour step sets written out even at their defaults.

    A serialized link leaves defaults out, and `expand` would fill them back from the step: θ moved
    from the step's 90° to the default 0° must stay 0° in the link.
    """
    tour = TOURS.get(str(values.get("tour") or ""))
    if tour is None:
        return search
    given = {key for key, _ in parse_qsl(search.lstrip("?"), keep_blank_values=True)}
    step = tour.step(int(values.get("step") or 1))
    extra = [
        (key, registry[key].dump(values[key]))
        for key, _ in parse_qsl(step.query)
        if key not in given and key in values and key in registry.params
    ]
    if not extra:
        return search
    tail = urlencode(extra, safe=",:")
    return f"{search}&{tail}" if search else f"?{tail}"
