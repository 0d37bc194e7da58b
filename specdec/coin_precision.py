"""How often a uniform coin is exactly 0: about 10⁻¹⁶ in float64, about 6·10⁻⁸ in float32.

The verify rule accepts when u < min(1, p(x)/q(x)). Two mistakes differ from it only on vanishingly
rare coins (`specdec.broken_rules.EDGE_CASES`): ``u <= ratio`` accepts a token of target probability 0
when u = 0 exactly; an unguarded residual fails only on a rejection that rounding alone allows. How rare
u = 0 is depends on how the coin is made:

* numpy's ``Generator.random()`` (float64) keeps the top 53 bits of a 64-bit draw: u = k·2⁻⁵³ with k
  uniform in 0 … 2⁵³ − 1, so P(u = 0) = 2⁻⁵³ ≈ 1.1·10⁻¹⁶;
* ``Generator.random(dtype=np.float32)`` keeps the top 24 bits of a 32-bit draw: P(u = 0) = 2⁻²⁴
  ≈ 6.0·10⁻⁸ (PyTorch's float32 coins on a GPU are 0 about half as often, pytorch/pytorch#26973).

Engines differ: SGLang's EAGLE verification draws float32 coins, and its target-only kernel (which does not
use q) accepted when the coin was at most the accumulated target probability, until SGLang #35798 made the
comparison strict; vLLM's V1 rejection sampler (its original V1 model runner's) draws float64 coins for this
reason (pytorch/pytorch#16706) and accepts when the ratio is at least the coin. A token with target
probability 0 is common once the target's distribution has been filtered by top-k or top-p, so with float32
coins and an inclusive comparison the mistake fires about once per 2²⁴ to 2²⁵ such draft tokens: every day, at
a server's volume.

>>> zero_coin_probability(np.float64) == 2.0**-53, zero_coin_probability(np.float32) == 2.0**-24
(True, True)
>>> round(expected_zero_coins(1e9, np.float32), 1)  # a billion coins
59.6
"""

from __future__ import annotations

import numpy as np

from .validation import Constraint, Count, Generator, PositiveNumber, checked

#: Bits of a uniform coin of each floating-point type, as numpy's Generator.random makes them.
COIN_BITS = {np.dtype(np.float64): 53, np.dtype(np.float32): 24}
#: Coins drawn at once by `count_zero_coins`: 4 M, 16 MB of float32.
CHUNK = 1 << 22
#: The most coins `count_zero_coins` draws in one call (a few seconds).
MAX_COINS = 1 << 31


class CoinType(Constraint):
    """np.float32 or np.float64 (or their names), as a numpy dtype."""

    def __call__(self, value, name, arguments):
        try:
            dtype = None if value is None else np.dtype(value)  # np.dtype(None) would be float64
        except TypeError:
            dtype = None
        if dtype not in COIN_BITS:
            raise ValueError(f"{name} must be numpy.float32 or numpy.float64, got {value!r}")
        return dtype


@checked(dtype=CoinType())
def zero_coin_probability(dtype) -> float:
    """P(u = 0) for one coin u = rng.random(dtype=dtype): 2⁻⁵³ in float64, 2⁻²⁴ in float32.

    >>> zero_coin_probability("float32")
    5.960464477539063e-08
    """
    return 2.0 ** -COIN_BITS[dtype]


@checked(coins=PositiveNumber("a number of coins"), dtype=CoinType())
def expected_zero_coins(coins, dtype) -> float:
    """Expected number of coins exactly 0 among `coins` coins of type `dtype`.

    >>> expected_zero_coins(2**24, np.float32)
    1.0
    """
    return coins * zero_coin_probability(dtype)


@checked(n=Count(0, MAX_COINS), dtype=CoinType(), rng=Generator())
def count_zero_coins(n, dtype, rng) -> int:
    """Draw n coins ``rng.random(dtype=dtype)``, in chunks, and count those exactly 0.

    >>> count_zero_coins(2**20, np.float64, np.random.default_rng(0))
    0
    """
    zeros, left = 0, n
    while left:
        size = min(left, CHUNK)
        zeros += int(np.count_nonzero(rng.random(size, dtype=dtype) == 0.0))
        left -= size
    return zeros
