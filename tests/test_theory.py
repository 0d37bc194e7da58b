"""Speedup, the best draft length, the token-count law, and the divergences."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec import theory

from .strategies import distribution_pairs, verify_inputs

# The table of best γ the notebooks teach: (α, c) -> (best γ, speedup rounded to 2 decimals).
SPEC_TABLE = [
    (0.6, 10, 3, 1.67), (0.6, 20, 4, 1.92), (0.6, 50, 6, 2.17),
    (0.7, 10, 4, 1.98), (0.7, 20, 6, 2.35), (0.7, 50, 8, 2.76),
    (0.8, 10, 6, 2.47), (0.8, 20, 8, 3.09), (0.8, 50, 11, 3.82),
    (0.9, 10, 10, 3.43), (0.9, 20, 13, 4.67), (0.9, 50, 19, 6.37),
]


@pytest.mark.parametrize("alpha, c, best, value", SPEC_TABLE)
def test_spec_speedup_table(alpha, c, best, value):
    gamma, speedup = specdec.optimal_gamma(alpha, c)
    assert (gamma, round(speedup, 2)) == (best, value)
    assert type(gamma) is int and type(speedup) is float
    assert speedup == specdec.speedup(alpha, gamma, c)


@pytest.mark.parametrize("alpha, gamma, value", [(0.6, 2, 1.96), (0.7, 3, 2.53), (0.8, 5, 3.69), (0.9, 10, 6.86)])
def test_leviathan_table_1_with_a_free_draft(alpha, gamma, value):
    # Their c' = 0 is our c = ∞: the draft costs nothing and the speedup is the expected tokens.
    assert round(specdec.speedup(alpha, gamma, math.inf), 2) == value


def test_optimal_gamma_prefers_the_smaller_gamma_on_a_tie():
    # At α = 1 with a free draft every extra token is pure gain, so the largest γ wins...
    assert specdec.optimal_gamma(1.0, math.inf, max_gamma=7) == (7, 8.0)
    # ...and at α = 0 with a free draft every γ yields exactly one token: a tie, won by γ = 1.
    assert specdec.optimal_gamma(0.0, math.inf) == (1, 1.0)


@given(st.floats(0.01, 1), st.floats(0.5, 200), st.integers(1, 30))
def test_optimal_gamma_is_the_argmax(alpha, c, max_gamma):
    best, value = specdec.optimal_gamma(alpha, c, max_gamma)
    speedups = [specdec.speedup(alpha, gamma, c) for gamma in range(1, max_gamma + 1)]
    assert value == max(speedups) and best == speedups.index(max(speedups)) + 1


@given(st.floats(0, 1), st.integers(0, 40))
def test_token_count_law_sums_to_one_and_has_the_expected_mean(alpha, gamma):
    law = specdec.token_count_distribution(alpha, gamma)
    assert law.shape == (gamma + 1,) and (law >= 0).all()
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    mean = float(np.arange(1, gamma + 2) @ law)
    assert mean == pytest.approx(specdec.expected_tokens(alpha, gamma), rel=1e-12, abs=1e-12)


def test_token_count_law_small_cases():
    np.testing.assert_allclose(specdec.token_count_distribution(0.5, 2), [0.5, 0.25, 0.25])
    np.testing.assert_array_equal(specdec.token_count_distribution(1.0, 3), [0, 0, 0, 1])
    np.testing.assert_array_equal(specdec.token_count_distribution(0.3, 0), [1.0])


@settings(max_examples=100, deadline=None)
@given(verify_inputs())
def test_per_position_quantities_for_given_rows(case):
    target, draft, _, _ = case
    rates = specdec.acceptance_rates(target, draft)
    assert rates.shape == (draft.shape[0],)
    for i, rate in enumerate(rates):
        assert rate == pytest.approx(specdec.acceptance_rate(target[i], draft[i]), abs=1e-15)
    law = specdec.token_count_distribution_for_rates(rates)
    assert law.sum() == pytest.approx(1.0)
    # Σₖ Πᵢ<ₖ αᵢ, written out as a plain double loop.
    expected = sum(math.prod(rates[:k]) for k in range(len(rates) + 1))
    assert specdec.expected_tokens_for_rates(rates) == pytest.approx(expected)
    assert float(np.arange(1, len(law) + 1) @ law) == pytest.approx(expected)


@given(st.floats(0, 1), st.integers(0, 12))
def test_constant_rates_reduce_to_the_closed_form(alpha, gamma):
    rates = [alpha] * gamma
    np.testing.assert_allclose(
        specdec.token_count_distribution_for_rates(rates), specdec.token_count_distribution(alpha, gamma), atol=1e-15
    )
    assert specdec.expected_tokens_for_rates(rates) == pytest.approx(specdec.expected_tokens(alpha, gamma))


@settings(max_examples=200)
@given(distribution_pairs())
def test_alpha_is_one_minus_total_variation(pair):
    p, q = pair
    assert specdec.acceptance_rate(p, q) == pytest.approx(1 - specdec.tv_distance(p, q), abs=1e-12)


@settings(max_examples=200)
@given(distribution_pairs())
def test_kl_is_nonnegative_zero_on_itself_and_infinite_off_support(pair):
    p, q = pair
    value = specdec.kl_divergence(p, q)
    assert value >= 0 and specdec.kl_divergence(p, p) == 0.0
    if ((q == 0) & (p > 0)).any():
        assert value == math.inf
    else:
        support = p > 0
        assert value == pytest.approx(float(np.sum(p[support] * np.log(p[support] / q[support]))), abs=1e-12)


def test_divergence_conventions_for_zeros():
    assert specdec.kl_divergence([0.5, 0.5, 0.0], [0.5, 0.25, 0.25]) == pytest.approx(0.5 * math.log(2))
    assert specdec.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert specdec.tv_distance([1.0, 0.0], [0.0, 1.0]) == 1.0


def test_speedup_is_tokens_over_cost():
    assert specdec.speedup(0.8, 4, 20) == pytest.approx(3.3616 / 1.2)
    assert specdec.speedup(0.5, 0, 10) == 1.0
    assert theory.DEFAULT_MAX_GAMMA == 20
