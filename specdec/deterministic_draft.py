"""The exact rule for a deterministic draft: accept x with probability p(x), else resample without x.

A draft that does not sample — it proposes the argmax of its distribution, or the next token of a
lookup table, an n-gram match or a fixed list — puts all its mass on the token it proposes: its
distribution is the point mass δₓ, whatever its softmax says. The verify rule of the series is
exact for every draft distribution q, so it is exact for q = δₓ too, and there it reads:

* accept x with probability min(1, p(x)/δₓ(x)) = p(x);
* on a rejection, draw from the residual norm(max(0, p − δₓ)): p with x removed, renormalised,
  that is p(y) / (1 − p(x)) for every y ≠ x.

The output is exactly p: x comes out with probability p(x), and any y ≠ x with probability
(1 − p(x)) · p(y) / (1 − p(x)) = p(y). The acceptance rate is α = Σ min(p, δₓ) = p(x). Engines use
this rule for drafts that propose without sampling: vLLM's rejection sampler takes q(x) = 1 when it is
given no draft probabilities (lookup drafts, model drafts proposed by their argmax), and SGLang's EAGLE
tree verification (``tree_speculative_sampling_target_only``) is given zero draft rows. It is `specdec.speculative_step`
with each draft row replaced by the one-hot row of its token (`one_hot_rows`), and
`deterministic_draft_step` makes the same random draws.

What the rule is not: a draft that *samples* xᵢ from qᵢ must keep qᵢ in the ratio. Accepting a
sampled token with probability p(x) drops q, and the output is no longer p: that mistake is
`specdec.broken_rules.accept_with_target_probability`. Drafting the argmax while keeping the softmax
q in the ratio is the other half-way mistake, `specdec.broken_rules.greedy_draft`.

>>> import numpy as np
>>> target_probs = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]]
>>> deterministic_acceptance_rates(target_probs, [0, 1]).tolist()
[0.5, 0.6]
>>> deterministic_draft_step(target_probs, [0, 1], np.random.default_rng(2))
[0, 1, 3]
"""

from __future__ import annotations

import numpy as np

from .core import normalised_for_choice, speculative_step
from .output_law import PositionLaw, position_law
from .sampling import MAX_SAMPLED_TOKENS, sample_steps
from .validation import Constraint, Count, DistributionRows, Generator, Integers, checked


class _TargetRows(Constraint):
    """The γ+1 target rows of one verify step: a 2-D array of probability rows, at least one row."""

    def __call__(self, value, name, arguments):
        rows = DistributionRows()(value, name, arguments)
        if rows.shape[0] < 1:
            raise ValueError(f"{name} must have at least one row (γ+1 >= 1), got shape {rows.shape}")
        return rows


class _ProposedTokens(Constraint):
    """One proposed token id per target row but the last (γ of them), each in 0 … V − 1, as ints."""

    def __call__(self, value, name, arguments):
        rows = arguments["target_probs"]
        tokens = Integers("token ids")(value, name, arguments)
        if tokens.shape[0] != rows.shape[0] - 1:
            raise ValueError(
                f"{name} must hold one token per draft position, γ = {rows.shape[0] - 1} (one fewer than the "
                f"{rows.shape[0]} rows of target_probs), got {tokens.shape[0]}"
            )
        vocab = rows.shape[1]
        outside = (tokens < 0) | (tokens >= vocab)
        if outside.any():
            index = int(np.argmax(outside))
            raise ValueError(f"{name}[{index}] must be a token id in 0 … {vocab - 1}, got {int(tokens[index])}")
        return [int(token) for token in tokens]


DETERMINISTIC_STEP_ARGUMENTS = checked(target_probs=_TargetRows(), draft_tokens=_ProposedTokens(), rng=Generator())


@checked(vocab=Count(1), draft_tokens=Integers("token ids", low=0, high=lambda arguments: arguments["vocab"] - 1))
def one_hot_rows(draft_tokens, vocab) -> np.ndarray:
    """The point masses δₓ of the proposed tokens: row i is 1 at draft_tokens[i] and 0 elsewhere.

    `vocab` is checked first, then the tokens against it.

    >>> one_hot_rows([2, 0], 3)
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    rows = np.zeros((len(draft_tokens), vocab))
    rows[np.arange(len(draft_tokens)), draft_tokens] = 1.0
    return rows



@checked(draft_probs=DistributionRows())
def greedy_tokens(draft_probs) -> list[int]:
    """The argmax of each draft row (the first one on a tie): what a greedy draft proposes.

    >>> greedy_tokens([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2]])
    [1, 0]
    """
    return [int(np.argmax(row)) for row in draft_probs]


@checked(target_probs=_TargetRows(), draft_tokens=_ProposedTokens())
def deterministic_acceptance_rates(target_probs, draft_tokens) -> np.ndarray:
    """αᵢ = pᵢ(xᵢ): the probability that the rule keeps the proposed token at each draft position.

    >>> deterministic_acceptance_rates([[0.5, 0.5], [0.9, 0.1], [1.0, 0.0]], [1, 0]).tolist()
    [0.5, 0.9]
    """
    return target_probs[np.arange(len(draft_tokens)), draft_tokens].copy()


def deterministic_residual(target, token) -> np.ndarray:
    """norm(max(0, p − δₓ)): p without the proposed token x, renormalised (p itself if p(x) = 1).

    When p(x) = 1 the rule never rejects, and p is returned only so that the function is total.

    >>> deterministic_residual([0.5, 0.3, 0.2], 0)
    array([0. , 0.6, 0.4])
    """
    law = deterministic_position_law(target, token)
    return law.residual


@checked(target_probs=_TargetRows(), draft_tokens=_ProposedTokens())
def deterministic_position_laws(target_probs, draft_tokens) -> tuple[PositionLaw, ...]:
    """The exact law at each draft position, split into accepted and resampled parts (`position_law`).

    At position i the accepted part is pᵢ(xᵢ) on xᵢ and the resampled part pᵢ elsewhere: they add
    up to pᵢ.

    >>> law = deterministic_position_laws([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]], [0])[0]
    >>> law.accepted.tolist(), law.resampled.tolist()
    ([0.5, 0.0, 0.0], [0.0, 0.3, 0.2])
    """
    points = one_hot_rows(draft_tokens, target_probs.shape[1])
    return tuple(position_law(target_probs[i], points[i]) for i in range(len(draft_tokens)))


def deterministic_position_law(target, token) -> PositionLaw:
    """`deterministic_position_laws` for one position: p and the proposed token x.

    >>> deterministic_position_law([0.5, 0.3, 0.2], 1).acceptance_rate
    0.3
    """
    return deterministic_position_laws([target, target], [token])[0]


@DETERMINISTIC_STEP_ARGUMENTS
def deterministic_draft_step(target_probs, draft_tokens, rng) -> list[int]:
    """One verify step for a deterministic draft: accept xᵢ with probability pᵢ(xᵢ), else resample.

    Parameters
    ----------
    target_probs : array_like of shape (γ+1, V)
        Target rows p₀ … p_γ.
    draft_tokens : sequence of γ ints in 0 … V − 1
        The tokens the draft proposed without sampling (its argmax, a lookup, …).
    rng : numpy.random.Generator

    Returns
    -------
    list of int
        1 … γ+1 tokens. For i = 0 … γ−1: draw u = rng.random(); if u < pᵢ(xᵢ), keep xᵢ; otherwise
        draw one token from norm(max(0, pᵢ − δ_xᵢ)) with rng.choice and stop. If all γ are kept,
        draw a bonus token from p_γ. The draws are those of `specdec.speculative_step` with the
        draft rows `one_hot_rows(draft_tokens, V)`.

    Examples
    --------
    >>> import numpy as np
    >>> deterministic_draft_step([[0.0, 1.0], [0.5, 0.5]], [0], np.random.default_rng(1))  # p(0) = 0
    [1]
    """
    vocab = target_probs.shape[1]
    output: list[int] = []
    for i, token in enumerate(draft_tokens):
        p_x = target_probs.item(i, token)
        if rng.random() < p_x:
            output.append(token)
            continue
        residual = target_probs[i].copy()
        residual[token] = 0.0
        output.append(int(rng.choice(vocab, p=normalised_for_choice(residual))))
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target_probs[-1]))))
    return output


def deterministic_draft_step_via_one_hot(target_probs, draft_tokens, rng) -> list[int]:
    """`specdec.speculative_step` with the one-hot draft rows: the same rule, written as the general one.

    >>> import numpy as np
    >>> rows = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]]
    >>> deterministic_draft_step_via_one_hot(rows, [0, 1], np.random.default_rng(2))
    [0, 1, 3]
    """
    target_probs = _TargetRows()(target_probs, "target_probs", {})
    draft_tokens = _ProposedTokens()(draft_tokens, "draft_tokens", {"target_probs": target_probs})
    return speculative_step(target_probs, one_hot_rows(draft_tokens, target_probs.shape[1]), draft_tokens, rng)


@checked(target_probs=_TargetRows(), draft_tokens=_ProposedTokens(),
         n=Count(0, lambda arguments: MAX_SAMPLED_TOKENS // arguments["target_probs"].shape[0]), rng=Generator())
def sample_deterministic_steps(target_probs, draft_tokens, n, rng) -> tuple[np.ndarray, np.ndarray]:
    """n independent deterministic-draft steps at once, vectorised: (tokens, counts) as `specdec.sample_steps`.

    The draft rows are the one-hot rows of `draft_tokens`, so every step proposes the same tokens.
    The random draws differ from looping `deterministic_draft_step`; the law does not.

    >>> import numpy as np
    >>> tokens, counts = sample_deterministic_steps([[0.5, 0.5], [1.0, 0.0]], [0], 4, np.random.default_rng(0))
    >>> tokens.shape, sorted(set(counts.tolist())) <= [1, 2]
    ((4, 2), True)
    """
    return sample_steps(target_probs, one_hot_rows(draft_tokens, target_probs.shape[1]), n, rng)
