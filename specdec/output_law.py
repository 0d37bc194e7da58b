"""The exact law of what a verify step emits, worked out term by term rather than sampled.

At one position with target p and draft q, a token x comes out in one of two ways:

* the draft proposed x (probability q(x)) and the rule accepted it (probability min(1, p(x)/q(x))):
  together q(x)·min(1, p(x)/q(x)) = min(p(x), q(x));
* the rule rejected (probability 1 − α, where α = Σ min(p, q)) and redrew x from the residual
  r = max(0, p − q) / (1 − α): together max(0, p(x) − q(x)).

min(p, q) + max(0, p − q) = p, for every x: the output is distributed exactly as p. `position_law`
returns the two parts separately so that a figure can stack them.

Over a whole step, position i is reached only if positions 0 … i−1 all accepted, which happens with
probability α₀·…·α_{i−1}; *given* that it is reached, its token is distributed as pᵢ. The number of
tokens a step emits follows `token_count_law`.

>>> law = position_law([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])
>>> law.accepted, law.resampled
(array([0.25, 0.25, 0.2 , 0.  ]), array([0.25, 0.05, 0.  , 0.  ]))
>>> law.total
array([0.5, 0.3, 0.2, 0. ])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import unchecked_residual
from .theory import acceptance_rates, survival_probabilities, token_count_distribution_for_rates
from .validation import Constraint, Count, Distribution, Integers, checked


@dataclass(frozen=True)
class PositionLaw:
    """The law of the token emitted at one position, split by how it came out."""

    target: np.ndarray
    """p."""
    draft: np.ndarray
    """q."""
    acceptance_rate: float
    """α = Σ min(p, q)."""
    accepted: np.ndarray
    """min(p, q): the probability that x is drafted and accepted."""
    residual: np.ndarray
    """r = norm(max(0, p − q)): the law of a replacement token."""
    resampled: np.ndarray
    """(1 − α)·r = max(0, p − q): the probability that x comes out as a replacement."""

    @property
    def total(self) -> np.ndarray:
        """accepted + resampled: equal to p up to rounding."""
        return self.accepted + self.resampled


@checked(target=Distribution(), draft=Distribution(like="target"))
def position_law(target, draft) -> PositionLaw:
    """Split the output law at one position into its accepted and its resampled part.

    Parameters
    ----------
    target, draft : array_like of shape (V,)
        p and q.

    Returns
    -------
    PositionLaw
        ``accepted + resampled`` equals `target` up to rounding.

    Examples
    --------
    >>> law = position_law([0.1, 0.6, 0.2, 0.1], [0.4, 0.2, 0.2, 0.2])
    >>> round(law.acceptance_rate, 10), law.residual
    (0.6, array([0., 1., 0., 0.]))
    >>> bool(np.allclose(law.total, [0.1, 0.6, 0.2, 0.1]))
    True
    """
    accepted = np.minimum(target, draft)
    alpha = float(accepted.sum())
    residual = unchecked_residual(target, draft)
    return PositionLaw(
        target=target.copy(),
        draft=draft.copy(),
        acceptance_rate=alpha,
        accepted=accepted,
        residual=residual,
        resampled=max(0.0, 1.0 - alpha) * residual,
    )


def token_count_law(target_probs, draft_probs) -> np.ndarray:
    """P(N = k), k = 1 … γ+1, for the number N of tokens one step emits on these rows.

    Each position has its own rate αᵢ = Σ min(pᵢ, qᵢ); P(N = k) = α₀·…·α_{k−2}·(1 − α_{k−1}).

    Examples
    --------
    >>> token_count_law([[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25] * 4],
    ...                 [[0.25] * 4, [0.4, 0.2, 0.2, 0.2]])
    array([0.3 , 0.28, 0.42])
    """
    return token_count_distribution_for_rates(acceptance_rates(target_probs, draft_probs))


def reach_probabilities(target_probs, draft_probs) -> np.ndarray:
    """P(a step emits a token at position i), i = 0 … γ: the product α₀·…·α_{i−1}.

    Examples
    --------
    >>> reach_probabilities([[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25] * 4],
    ...                     [[0.25] * 4, [0.4, 0.2, 0.2, 0.2]])
    array([1.  , 0.7 , 0.42])
    """
    return survival_probabilities(acceptance_rates(target_probs, draft_probs))


class StepPosition(Count):
    """A position of the sampled `tokens`: an integer in 0 … γ."""

    def __call__(self, value, name, arguments):
        position, columns = super().__call__(value, name, arguments), arguments["tokens"].shape[1]
        if position >= columns:
            raise ValueError(f"{name} must be in 0 … {columns - 1} (γ), got {position}")
        return position


class CountsPerStep(Constraint):
    """One token count per row of the sampled `tokens`, as an integer array."""

    def __call__(self, value, name, arguments):
        counts, tokens = Integers("token counts (one per step)")(value, name, arguments), arguments["tokens"]
        if counts.shape != tokens.shape[:1]:
            raise ValueError(f"tokens must be (n, γ+1) and {name} (n,), got shapes {tokens.shape} and {counts.shape}")
        return counts


@checked(tokens=Integers("token ids (padded with -1)", ndim=2), counts=CountsPerStep(), position=StepPosition())
def position_tokens(tokens, counts, position) -> np.ndarray:
    """The tokens emitted at `position` by the steps that reached it (a view-free 1-D int array).

    Parameters
    ----------
    tokens, counts : numpy.ndarray
        As returned by `specdec.sample_steps`: integer arrays of shapes (n, γ+1), padded with −1,
        and (n,). `specdec.goodness_of_fit.StepSamples` checks them in full.
    position : int

    Examples
    --------
    >>> position_tokens(np.array([[2, -1], [0, 1]]), np.array([1, 2]), 1)
    array([1])
    """
    return tokens[counts > position, position]
