"""The one-position check: its samples follow p, its deviation and chance's are computed plainly."""

import numpy as np
import pytest

from specdec.empirical_check import (TEN_TOKEN_DRAFT, TEN_TOKEN_TARGET, chance_max_deviations, frequencies,
                                     max_deviation, speculative_samples)


def test_ten_token_rows_are_distributions():
    assert sum(TEN_TOKEN_TARGET) == pytest.approx(1) and sum(TEN_TOKEN_DRAFT) == pytest.approx(1)


def test_samples_follow_p_not_q():
    samples = speculative_samples(TEN_TOKEN_TARGET, TEN_TOKEN_DRAFT, 200_000, np.random.default_rng(5))
    seen = np.bincount(samples, minlength=10) / samples.size
    # Five standard deviations of a frequency, √(p(1−p)/n), at each token.
    p = np.array(TEN_TOKEN_TARGET)
    assert np.all(np.abs(seen - p) < 5 * np.sqrt(p * (1 - p) / samples.size))
    assert np.abs(seen - np.array(TEN_TOKEN_DRAFT)).max() > 0.05


def test_a_token_p_never_produces_never_comes_out():
    samples = speculative_samples([0.5, 0.5, 0.0], [0.0, 0.2, 0.8], 20_000, np.random.default_rng(0))
    assert not np.any(samples == 2)


def test_max_deviation_and_frequencies_are_plain():
    assert frequencies([2, 2, 0], 3).tolist() == [1 / 3, 0.0, 2 / 3]
    assert max_deviation([0, 0, 0, 1], [0.5, 0.5]) == pytest.approx(0.25)


def test_chance_deviation_scales_like_one_over_root_n():
    small = np.median(chance_max_deviations(TEN_TOKEN_TARGET, 1_000, np.random.default_rng(1), 400))
    large = np.median(chance_max_deviations(TEN_TOKEN_TARGET, 100_000, np.random.default_rng(1), 400))
    assert 5 < small / large < 20  # √100 = 10


def test_bad_input_fails_before_any_draw_and_leaves_inputs_alone():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    target = np.array(TEN_TOKEN_TARGET)
    with pytest.raises(ValueError, match="n must be"):
        speculative_samples(target, TEN_TOKEN_DRAFT, 0, rng)
    with pytest.raises(ValueError, match="draft"):
        speculative_samples(target, [0.5, 0.5], 10, rng)
    with pytest.raises(ValueError, match="repeats"):
        chance_max_deviations(target, 10, rng, repeats=0)
    with pytest.raises(ValueError, match="samples must be token ids in 0 … 2,"):
        frequencies([0, 5], 3)
    assert rng.bit_generator.state == state
    speculative_samples(target, TEN_TOKEN_DRAFT, 10, rng)
    assert target.tolist() == list(TEN_TOKEN_TARGET)


def test_one_step_and_one_token_are_enough():
    assert speculative_samples([0.0, 1.0], [0.5, 0.5], 1, np.random.default_rng(0)).tolist() == [1]
    assert frequencies([0, 0], 1).tolist() == [1.0]
    assert frequencies([1], 2).tolist() == [0.0, 1.0]
    # One token drawn from (½, ½) is one of them: its frequencies are (1, 0) or (0, 1), ½ away from p.
    assert chance_max_deviations([0.5, 0.5], 1, np.random.default_rng(0), repeats=1).tolist() == [0.5]


@pytest.mark.parametrize("samples", [[0, 3], [3], np.array([[0, 1]]), np.array([], dtype=int), [0.0, 1.0]],
                         ids=["one past the end", "only past the end", "2-D", "empty", "floats"])
def test_samples_that_are_not_token_ids_of_the_vocabulary_are_refused(samples):
    with pytest.raises(ValueError, match="samples must be"):
        frequencies(samples, 3)
