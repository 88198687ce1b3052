"""Every categorical palette is told apart by readers with the three common colour-vision deficiencies, and
every chart stroke stands out from the white plot (WCAG 1.4.11).

The measure: each colour is seen as Machado, Oliveira and Fernandes (2009) simulate full-severity
protanopia, deuteranopia and tritanopia (their matrices, on linear sRGB), and two colours that share a chart
must stay at least `MIN_DELTA_E` apart in CIELAB (ΔE*ab, CIE 1976, D65) under each of them and under normal
vision. 15 is about where thin lines and small legend swatches remain distinct at a glance.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from headdiv.figures import theme

MIN_DELTA_E = 15.0
MIN_STROKE_CONTRAST = 3.0

MACHADO = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
D65 = np.array([0.95047, 1.0, 1.08883])

PALETTES = {
    # what one chart may draw side by side
    "heads with the truth and the ensemble": [*theme.HEAD_COLORS, theme.TRUTH_COLOR, theme.ENSEMBLE_COLOR],
    "bias-variance-covariance with the theory and the best": [
        *theme.COMPONENT_COLORS.values(),
        theme.THEORY_COLOR,
        theme.BEST_COLOR,
    ],
}


def linear_rgb(colour: str) -> np.ndarray:
    c = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(linear: np.ndarray) -> np.ndarray:
    xyz = SRGB_TO_XYZ @ np.clip(linear, 0.0, 1.0) / D65
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen_apart(a: str, b: str) -> dict[str, float]:
    """ΔE*ab between two colours as each kind of vision sees them."""
    return {k: float(np.linalg.norm(lab(m @ linear_rgb(a)) - lab(m @ linear_rgb(b)))) for k, m in MACHADO.items()}


def contrast_with_white(colour: str) -> float:
    return 1.05 / (float(linear_rgb(colour) @ np.array([0.2126, 0.7152, 0.0722])) + 0.05)


@pytest.mark.parametrize("name", list(PALETTES))
def test_a_palettes_colours_stay_apart_for_every_common_colour_vision(name: str) -> None:
    close = [
        (a, b, vision, round(d, 1))
        for a, b in itertools.combinations(PALETTES[name], 2)
        for vision, d in seen_apart(a, b).items()
        if d < MIN_DELTA_E
    ]
    assert close == []


def test_the_measure_tells_a_palette_that_is_not_safe() -> None:
    """Red and green of equal lightness, the classic confusion, fall together under deuteranopia."""
    apart = seen_apart("#d62728", "#2ca02c")
    assert apart["normal"] > 50 and apart["deuteranopia"] < MIN_DELTA_E


@pytest.mark.parametrize("colour", [*theme.HEAD_COLORS, *theme.COMPONENT_COLORS.values(), theme.THEORY_COLOR])
def test_every_stroke_has_3_to_1_contrast_on_the_white_plot(colour: str) -> None:
    assert contrast_with_white(colour) >= MIN_STROKE_CONTRAST


def test_heads_past_the_palette_change_their_dash_not_only_their_colour() -> None:
    n = len(theme.HEAD_COLORS)
    assert theme.head_color(0) == theme.head_color(n) and theme.head_dash(0) != theme.head_dash(n)
