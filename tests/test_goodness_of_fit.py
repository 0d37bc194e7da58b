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
    format_p_value,
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


@pytest.mark.parametrize("significance", [0.0, 1.0])
def test_a_significance_of_zero_or_one_is_refused(significance):
    with pytest.raises(ValueError, match="significance must be strictly between 0 and 1"):
        fit_counts([50, 50], [0.5, 0.5], significance=significance)


def test_a_p_value_equal_to_the_significance_passes():
    first = fit_counts([60, 40], [0.5, 0.5])
    at = fit_counts([60, 40], [0.5, 0.5], significance=first.p_value)
    assert at.passed and at.verdict.startswith("passes:")


@pytest.mark.parametrize("counts, law, dof", [
    ([5, 15], [0.25, 0.75], 1),  # expected exactly 5 and 15: neither is pooled
    ([3, 2, 35], [0.0625, 0.0625, 0.875], 1),  # expected 2.5 + 2.5: a pool of exactly 5 stands on its own
    ([3, 2, 3, 32], [0.0625, 0.0625, 0.075, 0.8], 1),  # a pool of 2.5 + 2.5 + 3 = 8 stands on its own
    ([2, 1, 37], [0.05, 0.025, 0.925], 0),  # a pool of 3 joins the smallest other category: one bin left
])
def test_pooling_at_exactly_five_expected(counts, law, dof):
    fit = fit_counts(counts, law)
    assert fit.degrees_of_freedom == dof
    if dof == 0:
        assert fit.statistic == 0.0 and fit.p_value == 1.0


def test_nothing_to_test_reports_a_zero_statistic():
    for fit in (fit_counts([2, 1], [0.5, 0.5]), goodness_of_fit(np.array([], dtype=int), [0.5, 0.5])):
        assert fit.statistic == 0.0 and fit.degrees_of_freedom == 0 and fit.p_value == 1.0


def test_an_impossible_sample_reports_the_degrees_of_freedom_of_the_possible_ones():
    assert fit_counts([500, 499, 1], [0.5, 0.5, 0.0]).degrees_of_freedom == 1
    assert fit_counts([1, 0, 1], [0.5, 0.5, 0.0]).degrees_of_freedom == 0  # expected 1 and 1: one pool


def test_the_verdict_names_only_the_impossible_tokens_that_occurred_and_counts_right():
    fit = fit_counts([50, 0, 50, 2], [0.5, 0.0, 0.5, 0.0])
    assert "2 samples fell on a token of probability 0 (token D)" in fit.verdict
    fit = fit_counts([50, 1, 50, 1], [0.5, 0.0, 0.5, 0.0])
    assert "2 samples fell on tokens of probability 0 (tokens B, D)" in fit.verdict
    fit = fit_counts([10, 1, 1, 1, 1, 1, 1], [1.0] + [0.0] * 6)
    assert "(tokens B, C, D, E, F)" in fit.verdict  # the first five of six


def test_the_verdict_gives_the_degrees_of_freedom_and_the_odds():
    # χ² = 2·10²/50 = 4 on 1 degree of freedom: p = 0.0455, about once in 10 tries
    fit = fit_counts([60, 40], [0.5, 0.5], significance=0.1)
    assert "on 1 degree of freedom" in fit.verdict and "less than once in 10 tries" in fit.verdict
    assert "on 2 degrees of freedom" in fit_counts([40, 30, 30], [0.4, 0.3, 0.3]).verdict


def test_totals_up_to_two_to_the_53_are_counted_and_beyond_refused():
    assert fit_counts([2**52, 2**52], [0.5, 0.5]).n == 2**53
    with pytest.raises(ValueError, match="total at most 2"):
        fit_counts([2**52, 2**52 + 1], [0.5, 0.5])


def test_up_to_ten_thousand_sizes_and_a_single_sample():
    samples = np.zeros(10_001, dtype=int)
    assert max_deviation_by_size(samples, [1.0, 0.0], np.arange(1, 10_001)).max() == 0.0
    with pytest.raises(ValueError, match="at most 10,000"):
        max_deviation_by_size(samples, [1.0, 0.0], np.arange(1, 10_002))
    assert max_deviation_by_size([1], [0.5, 0.5], [1]).tolist() == [0.5]


def test_compare_samples_tv_typical_tv_and_size_by_hand():
    first = np.array([0] * 30 + [1] * 10)  # frequencies 0.75, 0.25 of 40
    second = np.array([0] * 6 + [1] * 14)  # 0.3, 0.7 of 20; pooled 0.6, 0.4
    result = compare_samples(first, second)
    assert result.n == 60
    assert result.tv == pytest.approx(0.45)
    assert result.typical_tv == pytest.approx(2 * math.sqrt(0.6 * 0.4 * (1 / 40 + 1 / 20) / (2 * math.pi)))


def test_compare_samples_of_one_category_has_nothing_to_test():
    result = compare_samples(np.array([3] * 10), np.array([3] * 20))
    assert result.statistic == 0.0 and result.degrees_of_freedom == 0 and result.p_value == 1.0 and result.passed
    assert compare_samples(np.array([0]), np.array([0, 1])).n == 3
    assert compare_samples(np.array([0, 1]), np.array([1])).n == 3


@pytest.mark.parametrize("first, second, error, words", [
    ([], [0, 1], ValueError, "at least one sample on each side"),
    ([0, 1], [], ValueError, "at least one sample on each side"),
    ([0.5, 1.5], [0, 1], TypeError, "1-D array of integer categories"),
    ([[0, 1]], [0, 1], TypeError, "1-D array of integer categories"),
])
def test_compare_samples_refuses_what_is_not_samples(first, second, error, words):
    with pytest.raises(error, match=words):
        compare_samples(first, second)


def test_compare_steps_refuses_what_is_not_steps():
    steps = np.zeros((3, 2), dtype=int)
    with pytest.raises(TypeError, match="2-D integer array"):
        compare_steps(np.zeros((3, 2)), steps)
    with pytest.raises(TypeError, match="2-D integer array"):
        compare_steps(np.zeros(3, dtype=int), steps)
    with pytest.raises(ValueError, match="same γ.1 columns, got 2 and 3"):
        compare_steps(steps, np.zeros((3, 3), dtype=int))


def test_check_steps_reads_counts_of_zero_and_refuses_tokens_out_of_range():
    target_probs, draft_probs, _ = spec_example()  # V = 4, γ = 2
    tokens = np.full((100, 3), -1)
    tokens[:, 0] = 0
    counts = np.ones(100, dtype=int)
    counts[0] = 0  # a step that emitted nothing: impossible, so the count check fails at once
    check = check_steps(tokens, counts, target_probs, draft_probs)
    assert check.counts.impossible == 1 and not check.counts.passed
    with pytest.raises(ValueError, match=r"tokens\[0, 0\] = 4 is out of range"):
        check_steps(np.where(np.arange(3) == 0, 4, -1)[None, :].repeat(2, 0), [1, 1], target_probs, draft_probs)
    with pytest.raises(ValueError, match="tokens has 2 rows and counts 1 entries"):
        check_steps(tokens[:2], [1], target_probs, draft_probs)


def test_p_values_from_0_001_up_have_three_decimals():
    assert format_p_value(0.001) == "0.001" and format_p_value(0.000999) == "1.0e-03"
