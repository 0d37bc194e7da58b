"""Adaptive γ on text: the heuristic rule, reproducibility, fixed γ = speculative_generate, the oracle."""

import numpy as np
import pytest

from specdec.text import NGramModel, speculative_generate
from specdec.theory import optimal_gamma
from specdec.variants.adaptive_gamma import (
    compare_schedules,
    generate_with_schedule,
    heuristic_next_gamma,
    rolling_mean,
    stdlib_comparison,
)

TEXT = ("the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat. "
        "then the cat sat on the hat, and the rat sat on the cat. the cat ran to the rat and the hat. ") * 3


@pytest.fixture(scope="module")
def pair():
    return NGramModel(order=4).fit(TEXT), NGramModel(order=2).fit(TEXT)


def test_the_heuristic_adds_two_after_a_full_acceptance_and_removes_one_otherwise():
    assert heuristic_next_gamma(5, True) == 7
    assert heuristic_next_gamma(5, False) == 4
    assert heuristic_next_gamma(1, False) == 1
    assert heuristic_next_gamma(19, True, max_gamma=20) == 20


def test_the_heuristic_run_follows_its_rule_step_by_step(pair):
    target, draft = pair
    run = generate_with_schedule(target, draft, "the ", 400, "heuristic", np.random.default_rng(0), gamma=5)
    assert run.gammas[0] == 5
    for gamma, accepted, following in zip(run.gammas, run.accepted, run.gammas[1:]):
        assert following == (min(20, gamma + 2) if accepted == gamma else max(1, gamma - 1))
    assert run.draft_calls == sum(run.gammas) and run.target_calls == len(run.gammas)
    assert len(run.text) == 400 == sum(run.tokens_per_step)


def test_runs_are_reproducible_from_the_seed(pair):
    target, draft = pair
    for schedule in ("heuristic", "fixed", "oracle"):
        first = generate_with_schedule(target, draft, "the ", 300, schedule, np.random.default_rng(4), gamma=3)
        second = generate_with_schedule(target, draft, "the ", 300, schedule, np.random.default_rng(4), gamma=3)
        assert first == second


def test_the_fixed_schedule_is_speculative_generate(pair):
    target, draft = pair
    run = generate_with_schedule(target, draft, "the ", 300, "fixed", np.random.default_rng(1), gamma=4)
    plain = speculative_generate(target, draft, "the ", 300, 4, np.random.default_rng(1))
    assert run.text == plain.text and run.target_calls == plain.target_calls
    assert run.speedup(20) == pytest.approx(plain.speedup_from_calls(20))
    assert sum(run.accepted) == sum(plain.visited_accepted)


def test_the_heuristic_with_a_full_step_every_time_is_the_same_rule(pair):
    # With γ fixed by hand to what the heuristic chose, a fixed-γ loop makes the same first step.
    target, draft = pair
    heuristic = generate_with_schedule(target, draft, "the ", 50, "heuristic", np.random.default_rng(2), gamma=3)
    fixed = generate_with_schedule(target, draft, "the ", 50, "fixed", np.random.default_rng(2), gamma=3)
    first = heuristic.tokens_per_step[0]
    assert heuristic.text[:first] == fixed.text[:first]


def test_the_oracle_pays_only_for_accepted_draft_tokens(pair):
    target, draft = pair
    run = generate_with_schedule(target, draft, "the ", 400, "oracle", np.random.default_rng(3), max_gamma=12)
    assert run.gammas == run.accepted and run.draft_calls == sum(run.accepted)
    cut = len(run.tokens_per_step) - 1  # the last step may be cut to the requested length
    assert all(tokens == accepted + 1 for tokens, accepted in zip(run.tokens_per_step[:cut], run.accepted[:cut]))


def test_the_comparison_uses_theory_for_the_fixed_side_and_ranks_the_oracle_first(pair):
    target, draft = pair
    comparison = compare_schedules(target, draft, "the ", 1500, c=20, seed=0, fixed_gammas=range(1, 7))
    assert (comparison.theory_gamma, comparison.theory_speedup) == optimal_gamma(comparison.mean_alpha, 20)
    best = comparison.fixed[comparison.best_fixed_gamma].speedup(20)
    assert all(run.speedup(20) <= best for run in comparison.fixed.values())
    assert comparison.oracle.speedup(20) > best
    assert [row[0] for row in comparison.table()][-2:] == ["heuristic (+2 / −1)", "oracle"]


def test_rolling_mean_and_bad_arguments():
    np.testing.assert_allclose(rolling_mean([0, 1, 1, 0, 1], 3), [2 / 3, 2 / 3, 2 / 3])
    with pytest.raises(ValueError, match="window"):
        rolling_mean([1, 2], 3)
    target = NGramModel(order=2).fit("abcabc")
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="schedule must be one of"):
        generate_with_schedule(target, target, "a", 5, "constant", rng)
    with pytest.raises(ValueError, match="gamma"):
        generate_with_schedule(target, target, "a", 5, "heuristic", rng, gamma=0)
    with pytest.raises(TypeError, match="prompt"):
        generate_with_schedule(target, target, 3, 5, "oracle", rng)
    with pytest.raises(TypeError, match="draft"):
        generate_with_schedule(target, "model", "a", 5, "heuristic", rng)
    with pytest.raises(ValueError, match="c must be"):
        compare_schedules(target, target, "a", 5, c=0, seed=0)
    assert rng.bit_generator.state == before


def test_the_heuristic_accepts_a_cap_of_one():
    assert heuristic_next_gamma(1, True, max_gamma=1) == 1


@pytest.mark.parametrize("schedule", ["heuristic", "fixed", "oracle"])
@pytest.mark.parametrize("n_tokens", [1, 7, 23])
def test_every_run_stops_at_exactly_n_tokens_and_counts_characters_per_target_call(pair, schedule, n_tokens):
    target, draft = pair
    for seed in range(3):
        run = generate_with_schedule(target, draft, "the ", n_tokens, schedule, np.random.default_rng(seed), gamma=6)
        assert len(run.text) == n_tokens == sum(run.tokens_per_step) == len(run.origins)
        assert run.tokens_per_target_call == pytest.approx(n_tokens / run.target_calls)


def test_gamma_one_and_an_oracle_cap_of_one_are_allowed(pair):
    target, draft = pair
    run = generate_with_schedule(target, draft, "the ", 40, "fixed", np.random.default_rng(5), gamma=1)
    plain = speculative_generate(target, draft, "the ", 40, 1, np.random.default_rng(5))
    assert run.text == plain.text and set(run.gammas) == {1}
    oracle = generate_with_schedule(target, draft, "the ", 40, "oracle", np.random.default_rng(5), max_gamma=1)
    assert len(oracle.text) == 40 and all(g in (0, 1) for g in oracle.gammas)


def test_rolling_mean_at_the_edges_a_window_of_one_and_a_window_as_long_as_the_values():
    np.testing.assert_allclose(rolling_mean([3, 1, 2], 1), [3.0, 1.0, 2.0])
    np.testing.assert_allclose(rolling_mean([1, 2], 2), [1.5])  # as many values as the window: one mean


def test_a_comparison_of_zero_characters_has_no_alpha_and_falls_back_to_gamma_one(pair):
    target, draft = pair
    comparison = compare_schedules(target, draft, "the ", 0, c=20, seed=0, fixed_gammas=[1, 2])
    assert np.isnan(comparison.mean_alpha) and np.isnan(comparison.theory_speedup)
    assert comparison.theory_gamma == 1


def test_the_smallest_stdlib_corpus_allowed_is_1000_characters():
    comparison = stdlib_comparison(corpus_size=1_000, n_tokens=20, seed=0)
    assert len(comparison.heuristic.text) == 20
    with pytest.raises(ValueError, match="corpus_size"):
        stdlib_comparison(corpus_size=999)
