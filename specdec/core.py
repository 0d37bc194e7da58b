"""The verify rule of speculative decoding, and a trace of every random draw it makes.

Notation: p is the target model's distribution, q is the draft model's. One verify step gets γ draft
tokens x₀ … x_{γ-1}, the draft rows q₀ … q_{γ-1} they were sampled from, and γ+1 target rows
p₀ … p_γ (the target scores all drafted positions, plus the one after them, in a single pass).

For i = 0 … γ-1 the step draws u ~ U[0, 1) and accepts xᵢ when u < min(1, pᵢ(xᵢ)/qᵢ(xᵢ)). At the
first rejection it draws a replacement from the residual norm(max(0, pᵢ − qᵢ)) and stops. If every
draft token passes, it draws a bonus token from p_γ. The random draws are exactly
``rng.random()`` per visited position, then one ``rng.choice(V, p=...)``, in that order.

What is simplified: the rows are plain probability arrays, not the outputs of two neural networks
(whose target rows for one step come from one batched forward pass), so that every number can be seen.

The rule is written once, in `verify`: `speculative_step` runs it bare, `trace_step` asks it to record
each draw. Beside it: what a step yields on average (`expected_tokens`; per position `acceptance_rates`,
`expected_tokens_for_rates`), `speedup`, and `rigged_generator`, whose first uniform is chosen, for the
draws of probability 2⁻⁵³ on which the strict comparison matters.

>>> import numpy as np
>>> target_probs = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]]
>>> draft_probs = [[0.25, 0.25, 0.25, 0.25], [0.4, 0.2, 0.2, 0.2]]
>>> speculative_step(target_probs, draft_probs, [0, 1], np.random.default_rng(0))
[0, 1, 0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .validation import (CostRatio, Count, Distribution, DistributionRows, DraftTokens, Generator, Probability, Rates,
                         StepRows, checked)

#: numpy's Generator.choice refuses p unless it sums to 1 within sqrt(machine epsilon); our checks
#: accept rows within 1e-6, so such rows are renormalised before they are handed to it.
CHOICE_TOLERANCE = math.sqrt(np.finfo(np.float64).eps)

#: The worked example (the rows of the examples above): target rows p₀ … p₂ and draft rows q₀, q₁.
SPEC_TARGET_PROBS = ((0.5, 0.3, 0.2, 0.0), (0.1, 0.6, 0.2, 0.1), (0.25, 0.25, 0.25, 0.25))
SPEC_DRAFT_PROBS = ((0.25, 0.25, 0.25, 0.25), (0.4, 0.2, 0.2, 0.2))


@checked(target=Distribution(), draft=Distribution(like="target"))
def acceptance_rate(target, draft) -> float:
    """Probability that the rule accepts one draft token: α = Σₓ min(p(x), q(x)).

    Parameters
    ----------
    target, draft : array_like of shape (V,)
        The target distribution p and the draft distribution q. Each sums to 1.

    Returns
    -------
    float
        α in [0, 1]. It equals 1 − TV(p, q).

    Examples
    --------
    >>> acceptance_rate([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])
    0.7
    """
    # Rows may sum to 1 only within rounding (or the 1e-6 the checks allow); α is a probability.
    return min(1.0, float(np.minimum(target, draft).sum()))


@checked(target=Distribution(), draft=Distribution(like="target"))
def residual_distribution(target, draft) -> np.ndarray:
    """The distribution a rejected token is redrawn from: norm(max(0, p − q)).

    Parameters
    ----------
    target, draft : array_like of shape (V,)
        The target distribution p and the draft distribution q.

    Returns
    -------
    numpy.ndarray of shape (V,)
        A new float array that sums to 1. When max(0, p − q) has no mass (p == q up to rounding),
        a float copy of `target`; a rejection cannot then happen except through rounding, and the
        copy keeps the step free of NaN.

    Examples
    --------
    >>> residual_distribution([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])
    array([0.83333333, 0.16666667, 0.        , 0.        ])
    """
    return unchecked_residual(target, draft)


@checked(alpha=Probability(), gamma=Count())
def expected_tokens(alpha, gamma) -> float:
    """Expected number of tokens one verify step yields: (1 − α^(γ+1)) / (1 − α).

    Parameters
    ----------
    alpha : float in [0, 1]
        The acceptance rate, the same at every position.
    gamma : int >= 0
        The number of draft tokens.

    Returns
    -------
    float
        Between 1 and γ+1; exactly γ+1 at α = 1 and 1 at γ = 0. Computed as −expm1((γ+1)·log1p(−d)) / d with
        d = 1 − α, which stays accurate as α → 1 where the textbook form loses its digits.

    Examples
    --------
    >>> expected_tokens(0.8, 4), expected_tokens(1.0, 4), expected_tokens(0.0, 4)
    (3.3616, 5.0, 1.0)
    """
    if alpha == 1.0:
        return float(gamma + 1)
    if alpha == 0.0 or gamma == 0:  # at γ = 0 the formula below can miss 1 by a rounding step
        return 1.0
    shortfall = 1.0 - alpha
    # log α, computed as log1p(−d) where α is near 1 (d is exact there, α's own digits are not).
    log_alpha = math.log1p(-shortfall) if alpha > 0.5 else math.log(alpha)
    return -math.expm1((gamma + 1) * log_alpha) / shortfall


@checked(alpha=Probability(), gamma=Count(), c=CostRatio())
def speedup(alpha, gamma, c) -> float:
    """Expected speedup over plain decoding: expected_tokens(α, γ) / (1 + γ/c).

    One step costs γ draft passes and one target pass, 1 + γ/c target-pass units (the target's pass
    over γ+1 positions is taken to cost the same as a pass over one; sampling is free).

    Parameters
    ----------
    alpha : float in [0, 1]
        The acceptance rate.
    gamma : int >= 0
        The draft length.
    c : float > 0
        Time of one target forward pass over one draft pass (20: a draft twenty times cheaper; ``math.inf``: free).

    Examples
    --------
    >>> round(speedup(0.6, 3, 10), 2)
    1.67
    """
    return unchecked_speedup(alpha, gamma, c)


def unchecked_speedup(alpha: float, gamma: int, c: float) -> float:
    """`speedup` without the argument checks, for loops over values already checked."""
    return expected_tokens.__wrapped__(alpha, gamma) / (1.0 + gamma / c)


@checked(StepRows("target_probs", "draft_probs"))
def acceptance_rates(target_probs, draft_probs) -> np.ndarray:
    """The acceptance rate αᵢ = Σₓ min(pᵢ(x), qᵢ(x)) of each draft position of one step.

    `target_probs` has shape (γ+1, V), `draft_probs` (γ, V); the result, shape (γ,).

    Examples
    --------
    >>> acceptance_rates([[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25] * 4],
    ...                  [[0.25] * 4, [0.4, 0.2, 0.2, 0.2]])
    array([0.7, 0.6])
    """
    # Rows sum to 1 only within rounding; an acceptance rate is still a probability.
    return np.minimum(np.minimum(target_probs[:-1], draft_probs).sum(axis=1), 1.0)


@checked(rates=Rates())
def expected_tokens_for_rates(rates) -> float:
    """Expected tokens of one step when position i has its own acceptance rate αᵢ: Σₖ₌₀^γ Πᵢ<ₖ αᵢ.

    Examples
    --------
    >>> expected_tokens_for_rates([0.7, 0.7])  # doctest: +ELLIPSIS
    2.19...
    """
    return float(np.concatenate(([1.0], np.cumprod(rates))).sum())


#: The arguments of one verify step: (γ+1, V) and (γ, V) rows, γ drafted tokens, a generator.
STEP_ARGUMENTS = checked(StepRows("target_probs", "draft_probs"), draft_tokens=DraftTokens(), rng=Generator())


@STEP_ARGUMENTS
def speculative_step(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Verify γ draft tokens against the target and return the tokens this step emits.

    Parameters
    ----------
    target_probs : array_like of shape (γ+1, V)
        Target rows p₀ … p_γ; row γ is used only for the bonus token.
    draft_probs : array_like of shape (γ, V)
        Draft rows q₀ … q_{γ-1} that the draft tokens were sampled from.
    draft_tokens : sequence of γ ints
        The draft tokens; qᵢ(xᵢ) must be > 0.
    rng : numpy.random.Generator
        Source of the draws: one ``rng.random()`` per visited position, then one
        ``rng.choice(V, p=...)`` from the residual or, if all passed, from p_γ.

    Returns
    -------
    list of int
        The accepted draft tokens followed by one resampled or bonus token: length 1 … γ+1.
        The inputs are not modified.

    Examples
    --------
    >>> import numpy as np
    >>> target_probs = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]]
    >>> draft_probs = [[0.25, 0.25, 0.25, 0.25], [0.4, 0.2, 0.2, 0.2]]
    >>> speculative_step(target_probs, draft_probs, [3, 0], np.random.default_rng(0))
    [0]
    """
    return verify(target_probs, draft_probs, draft_tokens, rng)


@dataclass(frozen=True)
class PositionTrace:
    """What happened at one visited draft position of a verify step."""

    index: int
    """The position i."""
    draft_token: int
    """xᵢ, the token the draft proposed."""
    target_prob: float
    """pᵢ(xᵢ)."""
    draft_prob: float
    """qᵢ(xᵢ)."""
    acceptance_probability: float
    """min(1, pᵢ(xᵢ)/qᵢ(xᵢ)): the threshold the uniform is compared with."""
    uniform: float
    """u, the uniform draw."""
    accepted: bool
    """Whether u < acceptance_probability."""
    residual: np.ndarray | None = None
    """On rejection: norm(max(0, pᵢ − qᵢ)), the distribution of the replacement."""
    resampled_token: int | None = None
    """On rejection: the token drawn from the residual."""


@dataclass(frozen=True)
class StepTrace:
    """Every draw of one verify step, in the order they were made.

    `positions` holds one `PositionTrace` per visited draft position. When every draft token was
    accepted, `bonus_distribution` (p_γ) and `bonus_token` are set; otherwise both are None and
    the last position holds the residual and the resampled token.
    """

    target_probs: np.ndarray
    draft_probs: np.ndarray
    draft_tokens: list[int]
    positions: tuple[PositionTrace, ...]
    tokens: list[int]
    """The emitted tokens; identical to `speculative_step`'s output for the same RNG state."""
    bonus_distribution: np.ndarray | None = None
    bonus_token: int | None = None
    origins: list[str] = field(init=False)
    """For each emitted token: "accepted", "resampled" or "bonus"."""

    def __post_init__(self):
        origins = ["accepted" if position.accepted else "resampled" for position in self.positions]
        if self.bonus_token is not None:
            origins.append("bonus")
        object.__setattr__(self, "origins", origins)

    @property
    def gamma(self) -> int:
        return len(self.draft_tokens)

    @property
    def all_accepted(self) -> bool:
        return self.bonus_token is not None


@STEP_ARGUMENTS
def trace_step(target_probs, draft_probs, draft_tokens, rng) -> StepTrace:
    """Run `speculative_step` and record every draw it makes.

    Takes the same arguments as `speculative_step`, makes the same draws from `rng` and emits the
    same tokens; on top, it returns what was compared with what at each position.

    Examples
    --------
    >>> import numpy as np
    >>> target_probs = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]]
    >>> draft_probs = [[0.25, 0.25, 0.25, 0.25], [0.4, 0.2, 0.2, 0.2]]
    >>> trace = trace_step(target_probs, draft_probs, [0, 1], np.random.default_rng(0))
    >>> trace.tokens, trace.origins
    ([0, 1, 0], ['accepted', 'accepted', 'bonus'])
    >>> round(trace.positions[0].uniform, 4), trace.positions[0].acceptance_probability
    (0.637, 1.0)
    """
    positions: list[PositionTrace] = []
    output = verify(target_probs, draft_probs, draft_tokens, rng, positions)
    all_accepted = len(positions) == len(draft_tokens) and all(position.accepted for position in positions)
    return StepTrace(
        target_probs=target_probs.copy(),
        draft_probs=draft_probs.copy(),
        draft_tokens=list(draft_tokens),
        positions=tuple(positions),
        tokens=output,
        bonus_distribution=target_probs[-1].copy() if all_accepted else None,
        bonus_token=output[-1] if all_accepted else None,
    )


@checked(draft_probs=DistributionRows(), rng=Generator())
def sample_draft(draft_probs, rng) -> list[int]:
    """Draw the γ draft tokens (a list of ints, each with qᵢ(xᵢ) > 0) from the (γ, V) rows `draft_probs`:
    one ``rng.choice(V, p=qᵢ)`` per row, in row order.

    Examples
    --------
    >>> import numpy as np
    >>> sample_draft([[0.25, 0.25, 0.25, 0.25], [0.4, 0.2, 0.2, 0.2]], np.random.default_rng(0))
    [2, 0]
    """
    vocab = draft_probs.shape[1]
    return [int(rng.choice(vocab, p=normalised_for_choice(row))) for row in draft_probs]


@STEP_ARGUMENTS
def check_step_arguments(target_probs, draft_probs, draft_tokens, rng):
    """Check the arguments of one verify step and return them clean, before any draw.

    Returns ``(target, draft, tokens, rng)``: float arrays of shapes (γ+1, V) and (γ, V), a list of
    Python ints, and the generator. Raises ValueError or TypeError naming the bad argument.

    >>> import numpy as np
    >>> target, draft, tokens, rng = check_step_arguments([[1.0, 0.0]], [], [], np.random.default_rng(0))
    >>> target.shape, draft.shape, tokens
    ((1, 2), (0, 2), [])
    """
    return target_probs, draft_probs, draft_tokens, rng


def verify(target, draft, tokens, rng, positions: list | None = None) -> list[int]:
    """The rule itself, on arguments that `check_step_arguments` has already checked.

    `speculative_step` is exactly `check_step_arguments` followed by this function. If `positions`
    is a list, one `PositionTrace` per visited position is appended to it (that is how `trace_step`
    records the draws without a second copy of the rule).

    >>> import numpy as np
    >>> verify(np.array([[0.5, 0.5], [0.0, 1.0]]), np.array([[0.5, 0.5]]), [1], np.random.default_rng(0))
    [1, 1]
    """
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:  # strict: a token with p(x) = 0 is never accepted, not even at u = 0
            output.append(token)
            if positions is not None:
                positions.append(PositionTrace(i, token, p_x, q_x, threshold, u, True))
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        if positions is not None:
            positions.append(PositionTrace(i, token, p_x, q_x, threshold, u, False, residual, resampled))
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def unchecked_residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """norm(max(0, p − q)) for two float rows already checked; a float copy of p if that has no mass.

    `residual_distribution` is this function behind the argument checks.

    >>> unchecked_residual(np.array([0.5, 0.5]), np.array([0.5, 0.5]))
    array([0.5, 0.5])
    """
    excess = p - q
    np.maximum(excess, 0.0, out=excess)
    mass = excess.sum()
    if mass > 0:
        excess /= mass
        return excess
    return np.array(p, dtype=np.float64)


def normalised_for_choice(row: np.ndarray) -> np.ndarray:
    """`row`, divided by its sum if that sum is further from 1 than `rng.choice` tolerates.

    The checks accept a row that sums to 1 within 1e-6, but numpy's ``Generator.choice`` wants the
    sum within about 1.5e-8. The residual's fallback, a copy of pᵢ, is one such row: it is exactly
    as close to 1 as the caller's pᵢ, so it is rescaled here before the draw.

    >>> normalised_for_choice(np.array([0.5, 0.5 + 1e-7]))
    array([0.49999995, 0.50000005])
    """
    total = row.sum()
    if abs(total - 1.0) > CHOICE_TOLERANCE:
        return row / total
    return row


# --- A generator rigged to produce one chosen uniform -----------------------------------------------


def rigged_generator(first_uniform, seed=0) -> np.random.Generator:
    """A PCG64 generator whose next ``random()`` returns exactly `first_uniform`.

    ``Generator.random`` turns the top 53 bits of one 64-bit output into a double, so any value
    k·2⁻⁵³ in [0, 1) can be produced; `first_uniform` is rounded down to that grid. The state that
    produces it is found by inverting one step of PCG64; the draws after it look random as usual.
    Sampling alone would meet u = 0 once in 2⁵³ draws; with this generator a test meets it at once.

    >>> rigged_generator(0.0).random(), rigged_generator(0.25, seed=3).random()
    (0.0, 0.25)
    """
    value = float(first_uniform)
    if not 0.0 <= value < 1.0:
        raise ValueError(f"first_uniform must be in [0, 1), got {first_uniform!r}")
    generator = np.random.Generator(np.random.PCG64(seed))
    state = generator.bit_generator.state
    # PCG64 steps its 128-bit state s → s·M + inc, then outputs rotr64(high ^ low, high >> 58).
    high = 0x0123456789ABCDEF  # top six bits 0: no rotation
    stepped = (high << 64) | (high ^ (int(value * 2.0**53) << 11))
    inverse_multiplier = pow(0x2360ED051FC65DA44385DF649FCCF645, -1, 1 << 128)
    state["state"]["state"] = ((stepped - state["state"]["inc"]) * inverse_multiplier) % (1 << 128)
    state["has_uint32"] = 0
    generator.bit_generator.state = state
    return generator
