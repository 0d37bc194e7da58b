"""sample_steps: shapes, argument checks, memory, and the law of every position and of the counts."""

import tracemalloc

import numpy as np
import pytest

import specdec.sampling as sampling
from specdec import sample_draft, speculative_step
from specdec.goodness_of_fit import check_steps, compare_steps, goodness_of_fit
from specdec.output_law import position_tokens, token_count_law
from specdec.narrate import random_rows, spec_example
from specdec.sampling import sample_steps

# (γ, V, closeness, seed): short and long drafts, tiny and large vocabularies, far and close drafts.
RANDOM_CASES = [(0, 5, 0.5, 1), (1, 2, 0.3, 2), (3, 200, 0.2, 3), (4, 64, 0.5, 4), (8, 10, 0.8, 5)]


def spec_rows():
    target_probs, draft_probs, _ = spec_example()
    return target_probs, draft_probs


def test_shapes_dtypes_and_padding():
    target_probs, draft_probs = random_rows(3, 7, 0.5, np.random.default_rng(0))
    tokens, counts = sample_steps(target_probs, draft_probs, 10_000, np.random.default_rng(1))
    assert tokens.shape == (10_000, 4) and counts.shape == (10_000,)
    assert np.issubdtype(tokens.dtype, np.integer) and np.issubdtype(counts.dtype, np.integer)
    assert counts.min() >= 1 and counts.max() <= 4
    emitted = np.arange(4) < counts[:, None]
    assert np.all(tokens[emitted] >= 0) and np.all(tokens[emitted] < 7)
    assert np.all(tokens[~emitted] == -1)


def test_accepted_draft_tokens_were_possible_under_q_and_zero_probability_tokens_never_appear():
    target_probs, draft_probs = spec_rows()
    draft_probs = np.array([[0.5, 0.5, 0.0, 0.0], [0.0, 0.2, 0.4, 0.4]])
    tokens, counts = sample_steps(target_probs, draft_probs, 50_000, np.random.default_rng(0))
    for i in range(3):
        at_i = position_tokens(tokens, counts, i)
        assert np.all(target_probs[i, at_i] > 0), f"position {i} emitted a token of probability 0"
    accepted_first = tokens[counts >= 2, 0]  # position 0 was accepted, so it was drafted from q₀
    assert np.all(draft_probs[0, accepted_first] > 0)


def test_zero_steps_and_gamma_zero():
    target_probs, draft_probs = spec_rows()
    tokens, counts = sample_steps(target_probs, draft_probs, 0, np.random.default_rng(0))
    assert tokens.shape == (0, 3) and counts.shape == (0,)
    tokens, counts = sample_steps([[0.2, 0.8]], [], 20_000, np.random.default_rng(0))
    assert tokens.shape == (20_000, 1) and np.all(counts == 1)
    assert goodness_of_fit(tokens[:, 0], [0.2, 0.8]).passed


@pytest.mark.parametrize(
    "arguments, error, words",
    [
        ((spec_rows()[0], spec_rows()[1], -1), ValueError, "n must be an integer in 0 … "),
        ((spec_rows()[0], spec_rows()[1], 2.5), TypeError, "n must be an integer"),
        ((spec_rows()[0], spec_rows()[1], True), TypeError, "n must be an integer"),
        ((spec_rows()[0], spec_rows()[1][:1], 10), ValueError, "one row more"),
        ((spec_rows()[0], [[0.5, 0.6, 0.0, 0.0], [0.25] * 4], 10), ValueError, "draft_probs"),
        (([[0.5, 0.5, np.nan, 0.0]] * 3, spec_rows()[1], 10), ValueError, "NaN"),
    ],
)
def test_bad_arguments_raise_before_any_draw(arguments, error, words):
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(error, match=words):
        sample_steps(*arguments, rng)
    assert rng.bit_generator.state == before


def test_rng_must_be_a_generator():
    target_probs, draft_probs = spec_rows()
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        sample_steps(target_probs, draft_probs, 10, 0)


def test_inputs_are_not_modified():
    target_probs, draft_probs = random_rows(2, 5, 0.5, np.random.default_rng(0))
    target_copy, draft_copy = target_probs.copy(), draft_probs.copy()
    sample_steps(target_probs, draft_probs, 1000, np.random.default_rng(0))
    assert np.array_equal(target_probs, target_copy) and np.array_equal(draft_probs, draft_copy)


def test_seeded_results_repeat_and_do_not_depend_on_the_chunk_size(monkeypatch):
    target_probs, draft_probs = random_rows(3, 6, 0.5, np.random.default_rng(0))
    tokens, counts = sample_steps(target_probs, draft_probs, 30_001, np.random.default_rng(7))
    again, again_counts = sample_steps(target_probs, draft_probs, 30_001, np.random.default_rng(7))
    assert np.array_equal(tokens, again) and np.array_equal(counts, again_counts)
    # The uniforms are consumed in the same order whatever the chunk size, but the chunk layout
    # (draw by step) changes which uniform feeds which draw — so only the law may be compared.
    monkeypatch.setattr(sampling, "CHUNK_UNIFORMS", 7 * 13)
    chunked, chunked_counts = sample_steps(target_probs, draft_probs, 30_001, np.random.default_rng(8))
    assert check_steps(chunked, chunked_counts, target_probs, draft_probs).passed
    assert compare_steps(tokens, chunked).p_value > 1e-3


def test_working_memory_does_not_grow_with_n():
    target_probs, draft_probs = random_rows(4, 64, 0.5, np.random.default_rng(0))

    def extra_bytes(n):
        tracemalloc.start()
        tokens, counts = sample_steps(target_probs, draft_probs, n, np.random.default_rng(0))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak - tokens.nbytes - counts.nbytes

    small, large = extra_bytes(100_000), extra_bytes(400_000)
    assert large < 16 * 2**20, f"{large} bytes beyond the output"
    assert large < small + 2**20


@pytest.mark.parametrize("gamma, vocab, closeness, seed", RANDOM_CASES)
def test_every_position_follows_its_target_row_and_counts_follow_the_exact_law(gamma, vocab, closeness, seed):
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, np.random.default_rng(seed))
    tokens, counts = sample_steps(target_probs, draft_probs, 200_000, np.random.default_rng(seed + 100))
    check = check_steps(tokens, counts, target_probs, draft_probs)
    for i, fit in enumerate(check.positions):
        assert fit.p_value > 1e-3, f"position {i}: {fit.verdict}"
    assert check.counts.p_value > 1e-3, check.counts.verdict
    # The counts against the law computed here, independently of specdec.theory.
    rates = np.minimum(target_probs[:-1], draft_probs).sum(axis=1)
    reach = np.concatenate(([1.0], np.cumprod(rates)))
    law = reach - np.concatenate((reach[1:], [0.0]))
    assert np.allclose(law, token_count_law(target_probs, draft_probs))
    assert np.allclose(np.bincount(counts - 1, minlength=gamma + 1) / counts.size, law, atol=0.005)


def test_the_check_has_power_a_wrong_law_fails():
    target_probs, draft_probs = random_rows(2, 8, 0.5, np.random.default_rng(3))
    tokens, counts = sample_steps(target_probs, draft_probs, 200_000, np.random.default_rng(0))
    wrong = target_probs.copy()
    wrong[1] = 0.97 * wrong[1] + 0.03 / 8
    assert check_steps(tokens, counts, target_probs, draft_probs).passed
    assert not check_steps(tokens, counts, wrong, draft_probs).positions[1].passed


def test_agrees_in_law_with_a_loop_over_speculative_step():
    target_probs, draft_probs = spec_rows()
    rng = np.random.default_rng(11)
    looped = np.full((4_000, 3), -1)
    for s in range(len(looped)):
        emitted = speculative_step(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)
        looped[s, : len(emitted)] = emitted
    vectorised, _ = sample_steps(target_probs, draft_probs, 100_000, np.random.default_rng(12))
    comparison = compare_steps(looped, vectorised)
    assert comparison.p_value > 1e-3, comparison.verdict
    assert comparison.degrees_of_freedom >= 10  # many whole sequences compared, not a handful


def test_large_vocabulary_alias_tables_keep_zero_probability_tokens_out():
    rng = np.random.default_rng(0)
    target = rng.dirichlet(np.full(5_000, 0.1), size=2)
    target[:, ::2] = 0.0
    target /= target.sum(axis=1, keepdims=True)
    draft = rng.dirichlet(np.full(5_000, 0.1), size=1)
    draft = (draft + 1e-12) / (draft + 1e-12).sum()
    tokens, counts = sample_steps(target, draft, 100_000, np.random.default_rng(1))
    assert np.all(tokens[tokens >= 0] % 2 == 1)
    assert check_steps(tokens, counts, target, draft).passed


def alias_grid_law(row, resolution=2**12):
    """The law the alias tables of `row` put on [0, 1): the share of an even grid of uniforms that draws each token."""
    vocab = len(row)
    tables = sampling._AliasTables(np.array([row]))
    uniforms = (np.arange(vocab * resolution) + 0.5) / (vocab * resolution)
    tokens, _ = tables.draw(uniforms, np.zeros(uniforms.shape, dtype=np.intp))
    return np.bincount(tokens, minlength=vocab) / uniforms.size


@pytest.mark.parametrize(
    "row",
    [
        # Entries of exactly 1/V (scaled to exactly 1), zeros first, last and between, and one-hot rows:
        # the boundary cases of Vose's small/large split that random rows never produce.
        [0.25, 0.25, 0.5, 0.0], [0.5, 0.0, 0.25, 0.25], [0.0, 0.0, 1.0, 0.0], [1.0, 0.0],
        [0.0, 0.5, 0.5], [0.5, 0.5, 0.0], [0.2] * 5, [1 / 3] * 3, [0.4, 0.1, 0.25, 0.25],
        [0.1, 0.2, 0.3, 0.4, 0.0], [0.0, 0.25, 0.125, 0.125, 0.5, 0.0, 0.0, 0.0], [0.4, 0.4, 0.2, 0.0, 0.0],
    ],
)
def test_alias_tables_reproduce_the_row_exactly(row):
    law = alias_grid_law(row)
    # Each column is split once, so a token (in at most V columns of 2¹² cells each) is off by < 1 / 2¹².
    np.testing.assert_allclose(law, row, atol=2 / 2**12)
    assert np.all(law[np.array(row) == 0] == 0), "a token of probability 0 was drawn"
