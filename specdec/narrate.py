"""A verify step to look at: the worked example or seeded random rows, and the step told draw by draw.

Real draft and target rows come from two language models. Here a target row is a Dirichlet draw
(small concentration gives the peaked rows language models produce) and its draft row is a blend
of that target row with an independent draw: ``closeness`` = 1 makes q equal p (α = 1), 0 makes the
two unrelated. Because q ≥ closeness·p pointwise, every row has α ≥ closeness.

``python -m specdec step`` prints `narrate_trace`'s lines and the verify-step explorer shows them as
its log, in the same words; `frame_at` says what the first k draws of a step have revealed.

>>> import numpy as np
>>> from specdec import trace_step
>>> trace = trace_step(*spec_example(), np.random.default_rng(0))
>>> for line in narrate_trace(trace):
...     print(line)
position 0: draft proposed A with p(A) = 0.5000, q(A) = 0.2500; threshold min(1, p/q) = 1.0000; u = 0.6370 < 1.0000, accepted
position 1: draft proposed B with p(B) = 0.6000, q(B) = 0.2000; threshold min(1, p/q) = 1.0000; u = 0.2698 < 1.0000, accepted
bonus: every draft token passed, so one more token is drawn from p₂: A
output: A B A (3 tokens: 2 accepted, 1 bonus)
"""

from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np

from .core import SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, PositionTrace, StepTrace, sample_draft, trace_step
from .validation import (MAX_GAMMA, MAX_VOCAB, Constraint, Count, Generator, InstanceOf, PositiveNumber, Probability,
                         checked)

#: The draft tokens of the first worked example (its rows: `core.SPEC_TARGET_PROBS`, `SPEC_DRAFT_PROBS`).
SPEC_DRAFT_TOKENS = (0, 1)
DEFAULT_CONCENTRATION = 0.5  #: Dirichlet concentration of the random rows: below 1, a few tokens hold most mass
PROBABILITY_FLOOR = 1e-9  #: added to every probability of a random row before renormalising, so that none is 0
MAX_ROW_ENTRIES = 10_000_000  #: the most probabilities `random_rows` makes, (2γ + 1)·V: 80 MB, far past readable


# The rows of a step. -------------------------------------------------------------------------------

def spec_example() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The worked example's step as fresh arrays: (target_probs (3, 4), draft_probs (2, 4), draft_tokens).

    >>> spec_example()[2]
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
        trace = trace_step(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)

    With ``example_drafts`` (the worked example's rows, γ = 2 and V = 4, with these draft tokens;
    `gamma`, `vocab` and `closeness` are then unused)::

        target_probs, draft_probs, _ = spec_example()
        trace = trace_step(target_probs, draft_probs, list(example_drafts), numpy.random.default_rng(seed))

    Parameters
    ----------
    seed : int >= 0
    gamma, vocab, closeness : as in `random_rows`
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
    gamma, vocab : int in 0 … 64, int in 2 … 1,000,000
        Together, (2γ + 1)·V is at most `MAX_ROW_ENTRIES`.
    closeness : float in [0, 1]
        Weight of the target row in each draft row: qᵢ = closeness·pᵢ + (1 − closeness)·dᵢ.
    rng : numpy.random.Generator
    concentration : float > 0, finite
        Dirichlet concentration of pᵢ and dᵢ.

    Returns
    -------
    target_probs of shape (γ+1, V) and draft_probs of shape (γ, V), rows summing to 1.

    Examples
    --------
    >>> target_probs, draft_probs = random_rows(gamma=3, vocab=6, closeness=0.5, rng=np.random.default_rng(0))
    >>> target_probs.shape, draft_probs.shape
    ((4, 6), (3, 6))
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
    `specdec.divergence.pair_cloud`); the public callers check the arguments. A small concentration
    makes many probabilities exactly 0 (underflow): the floor keeps every token possible, which the draft rows
    need (a drafted token must have q > 0) and KL(p‖q) too.

    >>> dirichlet_rows(np.random.default_rng(0), 2, 3).sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    """
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
    return list(string.ascii_uppercase[:vocab]) if vocab <= 26 else [f"t{i}" for i in range(vocab)]


# The step in words. --------------------------------------------------------------------------------

def narrate_position(position: PositionTrace, labels: list[str]) -> str:
    """One line for one visited draft position: the proposal, the threshold, u, and the verdict."""
    name, threshold = labels[position.draft_token], position.acceptance_probability
    line = (f"position {position.index}: draft proposed {name} with p({name}) = {position.target_prob:.4f}, "
            f"q({name}) = {position.draft_prob:.4f}; threshold min(1, p/q) = {threshold:.4f}; ")
    if position.accepted:
        return line + f"u = {position.uniform:.4f} < {threshold:.4f}, accepted"
    return line + (f"u = {position.uniform:.4f} ≥ {threshold:.4f}, rejected; "
                   f"redrawn from the residual norm(max(0, p − q)): {labels[position.resampled_token]}")


def narrate_bonus(trace: StepTrace, labels: list[str]) -> str:
    """The line for the bonus draw of a step whose draft tokens all passed (or that had none)."""
    token = labels[trace.bonus_token]
    if trace.gamma == 0:
        return f"bonus: with no draft tokens (γ = 0) the step draws its one token from p₀: {token}"
    return f"bonus: every draft token passed, so one more token is drawn from p{subscript(trace.gamma)}: {token}"


def narrate_summary(trace: StepTrace, labels: list[str]) -> str:
    """The closing line: the emitted tokens and where they came from."""
    counts = {origin: trace.origins.count(origin) for origin in ("accepted", "resampled", "bonus")}
    parts = ", ".join(f"{number} {origin}" for origin, number in counts.items() if number)
    emitted = " ".join(labels[token] for token in trace.tokens)
    return f"output: {emitted} ({len(trace.tokens)} {'token' if len(trace.tokens) == 1 else 'tokens'}: {parts})"


class Labels(Constraint):
    """A list of one token name (str) per token of `trace`'s vocabulary; None gives A, B, C, …"""
    def __call__(self, labels, name, arguments):
        vocab = arguments["trace"].target_probs.shape[1]
        if labels is None:
            return token_labels(vocab)
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
            raise TypeError(f"{name} must be a list of {vocab} token names, got {type(labels).__name__}")
        labels = list(labels)
        if len(labels) != vocab:
            raise ValueError(f"{name} must name every token of the vocabulary: {vocab} names, got {len(labels)}")
        if not all(isinstance(label, str) for label in labels):
            raise TypeError(f"{name} must be strings, got {sorted({type(label).__name__ for label in labels})}")
        return labels


TRACE = InstanceOf(StepTrace, "a StepTrace (what specdec.trace_step returns)")


@checked(trace=TRACE, labels=Labels())
def narrate_trace(trace: StepTrace, labels: list[str] | None = None) -> list[str]:
    """Every draw of `trace` as a line of text, then a summary line.

    Parameters
    ----------
    trace : StepTrace
    labels : list of str, optional
        A name per token id; by default A, B, C, … (see `token_labels`).
    """
    lines = [narrate_position(position, labels) for position in trace.positions]
    if trace.all_accepted:
        lines.append(narrate_bonus(trace, labels))
    return lines + [narrate_summary(trace, labels)]


def subscript(number: int) -> str:
    """The digits of `number` as Unicode subscripts: ``subscript(12) == "₁₂"``."""
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


@dataclass(frozen=True)
class StepFrame:
    """What the first `draws` random draws of a step have revealed."""
    draws: int
    """How many draws are shown, 0 … `total`."""
    total: int
    """How many draws the whole step makes: one per visited position, plus one for a bonus."""
    focus: int | None
    """The draft position whose rows are shown; None when γ = 0 (there are none)."""
    position: PositionTrace | None
    """The drawn position shown in the test panel; None before its u is drawn."""
    tokens: list[int]
    """The tokens emitted so far."""
    origins: list[str]
    """Where each emitted token came from: "accepted", "resampled" or "bonus"."""
    draft_states: list[str]
    """Per draft token: "pending", "accepted", "rejected", or "discarded" (after a rejection)."""
    bonus_drawn: bool
    """Whether the bonus token is among the emitted tokens."""
    bonus_next: bool
    """Whether the next draw is the bonus (every draft token has passed)."""

    @property
    def finished(self) -> bool:
        return self.draws == self.total


def draw_total(trace: StepTrace) -> int:
    """How many draws the explorer reveals in `trace`, one per emitted token: a uniform per visited position (a
    rejection's replacement token is revealed with its uniform), plus one for a bonus; so also ``len(trace.tokens)``.
    """
    return len(trace.positions) + (1 if trace.all_accepted else 0)


class Draws(Count):
    """How many draws of `trace` have been seen: an integer in 0 … `draw_total(trace)`."""
    def __call__(self, value, name, arguments):
        draws, total = super().__call__(value, name, arguments), draw_total(arguments["trace"])
        if draws > total:
            raise ValueError(f"{name} must be in 0 … {total} for this step, got {draws}")
        return draws


@checked(trace=TRACE, draws=Draws())
def frame_at(trace: StepTrace, draws: int) -> StepFrame:
    """What a viewer has seen after the first `draws` draws of `trace`.

    Each draw emits exactly one token (an accepted draft token, a resampled token or the bonus),
    so after k draws the output is ``trace.tokens[:k]``.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec import trace_step
    >>> frame = frame_at(trace_step(*spec_example(), np.random.default_rng(0)), 2)
    >>> frame.tokens, frame.draft_states, frame.bonus_next
    ([0, 1], ['accepted', 'accepted'], True)
    """
    total, visited = draw_total(trace), len(trace.positions)
    shown = min(draws, visited)
    rejection_shown = shown == visited and visited > 0 and not trace.positions[-1].accepted
    states = [("accepted" if trace.positions[index].accepted else "rejected") if index < shown
              else "discarded" if rejection_shown else "pending" for index in range(trace.gamma)]
    if trace.gamma == 0:
        focus, position = None, None
    elif draws == 0:
        focus, position = 0, None
    else:
        focus = shown - 1
        position = trace.positions[focus]
    return StepFrame(draws=draws, total=total, focus=focus, position=position, tokens=list(trace.tokens[:draws]),
                     origins=list(trace.origins[:draws]), draft_states=states,
                     bonus_drawn=trace.all_accepted and draws == total,
                     bonus_next=trace.all_accepted and draws == visited)
