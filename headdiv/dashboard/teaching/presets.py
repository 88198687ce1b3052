"""Named scenarios that each tell one story, one click away (they are just URL query strings).

Each preset is a partial state: the keys it sets; everything else takes its default. Being plain
query strings, they go through the same registry as any shared link, so a preset can never hold a
value a link could not.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from headdiv.i18n import N_


@dataclass(frozen=True)
class Preset:
    id: str
    name: str
    story: str
    query: str

    @property
    def tab(self) -> str | None:
        """The view the preset opens, when its query names one. Its story is told on that view only: a
        preset whose other values are all defaults would otherwise claim every default page."""
        return parse_qs(self.query).get("tab", [None])[0]


PRESETS: tuple[Preset, ...] = (
    Preset(
        "identical",
        N_("Identical heads"),
        N_(
            "θ = 0: every head sees the same subspace, so their errors are perfectly correlated and the "
            "ensemble is no better than one head (effective heads = 1)."
        ),
        "tab=ensemble&theta=0&H=4",
    ),
    Preset(
        "orthogonal-noise",
        N_("Orthogonal heads, pure noise"),
        N_(
            "θ = 90 and a constant target: every head is unbiased and their errors are nearly uncorrelated "
            "(only the noise they share links them), so the average of H heads has almost 1/H of one head's "
            "error (effective heads close to H): Theorem 4.2 at its best."
        ),
        "tab=ensemble&theta=90&target=constant&H=8",
    ),
    Preset(
        "shared-signal",
        N_("Diversity hurts a shared signal"),
        N_(
            "The signal lives in the shared block: heads that turn away from it lose sight of it and their "
            "bias grows faster than the covariance falls. Diversity is not always good."
        ),
        "tab=diversity&noise=0.2&H=4",
    ),
    Preset(
        "shared-dims",
        N_("Share the signal, diversify the rest"),
        N_(
            "Each head keeps the signal's dimension and spends the others on private directions: low bias "
            "and low correlation at once."
        ),
        "tab=ensemble&geometry=shared_dims&shared_dims=1&d_k=4&H=8&target=sine",
    ),
    Preset(
        "softmax",
        N_("Softmax is not a local kernel"),
        N_(
            "Transformer softmax attention is NW with an exponential, non-local kernel: with large n its "
            "bias does not vanish, unlike the Gaussian kernel's."
        ),
        "tab=ensemble&kernel=softmax&n=4096&replicates=100&target=sine&theta=45",
    ),
    Preset(
        "training",
        N_("Does training find orthogonal heads?"),
        N_(
            "Gradient descent on the heads' projections, with no diversity penalty: the heads turn one direction "
            "each towards the signal, so the HDI falls while the held-out MSE falls threefold. Then raise the "
            "penalty λ to buy orthogonality and see what it costs (the paper's open problem 1)."
        ),
        "tab=training&trpen=0&trinit=random&target=sine&signal=shared",
    ),
    Preset(
        "budget",
        N_("Many small heads or few big ones?"),
        N_("A fixed budget D = H·d_k = 32: the Monte Carlo optimum beside the paper's closed form."),
        "tab=architecture&budget=32&replicates=100",
    ),
    Preset(
        "dependent-tokens",
        N_("Dependent tokens"),
        N_(
            "Training inputs as an AR(1) chain (open problem 3): as φ goes from 0 to 0.9 the n tokens carry less "
            "information, and the heads' variance and, even more, their covariance grow (mean correlation 0.10 at "
            "φ = 0, 0.20 at φ = 0.9 for 4 heads)."
        ),
        "tab=surfaces&dependence=ar1&sx=phi&sxv=0,0.3,0.6,0.8,0.9&sy=H&syv=2,4,8&sm=covariance&replicates=100",
    ),
    Preset(
        "covariance-noise",
        N_("Orthogonal heads still covary"),
        N_(
            "Lemma 4.1 says heads at 90° have zero covariance. With noise they still average the same y_i: "
            "their measured covariance is the shared noise σ²E[Σ w w′] ≈ σ²/n, where the lemma's bound is 0."
        ),
        "tab=covariance&target=constant&noise=1&n=64&H=4&replicates=200",
    ),
    Preset(
        "redundant-heads",
        N_("Which heads could be pruned?"),
        N_(
            "A trained layer's query heads clustered by their principal angles: the dendrogram shows which heads "
            "span nearly one subspace, and the heads whose removal costs the least diversity are the pruning candidates."
        ),
        "tab=models&layer=3&mheads=query",
    ),
)
