"""Break-even α, the one-draft speedup, and the speedup/best-γ tables, against plain loops."""

import math

import numpy as np
import pytest

from specdec.theory import (best_draft_lengths, break_even_acceptance_rate, optimal_gamma,
                            speedup_table, speedup_with_one_draft)


def plain_speedup(alpha, gamma, c):
    return sum(alpha ** k for k in range(gamma + 1)) / (1 + gamma / c)


@pytest.mark.parametrize("c", [1.5, 2, 5, 10, 20, 50])
def test_some_gamma_helps_exactly_above_one_over_c(c):
    threshold = break_even_acceptance_rate(c)
    assert threshold == pytest.approx(1 / c)
    for alpha in np.linspace(0, 1, 101):
        helps = any(plain_speedup(alpha, gamma, c) > 1 + 1e-12 for gamma in range(1, 60))
        assert helps == (alpha > threshold + 1e-12) or abs(alpha - threshold) < 1e-9


def test_one_draft_speedup_is_the_gamma_one_formula():
    for alpha in (0.0, 0.3, 0.8, 1.0):
        for c in (1, 4, 20, math.inf):
            assert speedup_with_one_draft(alpha, c) == pytest.approx((1 + alpha) / (1 + 1 / c))
            assert speedup_with_one_draft(alpha, c) == pytest.approx(plain_speedup(alpha, 1, c))


def test_free_draft_breaks_even_at_zero():
    assert break_even_acceptance_rate(math.inf) == 0.0


def test_table_and_best_lengths_match_plain_loops():
    alphas = [0.5, 0.6, 0.7, 0.8, 0.9]
    table = speedup_table(alphas, 20, max_gamma=15)
    assert table.shape == (5, 15)
    for row, alpha in zip(table, alphas):
        np.testing.assert_allclose(row, [plain_speedup(alpha, g, 20) for g in range(1, 16)])
    assert list(table.argmax(axis=1) + 1) == [3, 4, 6, 8, 13]
    assert list(best_draft_lengths(alphas, 20)) == [optimal_gamma(a, 20)[0] for a in alphas]


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="c must be > 0"):
        break_even_acceptance_rate(0)
    with pytest.raises(ValueError, match="alpha"):
        speedup_with_one_draft(1.5, 10)
    with pytest.raises(ValueError, match=r"alphas\[1\]"):
        speedup_table([0.5, 2.0], 10)
    with pytest.raises(ValueError, match="max_gamma"):
        best_draft_lengths([0.5], 10, max_gamma=0)


def test_a_table_of_one_column_is_the_one_draft_speedup():
    # max_gamma = 1 is the smallest allowed: one column, (1 + α) / (1 + 1/c), and γ = 1 is the only choice.
    table = speedup_table([0.5, 0.9], 20, max_gamma=1)
    np.testing.assert_allclose(table, [[1.5 / 1.05], [1.9 / 1.05]])
    assert best_draft_lengths([0.3, 0.9], 20, max_gamma=1).tolist() == [1, 1]
