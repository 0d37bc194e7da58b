"""The two speedup-model figures draw exactly what specdec.theory computes."""

import numpy as np
import pytest

from specdec.plots.speedup_curves import (CURVE_STYLES, best_draft_length_against_alpha,
                                          speedup_against_draft_length)
from specdec.theory import speedup


def _curves(figure):
    return [line for line in figure.axes[0].get_lines() if not line.get_label().startswith("_")]


def test_speedup_curves_follow_the_formula_and_star_the_peak():
    alphas = [0.5, 0.6, 0.7, 0.8, 0.9]
    figure = speedup_against_draft_length(alphas, c=20, max_gamma=15)
    curves = _curves(figure)
    assert len(curves) == 5
    for alpha, curve in zip(alphas, curves):
        gammas, values = curve.get_data()
        assert list(gammas) == list(range(1, 16))
        np.testing.assert_allclose(values, [speedup(alpha, int(g), 20) for g in gammas])
    # The peaks the text names: near 3 at α = 0.5 and near 13 at α = 0.9.
    assert curves[0].get_label() == "α = 0.5 (best γ = 3)"
    assert curves[-1].get_label() == "α = 0.9 (best γ = 13)"
    stars = [line for line in figure.axes[0].get_lines() if line.get_marker() == "*"]
    assert [int(star.get_xdata()[0]) for star in stars] == [3, 4, 6, 8, 13]
    assert figure.axes[0].get_xlabel() and figure.axes[0].get_ylabel()


def test_best_gamma_steps_match_a_plain_search():
    figure = best_draft_length_against_alpha([10, 50], alphas=[0.6, 0.8, 0.9], max_gamma=40)
    for c, curve in zip([10, 50], _curves(figure)):
        alphas, best = curve.get_data()
        plain = [max(range(1, 41), key=lambda g: (speedup(a, g, c), -g)) for a in alphas]
        assert list(best) == plain
    assert figure.axes[0].get_xlabel() == "acceptance rate α"


def test_too_many_curves_is_refused():
    with pytest.raises(ValueError, match="between 1 and"):
        speedup_against_draft_length([0.5] * (len(CURVE_STYLES) + 1), c=20)
    with pytest.raises(ValueError, match="between 1 and"):
        best_draft_length_against_alpha([])
