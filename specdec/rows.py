"""Example rows for a verify step: SPEC's worked example and seeded random target/draft pairs.

Real draft and target rows come from two language models. Here a target row is a Dirichlet draw
(small concentration gives the peaked rows language models produce) and its draft row is a blend
of that target row with an independent draw: ``closeness`` = 1 makes q equal p (α = 1), 0 makes the
two unrelated. Because q ≥ closeness·p pointwise, every row has α ≥ closeness.

>>> import numpy as np
>>> target_probs, draft_probs = random_rows(gamma=3, vocab=6, closeness=0.5, rng=np.random.default_rng(0))
>>> target_probs.shape, draft_probs.shape
((4, 6), (3, 6))
"""

from __future__ import annotations

import string

import numpy as np

from . import validation

#: The worked example of the contract: (target_probs, draft_probs, draft_tokens).
SPEC_TARGET_PROBS = ((0.5, 0.3, 0.2, 0.0), (0.1, 0.6, 0.2, 0.1), (0.25, 0.25, 0.25, 0.25))
SPEC_DRAFT_PROBS = ((0.25, 0.25, 0.25, 0.25), (0.4, 0.2, 0.2, 0.2))
SPEC_DRAFT_TOKENS = (0, 1)

#: Dirichlet concentration of the random rows: below 1, a few tokens hold most of the mass.
DEFAULT_CONCENTRATION = 0.5


def spec_example() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """SPEC's example step as fresh arrays: (target_probs (3, 4), draft_probs (2, 4), draft_tokens).

    >>> target_probs, draft_probs, draft_tokens = spec_example()
    >>> draft_tokens
    [0, 1]
    """
    return np.array(SPEC_TARGET_PROBS), np.array(SPEC_DRAFT_PROBS), list(SPEC_DRAFT_TOKENS)


def random_rows(gamma, vocab, closeness, rng, concentration=DEFAULT_CONCENTRATION):
    """Seeded random target rows (γ+1, V) and draft rows (γ, V) with a chosen closeness.

    Parameters
    ----------
    gamma : int >= 0
    vocab : int >= 2
    closeness : float in [0, 1]
        Weight of the target row in each draft row: qᵢ = closeness·pᵢ + (1 − closeness)·dᵢ.
    rng : numpy.random.Generator
    concentration : float > 0
        Dirichlet concentration of pᵢ and dᵢ.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        target_probs of shape (γ+1, V) and draft_probs of shape (γ, V), rows summing to 1.
    """
    gamma = validation.count(gamma, "gamma")
    vocab = validation.count(vocab, "vocab", minimum=2)
    closeness = validation.probability(closeness, "closeness")
    rng = validation.generator(rng)
    concentration = validation.cost_ratio(concentration, "concentration")
    target = _dirichlet_rows(rng, gamma + 1, vocab, concentration)
    independent = _dirichlet_rows(rng, gamma, vocab, concentration)
    draft = closeness * target[:-1] + (1.0 - closeness) * independent
    draft /= draft.sum(axis=1, keepdims=True)
    return target, draft


def _dirichlet_rows(rng, rows, vocab, concentration):
    # A small concentration can underflow a whole Dirichlet draw to zeros; a floor keeps every
    # token possible, which the draft rows need (a drafted token must have q > 0).
    values = rng.dirichlet(np.full(vocab, concentration), size=rows) + 1e-9
    return values / values.sum(axis=1, keepdims=True)


def token_labels(vocab) -> list[str]:
    """Readable names for token ids: A, B, C, … up to 26 tokens, then t0, t1, … beyond.

    >>> token_labels(4)
    ['A', 'B', 'C', 'D']
    """
    vocab = validation.count(vocab, "vocab", minimum=1)
    if vocab <= 26:
        return list(string.ascii_uppercase[:vocab])
    return [f"t{i}" for i in range(vocab)]
