"""How many tokens a verify step yields, what speedup follows, and how α relates to divergences.

The cost model is the simplest one that explains the trade-off: a draft pass costs 1/c of a target
pass, and one step costs γ draft passes plus one target pass, so 1 + γ/c target-pass units. What is
left out: the target's verify pass over γ+1 positions is assumed to cost the same as a pass over one
(true while decoding is memory-bound), and sampling, batching and communication are free.

When every position has the same acceptance rate α, the number N of tokens a step yields is a
truncated geometric variable: P(N = k) = α^(k−1)(1 − α) for k ≤ γ and P(N = γ+1) = α^γ. When the
rates αᵢ differ by position but are fixed (rows that do not depend on the tokens drafted before them,
as here), the same reasoning gives P(N > k) = α₀·…·α_{k−1}. In real text αᵢ depends on the prefix
accepted so far, and P(N > k) is the mean of that product over the prefixes, not the product of means.

>>> speedup(0.8, 4, 20)  # doctest: +ELLIPSIS
2.8013...
>>> optimal_gamma(0.8, 20)  # doctest: +ELLIPSIS
(8, 3.0920...)
"""

from __future__ import annotations

import math

import numpy as np

# The rule's own quantities live beside it in core; they are imported here so that `theory.speedup`
# and the others keep working.
from .core import acceptance_rates, expected_tokens, expected_tokens_for_rates, speedup, unchecked_speedup  # noqa: F401
from .validation import (DEFAULT_MAX_GAMMA, LARGEST_MAX_GAMMA, CostRatio, Count, Distribution, Probability, Rates,
                         checked)


@checked(alpha=Probability(), c=CostRatio(), max_gamma=Count(1, LARGEST_MAX_GAMMA))
def optimal_gamma(alpha, c, max_gamma=DEFAULT_MAX_GAMMA) -> tuple[int, float]:
    """The draft length in 1 … max_gamma with the largest speedup, and that speedup.

    On a tie the smaller γ wins.

    Examples
    --------
    >>> best, value = optimal_gamma(0.9, 50)
    >>> best, round(value, 2)
    (19, 6.37)
    """
    return _optimal_gamma(alpha, c, max_gamma)


def _optimal_gamma(alpha: float, c: float, max_gamma: int) -> tuple[int, float]:
    best_gamma, best_speedup = 1, unchecked_speedup(alpha, 1, c)
    for gamma in range(2, max_gamma + 1):
        value = unchecked_speedup(alpha, gamma, c)
        if value > best_speedup:
            best_gamma, best_speedup = gamma, value
    return best_gamma, best_speedup


@checked(alpha=Probability(), gamma=Count())
def token_count_distribution(alpha, gamma) -> np.ndarray:
    """P(N = k) for k = 1 … γ+1, the number of tokens one step yields at a constant α.

    Returns
    -------
    numpy.ndarray of shape (γ+1,)
        Entry k−1 is P(N = k). It sums to 1 and its mean is ``expected_tokens(alpha, gamma)``.

    Examples
    --------
    >>> token_count_distribution(0.5, 2)
    array([0.5 , 0.25, 0.25])
    """
    return _count_law(np.full(gamma, alpha))


@checked(rates=Rates())
def token_count_distribution_for_rates(rates) -> np.ndarray:
    """P(N = k) for k = 1 … γ+1 when position i has its own acceptance rate αᵢ.

    P(N = k) = α₀·…·α_{k−2}·(1 − α_{k−1}) for k ≤ γ, and α₀·…·α_{γ−1} for k = γ+1.

    Examples
    --------
    >>> token_count_distribution_for_rates([0.5, 1.0])
    array([0.5, 0. , 0.5])
    """
    return _count_law(rates)


@checked(p=Distribution(), q=Distribution(like="p"))
def tv_distance(p, q) -> float:
    """Total variation distance ½ Σₓ |p(x) − q(x)|, in [0, 1].

    Examples
    --------
    >>> tv_distance([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])  # doctest: +ELLIPSIS
    0.3...
    """
    return float(0.5 * np.abs(p - q).sum())


@checked(p=Distribution(), q=Distribution(like="p"))
def kl_divergence(p, q) -> float:
    """Kullback–Leibler divergence KL(p ‖ q) = Σₓ p(x) log(p(x)/q(x)), in nats.

    Conventions for zeros: a term with p(x) = 0 contributes 0 (whatever q(x) is), and the result is
    ``math.inf`` when some x has q(x) = 0 < p(x): q then calls impossible what p can produce.

    Examples
    --------
    >>> round(kl_divergence([0.5, 0.5], [0.25, 0.75]), 4)
    0.1438
    >>> kl_divergence([0.5, 0.5], [1.0, 0.0])
    inf
    """
    support = p > 0
    if np.any(q[support] == 0):
        return math.inf
    ps, qs = p[support], q[support]
    return float(max(0.0, np.sum(ps * np.log(ps / qs))))


@checked(rates=Rates())
def survival_probabilities(rates) -> np.ndarray:
    """P(N > k) for k = 0 … γ: the chance that a step gets past position k−1, α₀·…·α_{k−1}.

    Entry k is also the probability that the step emits a token at position k.

    Examples
    --------
    >>> survival_probabilities([0.5, 0.8])
    array([1. , 0.5, 0.4])
    """
    return _survival(rates)


def _survival(rates: np.ndarray) -> np.ndarray:
    return np.concatenate(([1.0], np.cumprod(rates)))


def _count_law(rates: np.ndarray) -> np.ndarray:
    survival = _survival(rates)
    law = survival.copy()
    law[:-1] -= survival[1:]
    return law


@checked(c=CostRatio())
def break_even_acceptance_rate(c) -> float:
    """The acceptance rate above which some draft length beats plain decoding: 1/c.

    speedup(α, γ, c) > 1 means Σₖ₌₁^γ αᵏ > γ/c: the average of α, α², …, α^γ must exceed 1/c. The
    powers of α fall with k, so that average is largest at γ = 1, where it is α itself. Hence some
    γ ≥ 1 helps exactly when α > 1/c, and then γ = 1 already helps (Leviathan et al. 2023,
    Corollary 3.9, with their cost coefficient c′ = 1/c). A free draft (c = ∞) gives 0: any α > 0 helps.

    Examples
    --------
    >>> break_even_acceptance_rate(20)
    0.05
    >>> break_even_acceptance_rate(math.inf)
    0.0
    """
    return 1.0 / c


@checked(alpha=Probability(), c=CostRatio())
def speedup_with_one_draft(alpha, c) -> float:
    """speedup(α, 1, c) = (1 + α) / (1 + 1/c): one draft token per step.

    Above 1 exactly when α > 1/c, and a lower bound on the best speedup whenever α > 1/c.

    Examples
    --------
    >>> round(speedup_with_one_draft(0.8, 20), 4)
    1.7143
    """
    return (1.0 + alpha) / (1.0 + 1.0 / c)


@checked(alphas=Rates(), c=CostRatio(), max_gamma=Count(1))
def speedup_table(alphas, c, max_gamma=DEFAULT_MAX_GAMMA) -> np.ndarray:
    """speedup(α, γ, c) for each α of `alphas` (rows) and each γ = 1 … max_gamma (columns).

    Examples
    --------
    >>> speedup_table([0.5, 0.9], 20, max_gamma=3).round(3)
    array([[1.429, 1.591, 1.63 ],
           [1.81 , 2.464, 2.99 ]])
    """
    gammas = range(1, max_gamma + 1)
    return np.array([[unchecked_speedup(float(alpha), gamma, c) for gamma in gammas] for alpha in alphas])


@checked(alphas=Rates(), c=CostRatio(), max_gamma=Count(1, LARGEST_MAX_GAMMA))
def best_draft_lengths(alphas, c, max_gamma=DEFAULT_MAX_GAMMA) -> np.ndarray:
    """The best γ in 1 … max_gamma (`optimal_gamma`) for each α of `alphas`, as an int array.

    Examples
    --------
    >>> best_draft_lengths([0.6, 0.7, 0.8, 0.9], 20)
    array([ 4,  6,  8, 13])
    """
    return np.array([_optimal_gamma(float(alpha), c, max_gamma)[0] for alpha in alphas], dtype=int)
