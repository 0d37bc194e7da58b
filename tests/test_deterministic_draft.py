"""The deterministic-draft rule: exact by its law, by chi-square, and draw for draw the general rule on δₓ."""

import numpy as np
import pytest

import specdec
from specdec import broken_rules
from specdec.deterministic_draft import (
    deterministic_acceptance_rates,
    deterministic_draft_step,
    deterministic_draft_step_via_one_hot,
    deterministic_position_law,
    deterministic_position_laws,
    deterministic_residual,
    greedy_tokens,
    one_hot_rows,
    sample_deterministic_steps,
)
from specdec.goodness_of_fit import check_steps
from specdec.sampling import MAX_SAMPLED_TOKENS
from specdec.theory import token_count_distribution_for_rates

ROWS = np.array([[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]])
DRAFT = np.array([[0.25, 0.25, 0.25, 0.25], [0.4, 0.2, 0.2, 0.2]])


def random_rows(rng, gamma, vocab):
    target = rng.dirichlet(np.full(vocab, 0.4), size=gamma + 1)
    draft = rng.dirichlet(np.full(vocab, 0.4), size=gamma)
    return target, draft


# The exact law, term by term.

@pytest.mark.parametrize("seed", range(20))
def test_the_output_law_is_p_at_every_position(seed):
    rng = np.random.default_rng(seed)
    target, draft = random_rows(rng, 3, 6)
    tokens = greedy_tokens(draft)
    for i, law in enumerate(deterministic_position_laws(target, tokens)):
        x = tokens[i]
        assert law.acceptance_rate == pytest.approx(target[i, x], abs=1e-15)
        expected_accepted = np.zeros(6)
        expected_accepted[x] = target[i, x]
        np.testing.assert_allclose(law.accepted, expected_accepted, atol=1e-15)
        expected_resampled = target[i].copy()
        expected_resampled[x] = 0.0
        np.testing.assert_allclose(law.resampled, expected_resampled, atol=1e-15)
        np.testing.assert_allclose(law.total, target[i], atol=1e-15)
    rates = deterministic_acceptance_rates(target, tokens)
    assert rates.tolist() == [target[i, x] for i, x in enumerate(tokens)]


def test_the_residual_is_p_without_the_proposed_token():
    np.testing.assert_allclose(deterministic_residual([0.5, 0.3, 0.2], 0), [0.0, 0.6, 0.4])
    np.testing.assert_allclose(deterministic_residual([0.5, 0.3, 0.2], 2), [0.625, 0.375, 0.0])
    # p(x) = 1: the rule never rejects; the residual falls back to p itself.
    np.testing.assert_allclose(deterministic_residual([0.0, 1.0, 0.0], 1), [0.0, 1.0, 0.0])
    assert deterministic_position_law([0.0, 1.0, 0.0], 1).acceptance_rate == 1.0


def test_one_hot_rows_and_greedy_tokens():
    np.testing.assert_array_equal(one_hot_rows([1, 0, 1], 2), [[0, 1], [1, 0], [0, 1]])
    assert one_hot_rows([], 3).shape == (0, 3)
    assert greedy_tokens([[0.3, 0.3, 0.4], [0.5, 0.5, 0.0]]) == [2, 0]  # the first one on a tie


# Draw for draw: the general rule with q = δₓ, and the "broken" rule that accepts with p(x).

@pytest.mark.parametrize("seed", range(200))
def test_the_rule_is_the_general_rule_on_one_hot_rows_draw_for_draw(seed):
    rng = np.random.default_rng(1000 + seed)
    gamma, vocab = int(rng.integers(0, 6)), int(rng.integers(2, 9))
    target, draft = random_rows(rng, gamma, vocab)
    tokens = greedy_tokens(draft) if seed % 2 else [int(t) for t in rng.integers(0, vocab, gamma)]
    first, second = np.random.default_rng(seed), np.random.default_rng(seed)
    assert deterministic_draft_step(target, tokens, first) == specdec.speculative_step(
        target, one_hot_rows(tokens, vocab), tokens, second)
    assert first.random() == second.random()  # and the generators are left in the same state
    assert deterministic_draft_step_via_one_hot(target, tokens, np.random.default_rng(seed)) == \
        deterministic_draft_step(target, tokens, np.random.default_rng(seed))


@pytest.mark.parametrize("seed", range(100))
def test_accepting_with_p_of_x_is_the_right_rule_when_the_draft_is_deterministic(seed):
    # `accept_with_target_probability` is a bug for a sampled draft, and exactly this rule for δₓ.
    rng = np.random.default_rng(seed)
    target, draft = random_rows(rng, 3, 5)
    tokens = greedy_tokens(draft)
    assert broken_rules.accept_with_target_probability(
        target, one_hot_rows(tokens, 5), tokens, np.random.default_rng(seed)) == deterministic_draft_step(
        target, tokens, np.random.default_rng(seed))


# Sampled: the chi-square test of every position and of the token counts.

@pytest.mark.parametrize("tokens", [[0, 1], [1, 1], [3, 0], [2, 3]])
def test_sampled_steps_pass_the_chi_square_test(tokens):
    drawn, counts = sample_deterministic_steps(ROWS, tokens, 200_000, np.random.default_rng(7))
    check = check_steps(drawn, counts, ROWS, one_hot_rows(tokens, 4))
    assert check.passed, [fit.verdict for fit in check.positions] + [check.counts.verdict]
    rates = [ROWS[i, x] for i, x in enumerate(tokens)]
    law = token_count_distribution_for_rates(rates)
    frequencies = np.bincount(counts, minlength=4)[1:] / counts.size
    np.testing.assert_allclose(frequencies, law, atol=0.005)


def test_the_loop_passes_the_same_test():
    rng = np.random.default_rng(3)
    steps = [deterministic_draft_step(ROWS, [0, 1], rng) for _ in range(30_000)]
    tokens = np.full((len(steps), 3), -1)
    for row, step in zip(tokens, steps):
        row[: len(step)] = step
    counts = np.array([len(step) for step in steps])
    assert check_steps(tokens, counts, ROWS, one_hot_rows([0, 1], 4)).passed


def test_the_two_half_way_mistakes_fail_the_same_test():
    # A sampled draft accepted with p(x) (q dropped), and an argmax draft with the softmax q kept in
    # the ratio: both biased on the series' example rows.
    for name in ("accept_with_target_probability", "greedy_draft"):
        rule = broken_rules.BROKEN_RULES[name]
        drawn, counts = rule.sample_steps(ROWS, DRAFT, 200_000, np.random.default_rng(11))
        assert not check_steps(drawn, counts, ROWS, DRAFT).passed, name


def test_a_token_of_target_probability_zero_is_never_kept():
    rng = np.random.default_rng(5)
    target = np.array([[0.0, 0.7, 0.3], [0.2, 0.3, 0.5]])
    outputs = [deterministic_draft_step(target, [0], rng) for _ in range(2_000)]
    assert all(step[0] != 0 for step in outputs) and all(len(step) == 1 for step in outputs)


# Bad input: refused before any draw, inputs never modified.

@pytest.mark.parametrize("target, tokens, error, words", [
    (ROWS, [0], ValueError,
     "draft_tokens must hold one token per draft position, γ = 2 (one fewer than the 3 rows of target_probs), got 1"),
    (ROWS, [0, 4], ValueError, "draft_tokens[1] must be a token id in 0 … 3, got 4"),
    (ROWS, [0, -1], ValueError, "draft_tokens[1] must be a token id in 0 … 3, got -1"),
    (ROWS, [0, 1.5], TypeError, "draft_tokens"),
    (ROWS, "01", TypeError, "draft_tokens"),
    ([[0.5, 0.6], [0.5, 0.5]], [0], ValueError, "target_probs"),
    ([], [], ValueError, "target_probs must have at least one row"),
    (np.empty((0, 3)), [], ValueError, "target_probs must have at least one row"),  # no rows, but V = 3
])
def test_bad_input_is_refused_before_any_draw(target, tokens, error, words):
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(error) as caught:
        deterministic_draft_step(target, tokens, rng)
    assert words in str(caught.value)
    assert rng.bit_generator.state == before
    with pytest.raises(error):
        sample_deterministic_steps(target, tokens, 10, rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        deterministic_draft_step(ROWS, [0, 1], 0)
    with pytest.raises(ValueError, match=r"draft_tokens\[0\] = 2 is out of range: token ids must be in 0 … 1"):
        one_hot_rows([2], 2)


def test_inputs_are_not_modified():
    target, tokens = ROWS.copy(), [0, 1]
    deterministic_draft_step(target, tokens, np.random.default_rng(0))
    deterministic_position_laws(target, tokens)
    sample_deterministic_steps(target, tokens, 100, np.random.default_rng(0))
    assert np.array_equal(target, ROWS) and tokens == [0, 1]


def test_a_uniform_equal_to_p_of_x_rejects():
    # The comparison is the strict u < p(x): at p(x) = 0 even u = 0 rejects, and u = p(x) = 0.5 rejects too.
    assert deterministic_draft_step([[0.0, 1.0], [0.5, 0.5]], [0], broken_rules.rigged_generator(0.0)) == [1]
    assert deterministic_draft_step([[0.5, 0.5], [0.5, 0.5]], [0], broken_rules.rigged_generator(0.5)) == [1]


def test_zero_steps_and_a_vocabulary_of_one_token():
    tokens, counts = sample_deterministic_steps(ROWS, [0, 1], 0, np.random.default_rng(0))
    assert tokens.shape == (0, 3) and counts.shape == (0,)
    # V = 1: the only token has p = 1, so every proposal is kept and every step emits γ + 1 tokens.
    np.testing.assert_array_equal(one_hot_rows([0, 0], 1), [[1.0], [1.0]])
    tokens, counts = sample_deterministic_steps([[1.0], [1.0]], [0], 5, np.random.default_rng(0))
    assert tokens.tolist() == [[0, 0]] * 5 and counts.tolist() == [2] * 5


def test_the_largest_n_is_counted_in_tokens_per_step():
    # At most MAX_SAMPLED_TOKENS tokens: n·(γ+1) with γ+1 = 3 rows, whatever V (4 here) is.
    limit = MAX_SAMPLED_TOKENS // 3
    with pytest.raises(ValueError, match=f"n must be an integer in 0 … {limit:,}, got {limit + 1:,}"):
        sample_deterministic_steps(ROWS, [0, 1], limit + 1, np.random.default_rng(0))
