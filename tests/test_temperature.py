"""Softmax at a temperature, greedy decoding as its T = 0 end, and the example logits."""

import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specdec import acceptance_rate
from specdec.temperature import related_logits, softmax

logit_lists = st.lists(st.floats(-30, 30, allow_nan=False), min_size=1, max_size=12)
temperatures = st.floats(0.05, 20)


def plain_softmax(logits, temperature):
    """Reference: the textbook formula with Python floats, shifted by the largest logit."""
    top = max(logits)
    weights = [math.exp((value - top) / temperature) for value in logits]
    total = math.fsum(weights)
    return [weight / total for weight in weights]


@given(logit_lists, temperatures)
def test_softmax_matches_the_textbook_formula(logits, temperature):
    result = softmax(logits, temperature)
    assert result.shape == (len(logits),) and result.dtype == np.float64
    assert result.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(result, plain_softmax(logits, temperature), rtol=1e-9, atol=1e-15)


@given(logit_lists, temperatures, st.floats(-50, 50))
def test_adding_a_constant_to_every_logit_changes_nothing(logits, temperature, shift):
    np.testing.assert_allclose(softmax(np.add(logits, shift), temperature), softmax(logits, temperature),
                               rtol=1e-9, atol=1e-12)


def test_default_temperature_is_one_and_the_input_is_not_modified():
    logits = np.array([1.0, 2.0, 3.0])
    before = logits.copy()
    assert np.array_equal(softmax(logits), softmax(logits, 1.0))
    softmax(logits, 0.0)
    assert np.array_equal(logits, before)


@given(logit_lists)
def test_temperature_zero_is_greedy_decoding(logits):
    result = softmax(logits, 0)
    expected = np.zeros(len(logits))
    expected[int(np.argmax(logits))] = 1.0  # the first of tied maxima, as greedy decoders pick
    assert np.array_equal(result, expected)


def test_greedy_picks_the_first_of_tied_maxima():
    assert softmax([1.0, 3.0, 3.0], 0).tolist() == [0.0, 1.0, 0.0]


@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=8, unique=True))
def test_small_temperatures_approach_the_greedy_distribution(logits):
    ordered = sorted(logits)
    gap = ordered[-1] - ordered[-2]
    assume(gap >= 0.05)  # nearly tied maxima need a far smaller T than the one tested here
    cold = softmax(logits, gap / 50)  # every other token is at least e^50 times less likely
    np.testing.assert_allclose(cold, softmax(logits, 0), rtol=0, atol=len(logits) * math.exp(-50))


def test_large_temperatures_approach_the_uniform_distribution():
    np.testing.assert_allclose(softmax([3.0, -1.0, 0.5, 2.0], 1e6), np.full(4, 0.25), atol=1e-5)


def test_minus_infinity_marks_a_token_that_is_never_produced():
    result = softmax([0.0, -math.inf, 0.0], 0.7)
    assert result.tolist() == [0.5, 0.0, 0.5]
    assert softmax([-math.inf, 1.0], 0).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("logits, error, words", [
    ([1.0, math.nan], ValueError, "NaN at index 1"),
    ([1.0, math.inf], ValueError, "+inf at index 1"),
    ([-math.inf, -math.inf], ValueError, "every entry is -inf"),
    ([[1.0, 2.0]], ValueError, "1-D"),
    ([], ValueError, "non-empty"),
    ("logits", TypeError, "got str"),
    (None, TypeError, "got NoneType"),
    ([1.0, "x"], TypeError, "cannot read as numbers"),
])
def test_bad_logits_are_refused_with_a_message_naming_them(logits, error, words):
    with pytest.raises(error, match="logits") as raised:
        softmax(logits, 1.0)
    assert words in str(raised.value)


@pytest.mark.parametrize("temperature, error", [
    (-0.5, ValueError), (math.nan, ValueError), (math.inf, ValueError), (True, TypeError), ("1", TypeError),
    (None, TypeError),
])
def test_bad_temperatures_are_refused_with_a_message_naming_them(temperature, error):
    with pytest.raises(error, match="temperature"):
        softmax([1.0, 2.0], temperature)


@given(st.integers(0, 2**32 - 1), st.integers(2, 12))
@settings(max_examples=50)
def test_greedy_acceptance_is_one_when_the_argmaxes_agree_and_zero_otherwise(seed, vocab):
    target_logits, draft_logits = related_logits(vocab, np.random.default_rng(seed))
    alpha = acceptance_rate(softmax(target_logits, 0), softmax(draft_logits, 0))
    assert alpha == (1.0 if np.argmax(target_logits) == np.argmax(draft_logits) else 0.0)


def test_related_logits_are_seeded_and_their_noise_is_scaled():
    first = related_logits(6, np.random.default_rng(5), draft_noise=0.5)
    second = related_logits(6, np.random.default_rng(5), draft_noise=0.5)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    # The same draws with twice the noise: the draft moves twice as far from the target.
    target, draft = first
    _, louder = related_logits(6, np.random.default_rng(5), draft_noise=1.0)
    np.testing.assert_allclose(louder - target, 2 * (draft - target))
    same_target, same_draft = related_logits(6, np.random.default_rng(5), draft_noise=0.0)
    assert np.array_equal(same_target, same_draft)


@pytest.mark.parametrize("kwargs, spread, noise", [({}, 2.0, 1.0), (dict(draft_noise=0.5, spread=3.0), 3.0, 0.5)])
def test_related_logits_follow_the_documented_recipe_draw_for_draw(kwargs, spread, noise):
    # V standard normals times the spread (default 2) for the target, then V more times draft_noise (default 1),
    # added to the target's.
    reference = np.random.default_rng(3)
    first, second = reference.standard_normal(7), reference.standard_normal(7)
    target, draft = related_logits(7, np.random.default_rng(3), **kwargs)
    np.testing.assert_allclose(target, spread * first, rtol=1e-15, atol=0)
    np.testing.assert_allclose(draft, spread * first + noise * second, rtol=1e-14, atol=1e-15)


def test_related_logits_draw_target_logits_with_the_given_spread():
    target, _ = related_logits(20_000, np.random.default_rng(0), spread=3.0)
    assert np.std(target) == pytest.approx(3.0, rel=0.03)
    assert abs(np.mean(target)) < 0.1


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(vocab=1), ValueError, "vocab"),
    (dict(vocab=2.5), TypeError, "vocab"),
    (dict(draft_noise=-1.0), ValueError, "draft_noise"),
    (dict(spread=0.0), ValueError, "spread"),
])
def test_bad_arguments_to_related_logits_are_refused_before_any_draw(kwargs, error, name):
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(error, match=name):
        related_logits(**{"vocab": 4, "rng": rng, **kwargs})
    assert rng.bit_generator.state == state


def test_related_logits_want_a_generator():
    with pytest.raises(TypeError, match="default_rng"):
        related_logits(4, 0)


def plain_alpha(target_logits, draft_logits, target_temperature, draft_temperature):
    """Σ min(p, q) with each softmax written out: exp(z/T)/Σ exp(z/T), or one-hot at the first maximum for T = 0."""
    def plain_softmax(logits, temperature):
        if temperature == 0:
            first = max(range(len(logits)), key=lambda i: (logits[i], -i))
            return [1.0 if i == first else 0.0 for i in range(len(logits))]
        top = max(logits)
        weights = [math.exp((z - top) / temperature) for z in logits]
        return [w / sum(weights) for w in weights]
    p = plain_softmax(list(target_logits), target_temperature)
    q = plain_softmax(list(draft_logits), draft_temperature)
    return sum(min(a, b) for a, b in zip(p, q))


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_alpha_over_temperatures_against_a_plain_implementation(seed):
    from specdec.temperature import alpha_over_temperatures, related_logits

    target_logits, draft_logits = related_logits(6, np.random.default_rng(seed))
    grid = [0.0, 0.05, 0.5, 1.0, 2.0, 3.0]
    before = (target_logits.copy(), draft_logits.copy(), list(grid))
    shared = alpha_over_temperatures(target_logits, draft_logits, grid)
    np.testing.assert_allclose(shared, [plain_alpha(target_logits, draft_logits, t, t) for t in grid], atol=1e-12)
    for fixed in (0.0, 0.7, 1.0):
        draft_only = alpha_over_temperatures(target_logits, draft_logits, grid, target_temperature=fixed)
        np.testing.assert_allclose(draft_only, [plain_alpha(target_logits, draft_logits, fixed, t) for t in grid],
                                   atol=1e-12)
    assert np.array_equal(target_logits, before[0]) and np.array_equal(draft_logits, before[1])
    assert grid == before[2]


@pytest.mark.parametrize("arguments, error, words", [
    (([1.0, 0.0], [1.0, 0.0, 2.0], [1.0]), ValueError, "same length V"),
    (([1.0, 0.0], [1.0, 0.0], [1.0, -0.5]), ValueError, "temperatures[1]"),
    (([1.0, 0.0], [1.0, 0.0], [[1.0]]), ValueError, "temperatures must be a 1-D array"),
    (([1.0, 0.0], [1.0, 0.0], "hot"), TypeError, "temperatures"),
    (([1.0, float("nan")], [1.0, 0.0], [1.0]), ValueError, "target_logits contains NaN"),
    (([1.0, 0.0], None, [1.0]), TypeError, "draft_logits"),
])
def test_alpha_over_temperatures_refuses_bad_input(arguments, error, words):
    from specdec.temperature import alpha_over_temperatures

    with pytest.raises(error, match=re.escape(words)):
        alpha_over_temperatures(*arguments)
    with pytest.raises(ValueError, match="target_temperature"):
        alpha_over_temperatures([1.0, 0.0], [1.0, 0.0], [1.0], target_temperature=-1.0)
