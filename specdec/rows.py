"""Example rows for a verify step: the worked example and seeded random target/draft pairs.

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

from .core import StepTrace, sample_draft, trace_step
from .validation import MAX_GAMMA, MAX_VOCAB, Count, Generator, PositiveNumber, Probability, checked

#: The worked example of the contract: (target_probs, draft_probs, draft_tokens).
SPEC_TARGET_PROBS = ((0.5, 0.3, 0.2, 0.0), (0.1, 0.6, 0.2, 0.1), (0.25, 0.25, 0.25, 0.25))
SPEC_DRAFT_PROBS = ((0.25, 0.25, 0.25, 0.25), (0.4, 0.2, 0.2, 0.2))
SPEC_DRAFT_TOKENS = (0, 1)

#: Dirichlet concentration of the random rows: below 1, a few tokens hold most of the mass.
DEFAULT_CONCENTRATION = 0.5
#: Added to every probability of a random row before renormalising, so that none is 0.
PROBABILITY_FLOOR = 1e-9
#: The most probabilities `random_rows` makes, (2γ + 1)·V: 80 MB of floats, far past a readable step.
MAX_ROW_ENTRIES = 10_000_000


def spec_example() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """SPEC's example step as fresh arrays: (target_probs (3, 4), draft_probs (2, 4), draft_tokens).

    >>> target_probs, draft_probs, draft_tokens = spec_example()
    >>> draft_tokens
    [0, 1]
    """
    return np.array(SPEC_TARGET_PROBS), np.array(SPEC_DRAFT_PROBS), list(SPEC_DRAFT_TOKENS)


@checked(seed=Count())
def seeded_step(seed, gamma=3, vocab=6, closeness=0.5, example_drafts=None) -> StepTrace:
    """One traced verify step made from a seed: what the verify-step explorer and ``python -m specdec step`` show.

    One generator serves the whole step, so the rows, the draft tokens and the verify draws all
    follow from the seed. With random rows (the default)::

        rng = numpy.random.default_rng(seed)
        target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
        draft_tokens = sample_draft(draft_probs, rng)
        trace = trace_step(target_probs, draft_probs, draft_tokens, rng)

    With ``example_drafts`` (the worked example's rows, γ = 2 and V = 4, with these draft tokens;
    `gamma`, `vocab` and `closeness` are then unused)::

        target_probs, draft_probs, _ = spec_example()
        trace = trace_step(target_probs, draft_probs, list(example_drafts), numpy.random.default_rng(seed))

    Parameters
    ----------
    seed : int >= 0
    gamma, vocab, closeness
        As in `random_rows`.
    example_drafts : sequence of 2 token ids, optional

    Examples
    --------
    >>> seeded_step(0, example_drafts=(3, 0)).tokens
    [0]
    >>> seeded_step(7, gamma=4, vocab=8).gamma
    4
    """
    if example_drafts is not None:
        target_probs, draft_probs, _ = spec_example()
        return trace_step(target_probs, draft_probs, list(example_drafts), np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
    return trace_step(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)


@checked(gamma=Count(0, MAX_GAMMA), vocab=Count(2, MAX_VOCAB), closeness=Probability(), rng=Generator(),
         concentration=PositiveNumber("the Dirichlet concentration of the rows; below 1 gives peaked rows"))
def random_rows(gamma, vocab, closeness, rng, concentration=DEFAULT_CONCENTRATION):
    """Seeded random target rows (γ+1, V) and draft rows (γ, V) with a chosen closeness.

    Parameters
    ----------
    gamma : int in 0 … 64
    vocab : int in 2 … 1,000,000
        Together, (2γ + 1)·V is at most `MAX_ROW_ENTRIES`.
    closeness : float in [0, 1]
        Weight of the target row in each draft row: qᵢ = closeness·pᵢ + (1 − closeness)·dᵢ.
    rng : numpy.random.Generator
    concentration : float > 0, finite
        Dirichlet concentration of pᵢ and dᵢ.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        target_probs of shape (γ+1, V) and draft_probs of shape (γ, V), rows summing to 1.
    """
    if (2 * gamma + 1) * vocab > MAX_ROW_ENTRIES:  # a condition on two arguments, still before any draw
        raise ValueError(f"gamma and vocab together ask for (2·{gamma} + 1)·{vocab:,} probabilities; at most "
                         f"{MAX_ROW_ENTRIES:,} are made: lower gamma or vocab")
    target = dirichlet_rows(rng, gamma + 1, vocab, concentration)
    independent = dirichlet_rows(rng, gamma, vocab, concentration)
    return target, blend_rows(target[:-1], independent, closeness)


def dirichlet_rows(rng, rows, vocab, concentration=DEFAULT_CONCENTRATION) -> np.ndarray:
    """`rows` Dirichlet draws over `vocab` tokens, each probability at least about `PROBABILITY_FLOOR`.

    The one recipe behind every random distribution of the series (`random_rows`,
    `specdec.divergence.pair_cloud`). Arguments are not checked: the public callers check them.

    >>> dirichlet_rows(np.random.default_rng(0), 2, 3).sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    """
    # A small concentration can underflow a whole Dirichlet draw to zeros; a floor keeps every
    # token possible, which the draft rows need (a drafted token must have q > 0) and KL(p‖q) too.
    values = rng.dirichlet(np.full(vocab, concentration), size=rows) + PROBABILITY_FLOOR
    return values / values.sum(axis=1, keepdims=True)


def blend_rows(target, independent, closeness) -> np.ndarray:
    """Draft rows closeness·p + (1 − closeness)·d, renormalised; `closeness` a number or a column.

    >>> blend_rows(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), 0.25).tolist()
    [[0.25, 0.75]]
    """
    draft = closeness * target + (1.0 - closeness) * independent
    draft /= draft.sum(axis=1, keepdims=True)
    return draft


@checked(vocab=Count(1))
def token_labels(vocab) -> list[str]:
    """Readable names for token ids: A, B, C, … up to 26 tokens, then t0, t1, … beyond.

    >>> token_labels(4)
    ['A', 'B', 'C', 'D']
    """
    if vocab <= 26:
        return list(string.ascii_uppercase[:vocab])
    return [f"t{i}" for i in range(vocab)]
