"""Goodness of fit: statistic and p-value against scipy, zero-probability categories, pooling, verdicts."""

import math

import numpy as np
import pytest
from scipy import stats

from specdec.goodness_of_fit import (
    check_steps,
    compare_samples,
    compare_steps,
    fit_counts,
    goodness_of_fit,
    max_deviation_by_size,
)
from specdec.narrate import spec_example
from specdec.sampling import sample_steps


def test_statistic_and_p_value_match_scipy_when_nothing_is_pooled():
    law = np.array([0.1, 0.2, 0.3, 0.4])
    samples = np.random.default_rng(0).choice(4, size=2_000, p=law)
    fit = goodness_of_fit(samples, law)
    reference = stats.chisquare(np.bincount(samples, minlength=4), 2_000 * law)
    assert fit.statistic == pytest.approx(reference.statistic)
    assert fit.p_value == pytest.approx(reference.pvalue)
    assert fit.degrees_of_freedom == 3 and fit.n == 2_000


def test_tv_is_half_the_l1_distance_of_frequencies():
    fit = fit_counts([6, 2, 2], [0.5, 0.25, 0.25])
    assert fit.tv == pytest.approx(0.5 * (0.1 + 0.05 + 0.05))


def test_a_sample_on_a_zero_probability_category_fails_at_once():
    samples = np.array([0] * 500 + [1] * 499 + [2])
    fit = goodness_of_fit(samples, [0.5, 0.5, 0.0])
    assert not fit.passed
    assert fit.impossible == 1 and fit.p_value == 0.0 and math.isinf(fit.statistic)
    assert "probability 0" in fit.verdict and "(token C)" in fit.verdict  # token 2, named as the series names it
    counted = fit_counts([500, 499, 1], [0.5, 0.5, 0.0], category="count")
    assert "(count 2)" in counted.verdict  # a count keeps its number


def test_zero_probability_categories_without_samples_are_left_out():
    fit = fit_counts([500, 500, 0], [0.5, 0.5, 0.0])
    assert fit.passed and fit.degrees_of_freedom == 1 and fit.statistic == 0.0


def test_rare_categories_are_pooled():
    law = np.array([0.4, 0.4, 0.1999, 0.0001])  # the last expected 0.1 times in 1,000 samples
    fit = fit_counts([400, 400, 199, 1], law)
    # Pooled: {0}, {1}, {2, 3} → 2 degrees of freedom, and one rare sample is not a failure.
    assert fit.degrees_of_freedom == 2 and fit.passed
    reference = stats.chisquare([400, 400, 200], [400, 400, 200])
    assert fit.statistic == pytest.approx(reference.statistic)


def test_nothing_to_test_with_too_few_samples():
    fit = fit_counts([2, 1], [0.5, 0.5])
    assert fit.degrees_of_freedom == 0 and fit.p_value == 1.0 and "nothing to test" in fit.verdict


def test_p_values_of_a_correct_sampler_are_uniform():
    rng = np.random.default_rng(3)
    law = np.array([0.05, 0.15, 0.3, 0.5])
    p_values = [goodness_of_fit(rng.choice(4, size=500, p=law), law).p_value for _ in range(300)]
    assert stats.kstest(p_values, "uniform").pvalue > 1e-3


def test_a_biased_sampler_fails_and_says_so():
    samples = np.random.default_rng(0).choice(3, size=100_000, p=[0.36, 0.32, 0.32])
    fit = goodness_of_fit(samples, [1 / 3, 1 / 3, 1 / 3])
    assert not fit.passed and fit.p_value < 1e-6
    assert fit.verdict.startswith("fails:") and "100,000" in fit.verdict
    assert goodness_of_fit(samples[:300], [1 / 3] * 3).verdict.startswith("passes:")


def test_typical_tv_matches_simulation():
    rng = np.random.default_rng(0)
    law = np.array([0.1, 0.2, 0.3, 0.4])
    tvs = [goodness_of_fit(rng.choice(4, size=5_000, p=law), law).tv for _ in range(200)]
    assert goodness_of_fit(rng.choice(4, size=5_000, p=law), law).typical_tv == pytest.approx(np.mean(tvs), rel=0.1)


@pytest.mark.parametrize(
    "samples, expected, error, words",
    [
        ([0, 1, 3], [0.5, 0.5, 0.0], ValueError, r"samples\[2\] = 3 is out of range: categories .* 0 … 2"),
        ([0, -1], [0.5, 0.5], ValueError, r"samples\[1\] = -1 .* 0 … 1"),
        ([0.5, 1.0], [0.5, 0.5], TypeError, "integer categories"),
        ([[0, 1]], [0.5, 0.5], ValueError, "1-D"),
        ([0, 1], [0.5, 0.6], ValueError, "expected must sum to 1"),
    ],
)
def test_bad_arguments(samples, expected, error, words):
    with pytest.raises(error, match=words):
        goodness_of_fit(samples, expected)


def test_significance_is_checked():
    with pytest.raises(ValueError, match="significance"):
        goodness_of_fit([0, 1], [0.5, 0.5], significance=0.0)
    with pytest.raises(ValueError, match="counts must have one entry per category"):
        fit_counts([1, 2, 3], [0.5, 0.5])


def test_compare_samples_matches_scipy_contingency():
    rng = np.random.default_rng(1)
    first, second = rng.choice(3, 3_000, p=[0.2, 0.3, 0.5]), rng.choice(3, 2_000, p=[0.3, 0.3, 0.4])
    result = compare_samples(first, second)
    table = np.array([np.bincount(first, minlength=3), np.bincount(second, minlength=3)])
    reference = stats.chi2_contingency(table, correction=False)
    assert result.statistic == pytest.approx(reference.statistic)
    assert result.p_value == pytest.approx(reference.pvalue)
    assert not result.passed


def test_compare_samples_handles_sparse_labels():
    result = compare_samples(np.array([10**12, 5] * 50), np.array([5, 10**12] * 60))
    assert result.passed and result.degrees_of_freedom == 1


def test_compare_steps_sees_a_difference_in_one_position_only():
    target_probs, draft_probs, _ = spec_example()
    first, _ = sample_steps(target_probs, draft_probs, 50_000, np.random.default_rng(0))
    second, _ = sample_steps(target_probs, draft_probs, 50_000, np.random.default_rng(1))
    assert compare_steps(first, second).passed
    shifted = second.copy()
    last = shifted[:, 2]
    last[(last == 0) & (np.arange(len(last)) % 4 == 0)] = 1  # move some bonus tokens from A to B
    assert not compare_steps(first, shifted).passed


def test_check_steps_reports_each_position_and_the_counts():
    target_probs, draft_probs, _ = spec_example()
    tokens, counts = sample_steps(target_probs, draft_probs, 20_000, np.random.default_rng(0))
    check = check_steps(tokens, counts, target_probs, draft_probs)
    assert len(check.positions) == 3 and check.passed
    assert check.positions[0].n == 20_000 and check.positions[1].n == int((counts >= 2).sum())
    assert check.counts.n == 20_000


def test_max_deviation_by_size_against_direct_computation():
    rng = np.random.default_rng(0)
    law = np.array([0.2, 0.5, 0.3])
    samples = rng.choice(3, size=10_000, p=law)
    sizes = [10_000, 10, 1_000, 100]
    direct = [np.abs(np.bincount(samples[:m], minlength=3) / m - law).max() for m in sizes]
    assert np.allclose(max_deviation_by_size(samples, law, sizes), direct)
    with pytest.raises(ValueError, match="sizes"):
        max_deviation_by_size(samples, law, [0])


def test_no_samples_means_nothing_to_test():
    fit = goodness_of_fit(np.array([], dtype=int), [0.5, 0.5])
    assert fit.n == 0 and fit.passed and math.isnan(fit.tv) and "no samples" in fit.verdict


def test_the_whole_check_fails_when_one_position_alone_is_wrong():
    target_probs, draft_probs, _ = spec_example()
    tokens, counts = sample_steps(target_probs, draft_probs, 200_000, np.random.default_rng(4))
    assert check_steps(tokens, counts, target_probs, draft_probs).passed
    relabelled = tokens.copy()  # tokens 0 and 1 swapped at position 1: the counts keep their law, p₁ does not
    reached = counts >= 2
    second = relabelled[reached, 1]
    relabelled[reached, 1] = np.where(second == 0, 1, np.where(second == 1, 0, second))
    check = check_steps(relabelled, counts, target_probs, draft_probs)
    assert check.counts.passed and check.positions[0].passed and not check.positions[1].passed
    assert not check.passed
