"""The multi-candidate rule: same tokens as a plain implementation, exact law p, acceptance against k."""

import numpy as np
import pytest

from specdec.goodness_of_fit import compare_samples, goodness_of_fit
from specdec.variants.multi_candidate import (
    acceptance_by_k,
    multi_candidate_law,
    sample_candidates,
    sample_multi_candidate,
    trace_multi_candidate,
)
from tests import reference_variants as reference
from tests.loop_variants import multi_candidate_step

EXAMPLE = ([0.6, 0.2, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7])
SPEC_ROW = ([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])


def random_pair(rng, vocab):
    p = rng.dirichlet(np.full(vocab, 0.6))
    q = rng.dirichlet(np.full(vocab, 0.6))
    p[rng.random(vocab) < 0.2] = 0.0  # some tokens impossible under p
    if p.sum() == 0:
        p[0] = 1.0
    return p / p.sum(), q


def test_the_step_makes_the_same_draws_and_tokens_as_a_plain_implementation():
    rows = np.random.default_rng(11)
    for case in range(300):
        vocab = int(rows.integers(2, 7))
        p, q = random_pair(rows, vocab)
        k = int(rows.integers(1, 5))
        candidates = [int(x) for x in rows.choice(vocab, size=k, p=q)]
        ours, theirs = np.random.default_rng(case), np.random.default_rng(case)
        assert multi_candidate_step(p, q, candidates, ours) == reference.multi_candidate(p, q, candidates, theirs)
        assert ours.bit_generator.state == theirs.bit_generator.state


def test_the_trace_emits_the_step_token_and_records_each_tried_candidate():
    p, q = EXAMPLE
    for seed in range(50):
        candidates = sample_candidates(q, 3, np.random.default_rng(seed))
        token = multi_candidate_step(p, q, candidates, np.random.default_rng(seed + 1000))
        trace = trace_multi_candidate(p, q, candidates, np.random.default_rng(seed + 1000))
        assert trace.token == token
        assert [t.token for t in trace.tried] == candidates[: len(trace.tried)]
        assert all(not t.accepted for t in trace.tried[:-1])
        np.testing.assert_allclose(trace.tried[0].residual, p)
        for t in trace.tried:
            assert t.accepted == (t.uniform < t.acceptance_probability)
            assert t.acceptance_probability == pytest.approx(min(1.0, t.residual_prob / t.draft_prob))
        if trace.accepted_index is None:
            assert trace.final_residual is not None and len(trace.tried) == 3
        else:
            assert trace.token == candidates[trace.accepted_index]


def test_sample_candidates_draws_k_tokens_from_q_with_rng_choice():
    q = [0.1, 0.0, 0.5, 0.4]
    rng, plain = np.random.default_rng(5), np.random.default_rng(5)
    assert sample_candidates(q, 6, rng) == [int(plain.choice(4, p=q)) for _ in range(6)]
    assert sample_candidates(q, 1, rng) == [int(plain.choice(4, p=q))]  # a single candidate is allowed


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_the_exact_law_is_p_and_matches_a_sum_over_every_candidate_list(k):
    rows = np.random.default_rng(k)
    for _ in range(20):
        p, q = random_pair(rows, int(rows.integers(2, 6)))
        law = multi_candidate_law(p, q, k)
        np.testing.assert_allclose(law.total, p, atol=1e-12)
        np.testing.assert_allclose(law.total, reference.multi_candidate_law(list(p), list(q), k), atol=1e-12)
        assert law.any_accepted == pytest.approx(reference.acceptance_probability(list(p), list(q), k), abs=1e-12)
        assert law.outcome_law.sum() == pytest.approx(1.0)


def test_acceptance_grows_with_k_and_is_one_minus_the_product_of_misses():
    p, q = EXAMPLE
    rates = acceptance_by_k(p, q, 6)
    assert np.all(np.diff(rates) >= 0)
    np.testing.assert_allclose(rates[:3], [0.3, 0.51, 0.619], atol=5e-4)
    stages = multi_candidate_law(p, q, 6).stage_rates
    np.testing.assert_allclose(rates, 1 - np.cumprod(1 - stages))


@pytest.mark.parametrize("k", [1, 2, 4])
def test_a_million_vectorised_steps_pass_the_chi_square_check_against_p_and_the_outcome_law(k):
    p, q = EXAMPLE
    tokens, outcomes = sample_multi_candidate(p, q, k, 1_000_000, np.random.default_rng(100 + k))
    assert goodness_of_fit(tokens, p).passed
    assert goodness_of_fit(outcomes, multi_candidate_law(p, q, k).outcome_law, category="outcome").passed


def test_the_vectorised_sampler_has_the_law_of_the_step_loop():
    p, q = SPEC_ROW
    rng = np.random.default_rng(3)
    loop = []
    for _ in range(20_000):
        loop.append(multi_candidate_step(p, q, sample_candidates(q, 3, rng), rng))
    vectorised, _ = sample_multi_candidate(p, q, 3, 20_000, np.random.default_rng(4))
    assert compare_samples(np.array(loop), vectorised).passed
    assert goodness_of_fit(np.array(loop), p).passed


BAD_ROWS = [
    ([0.5, np.nan, 0.5], "NaN"),
    ([0.5, np.inf, 0.5], "inf"),
    ([0.5, -0.1, 0.6], "negative"),
    ([0.5, 0.3, 0.3], "sum to 1"),
    ([0.5 + 0j, 0.5, 0.0], "complex"),
]


@pytest.mark.parametrize("bad, words", BAD_ROWS)
def test_bad_rows_are_refused_before_any_draw(bad, words):
    good = [0.4, 0.3, 0.3]
    for target, draft, name in ((bad, good, "target"), (good, bad, "draft")):
        rng = np.random.default_rng(0)
        before = rng.bit_generator.state
        with pytest.raises((ValueError, TypeError)) as error:
            multi_candidate_step(target, draft, [0, 2], rng)
        assert name in str(error.value) and words.split()[0] in str(error.value)
        assert rng.bit_generator.state == before


@pytest.mark.parametrize("candidates, error, words", [
    ([], ValueError, "at least one"),
    ([0, 5], ValueError, "out of range"),
    ([4, 0], ValueError, r"candidates\[0\] = 4 is out of range: token ids must be in 0 … 3 \(V = 4\)"),  # x = V
    ([0, 3], ValueError, "draft probability 0"),
    ([0, 1.5], TypeError, "integer"),
    ("01", TypeError, "sequence"),
])
def test_bad_candidates_are_refused_before_any_draw(candidates, error, words):
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(error, match=words):
        multi_candidate_step([0.4, 0.3, 0.3, 0.0], [0.5, 0.25, 0.25, 0.0], candidates, rng)
    assert rng.bit_generator.state == before


def test_arguments_are_not_modified_and_k_and_rng_are_checked():
    p, q, candidates = np.array(EXAMPLE[0]), np.array(EXAMPLE[1]), [3, 0]
    copies = p.copy(), q.copy(), list(candidates)
    trace_multi_candidate(p, q, candidates, np.random.default_rng(0))
    np.testing.assert_array_equal(p, copies[0])
    np.testing.assert_array_equal(q, copies[1])
    assert candidates == copies[2]
    with pytest.raises(ValueError, match="k must be"):
        multi_candidate_law(p, q, 0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        multi_candidate_step(p, q, candidates, 0)
    with pytest.raises(ValueError, match="same vocabulary"):
        sample_multi_candidate(p, [0.5, 0.5], 2, 10, np.random.default_rng(0))
