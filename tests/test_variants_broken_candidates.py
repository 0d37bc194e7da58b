"""The two broken multi-candidate rules: exact (wrong) laws, samplers, and the check that catches them."""

import numpy as np
import pytest

from specdec.goodness_of_fit import goodness_of_fit
from specdec.theory import tv_distance
from specdec.variants.broken_candidates import BROKEN_CANDIDATE_RULES, stale_residual_law, without_replacement_law
from specdec.variants.multi_candidate import distinct_candidate_law, distinct_candidate_step, sample_candidates
from tests import reference_variants as reference
from tests.loop_variants import multi_candidate_step, sample_candidates_without_replacement, stale_residual_step

EXAMPLE = ([0.6, 0.2, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7])

#: The sample size at which the notebook's check catches each rule on EXAMPLE with k = 2, and the
#: largest p-value it may show there.
DETECTION = {"stale residual": (2_000, 1e-6), "without replacement": (2_000, 1e-6)}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_laws_match_a_sum_over_every_candidate_list(k):
    rows = np.random.default_rng(k)
    for _ in range(15):
        vocab = int(rows.integers(3, 6))
        p, q = rows.dirichlet(np.ones(vocab)), rows.dirichlet(np.ones(vocab))
        np.testing.assert_allclose(stale_residual_law(p, q, k), reference.multi_candidate_law(list(p), list(q), k, stale=True), atol=1e-12)
        np.testing.assert_allclose(without_replacement_law(p, q, k), reference.without_replacement_law(list(p), list(q), k), atol=1e-12)


def test_both_are_exact_for_one_candidate_and_biased_for_two():
    p, q = EXAMPLE
    for rule in BROKEN_CANDIDATE_RULES.values():
        np.testing.assert_allclose(rule.law(p, q, 1), p, atol=1e-12)
        assert tv_distance(rule.law(p, q, 2), p) > 0.05
    np.testing.assert_allclose(stale_residual_law(p, q, 2), [0.52, 0.24, 0.24, 0.0], atol=1e-12)
    np.testing.assert_allclose(without_replacement_law(p, q, 2), [1 / 3, 1 / 3, 1 / 3, 0.0], atol=1e-12)



@pytest.mark.parametrize("k", [2, 3, 5])
def test_the_stale_law_is_p_for_several_candidates_only_when_the_overlap_is_proportional_to_p(k):
    target = np.array([0.5, 0.5, 0.0, 0.0])
    proportional = np.array([0.25, 0.25, 0.5, 0.0])  # min(p, q) = 0.5·p, α = 0.5
    skewed = np.array([0.4, 0.1, 0.5, 0.0])  # min(p, q) = (0.4, 0.1): not proportional to p
    np.testing.assert_allclose(stale_residual_law(target, proportional, k), target, atol=1e-15)
    assert tv_distance(stale_residual_law(target, skewed, k), target) > 0.05

@pytest.mark.parametrize("name", sorted(BROKEN_CANDIDATE_RULES))
def test_each_sampler_follows_its_own_law(name):
    rule = BROKEN_CANDIDATE_RULES[name]
    p, q = EXAMPLE
    tokens = rule.sample(p, q, 2, 300_000, np.random.default_rng(7))
    assert goodness_of_fit(tokens, rule.law(p, q, 2)).passed


@pytest.mark.parametrize("name", sorted(BROKEN_CANDIDATE_RULES))
def test_the_check_catches_each_rule_at_the_stated_sample_size(name):
    n, largest_p_value = DETECTION[name]
    p, q = EXAMPLE
    tokens = BROKEN_CANDIDATE_RULES[name].sample(p, q, 2, n, np.random.default_rng(2024))
    fit = goodness_of_fit(tokens, p)
    assert not fit.passed and fit.p_value < largest_p_value


def test_the_step_functions_follow_the_vectorised_laws():
    p, q = EXAMPLE
    rng = np.random.default_rng(9)
    stale = [stale_residual_step(p, q, sample_candidates(q, 2, rng), rng) for _ in range(20_000)]
    assert goodness_of_fit(np.array(stale), stale_residual_law(p, q, 2)).passed
    distinct = [multi_candidate_step(p, q, sample_candidates_without_replacement(q, 2, rng), rng) for _ in range(20_000)]
    assert goodness_of_fit(np.array(distinct), without_replacement_law(p, q, 2)).passed


def test_the_stale_step_draws_like_the_correct_one_until_its_mistake_matters():
    p, q = EXAMPLE
    # With one candidate the residual is never updated anyway: same draws, same token.
    for seed in range(100):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        assert stale_residual_step(p, q, [seed % 4], a) == multi_candidate_step(p, q, [seed % 4], b)
        assert a.bit_generator.state == b.bit_generator.state


def test_bad_input_is_refused_before_any_draw():
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="k must be at most"):
        sample_candidates_without_replacement([0.5, 0.5, 0.0], 3, rng)
    with pytest.raises(ValueError, match="target"):
        stale_residual_step([0.5, np.nan], [0.5, 0.5], [0], rng)
    with pytest.raises(ValueError, match="candidates"):
        stale_residual_step([0.5, 0.5], [1.0, 0.0], [1], rng)
    with pytest.raises(ValueError, match="k must be at most"):
        BROKEN_CANDIDATE_RULES["without replacement"].sample([0.5, 0.5, 0.0], [0.5, 0.5, 0.0], 3, 10, rng)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("k", [1, 2, 3])
def test_testing_distinct_candidates_against_the_law_they_were_drawn_from_is_exact(k):
    rows = np.random.default_rng(20 + k)
    for _ in range(20):
        vocab = int(rows.integers(3, 6))
        p, q = rows.dirichlet(np.ones(vocab)), rows.dirichlet(np.ones(vocab))
        np.testing.assert_allclose(distinct_candidate_law(p, q, k), p, atol=1e-12)
    p, q = EXAMPLE
    rng = np.random.default_rng(12)
    tokens = [distinct_candidate_step(p, q, sample_candidates_without_replacement(q, k, rng), rng)
              for _ in range(20_000)]
    assert goodness_of_fit(np.array(tokens), p).passed


def test_the_distinct_rule_refuses_repeated_candidates_before_any_draw():
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="distinct"):
        distinct_candidate_step(*EXAMPLE, [3, 3], rng)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("k", [2, 3])
def test_the_without_replacement_sampler_follows_its_law_when_every_stage_matters(k):
    # Unlike EXAMPLE, no stage accepts everything it sees and q has no zero: the stage-j acceptance,
    # the last residual and the law of the candidates all change the output.
    p, q = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]
    tokens = BROKEN_CANDIDATE_RULES["without replacement"].sample(p, q, k, 200_000, np.random.default_rng(31))
    assert goodness_of_fit(tokens, without_replacement_law(p, q, k)).passed
