"""A target p and a draft q with a chosen acceptance rate α, for experiments "at equal α".

The draft is a mixture q = (1 − t)·p + t·s of the target and a *contrarian* s: p with its
probabilities handed out in reverse order (the likeliest token of p gets the smallest mass, and so
on). Mixing is linear, so TV(p, q) = t·TV(p, s) and α = 1 − t·TV(p, s): any α from 1 − TV(p, s)
up to 1 is reached exactly by t = (1 − α) / TV(p, s).

What is simplified: a real draft differs from its target in structured ways (it misses context,
it is over- or under-confident); this one differs in the simplest way that reaches every α.

>>> p = geometric_target(4, 0.5)
>>> p.round(3)
array([0.533, 0.267, 0.133, 0.067])
>>> q = draft_with_acceptance(p, 0.8)
>>> round(float(np.minimum(p, q).sum()), 10)
0.8
"""

from __future__ import annotations

import numpy as np

from ..validation import Count, Distribution, PositiveFraction, Probability, checked


@checked(vocab=Count(2), ratio=PositiveFraction())
def geometric_target(vocab, ratio) -> np.ndarray:
    """p(x) ∝ ratio^x for x = 0 … V−1: a few likely tokens and a tail.

    >>> geometric_target(3, 0.5).round(4)
    array([0.5714, 0.2857, 0.1429])
    """
    weights = ratio ** np.arange(vocab, dtype=np.float64)
    return weights / weights.sum()


@checked(target=Distribution())
def contrarian(target) -> np.ndarray:
    """p's probabilities handed out in reverse order of p: the likeliest token gets the least.

    >>> contrarian([0.6, 0.3, 0.1])
    array([0.1, 0.3, 0.6])
    """
    order = np.argsort(-target, kind="stable")
    reversed_mass = np.empty_like(target)
    reversed_mass[order] = target[order[::-1]]
    return reversed_mass


@checked(target=Distribution())
def lowest_acceptance(target) -> float:
    """The smallest α `draft_with_acceptance` can reach for this target: 1 − TV(p, contrarian(p)).

    >>> round(lowest_acceptance([0.6, 0.3, 0.1]), 3)
    0.5
    """
    return 1.0 - _contrarian_distance(target)


def _contrarian_distance(p: np.ndarray) -> float:
    """TV(p, contrarian(p))."""
    return 0.5 * float(np.abs(p - contrarian.__wrapped__(p)).sum())


@checked(target=Distribution(), alpha=Probability())
def draft_with_acceptance(target, alpha) -> np.ndarray:
    """A draft q with Σ min(p, q) = α exactly: q = (1 − t)·p + t·contrarian(p).

    Raises ValueError if α is below `lowest_acceptance(target)`.

    >>> draft_with_acceptance([0.6, 0.3, 0.1], 1.0)
    array([0.6, 0.3, 0.1])
    """
    p, s = target, contrarian.__wrapped__(target)
    distance = _contrarian_distance(p)
    if alpha < 1.0 - distance - 1e-12:  # a bound that depends on the target, checked before anything else
        raise ValueError(
            f"alpha must be at least {1.0 - distance:.4f} for this target (the draft then is the "
            f"target in reverse order), got {alpha!r}"
        )
    if distance == 0.0:
        return p.copy()
    t = min(1.0, (1.0 - alpha) / distance)
    return (1.0 - t) * p + t * s


@checked(target=Distribution(), alpha=Probability(), favourite=Count(0, lambda arguments: arguments["target"].size - 1))
def confident_draft(target, alpha, favourite) -> np.ndarray:
    """A draft that over-trusts one token: q = (1 − t)·p + t·δ_favourite, with Σ min(p, q) = α.

    TV(p, δ_f) = 1 − p(f), so α = 1 − t·(1 − p(f)) reaches any α from p(f) up to 1. Such a draft is
    sharper than the target, as a greedy or top-k draft is; the exact rule accepts its favourite
    only with probability p(f)/q(f).

    >>> confident_draft([0.5, 0.3, 0.2], 0.8, 1).round(3)
    array([0.357, 0.5  , 0.143])
    """
    p = target
    if alpha < p[favourite] - 1e-12:
        raise ValueError(
            f"alpha must be at least p(favourite) = {p[favourite]:.4f} (the draft then always proposes "
            f"the favourite), got {alpha!r}"
        )
    if p[favourite] >= 1.0:
        return p.copy()
    t = min(1.0, (1.0 - alpha) / (1.0 - p[favourite]))
    q = (1.0 - t) * p
    q[favourite] += t
    return q
