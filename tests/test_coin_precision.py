"""How often a coin is exactly 0: the float32 grid of 2⁻²⁴ against float64's 2⁻⁵³."""

import numpy as np
import pytest

from specdec import broken_rules
from specdec.coin_precision import count_zero_coins, expected_zero_coins, zero_coin_probability


def uint32_stream(seed, count):
    """The 32-bit words numpy's PCG64 hands to float32 coins: low half, then high half, of each 64-bit draw."""
    raw = np.random.default_rng(seed).bit_generator.random_raw((count + 1) // 2)
    return np.column_stack([raw & 0xFFFFFFFF, raw >> 32]).ravel()[:count]


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_a_float32_coin_is_the_top_24_bits_of_a_32_bit_draw(seed):
    coins = np.random.default_rng(seed).random(10_000, dtype=np.float32)
    words = uint32_stream(seed, 10_000)
    np.testing.assert_array_equal(coins.astype(np.float64), (words >> 8) * 2.0**-24)
    # So u = 0 exactly when those 24 bits are 0: probability 2⁻²⁴.


@pytest.mark.parametrize("seed", [0, 7])
def test_a_float64_coin_is_the_top_53_bits_of_a_64_bit_draw(seed):
    coins = np.random.default_rng(seed).random(10_000)
    raw = np.random.default_rng(seed).bit_generator.random_raw(10_000)
    np.testing.assert_array_equal(coins, (raw >> 11) * 2.0**-53)


def test_the_probabilities_and_the_expected_counts():
    assert zero_coin_probability(np.float32) == 2.0**-24 == pytest.approx(5.96e-8, rel=1e-3)
    assert zero_coin_probability(np.float64) == 2.0**-53 == pytest.approx(1.11e-16, rel=1e-2)
    assert zero_coin_probability("float32") == zero_coin_probability(np.dtype("float32"))
    assert expected_zero_coins(1e9, np.float32) == pytest.approx(59.6, abs=0.05)  # every day at 10⁹ coins a day
    assert expected_zero_coins(1e9, np.float64) < 1e-6


def test_counted_zeros_are_the_coins_whose_24_bits_are_zero():
    n = 2**24
    counted = count_zero_coins(n, np.float32, np.random.default_rng(3))
    assert counted == int(np.count_nonzero((uint32_stream(3, n) >> 8) == 0))
    assert count_zero_coins(0, np.float32, np.random.default_rng(3)) == 0


@pytest.mark.parametrize("dtype, zeros", [(np.float64, 1), (np.float32, 2)])
def test_a_rigged_zero_coin_is_counted(dtype, zeros):
    # rigged_generator(0.0) makes the next 64-bit output 0: one float64 coin 0, or two float32 coins 0
    # (its two 32-bit halves); the coins after it are ordinary, nonzero here.
    assert count_zero_coins(5, dtype, broken_rules.rigged_generator(0.0)) == zeros


def test_a_zero_coin_exposes_accept_on_equal():
    # With u = 0, `u <= 0` keeps a draft token of target probability 0; the correct `u < 0` never does.
    case = broken_rules.EDGE_CASES["accept_on_equal"]
    target_probs, draft_probs, tokens = case.example
    assert target_probs[0, tokens[0]] == 0.0
    assert case.function(target_probs, draft_probs, tokens, broken_rules.rigged_generator(0.0))[0] == tokens[0]


@pytest.mark.parametrize("dtype", [np.float16, "int", None, 3])
def test_a_bad_coin_type_is_refused(dtype):
    with pytest.raises(ValueError, match="dtype must be numpy.float32 or numpy.float64"):
        zero_coin_probability(dtype)


def test_bad_counts_are_refused_before_any_draw():
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="n must be an integer in 0 … 2,147,483,648"):
        count_zero_coins(-1, np.float32, rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        count_zero_coins(10, np.float32, 0)
    with pytest.raises(ValueError, match="coins must be a finite number > 0"):
        expected_zero_coins(0, np.float32)
    assert rng.bit_generator.state == before
