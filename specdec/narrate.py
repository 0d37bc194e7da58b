"""A verify step told draw by draw: in words, one line per random draw, and as frames.

The terminal face (``python -m specdec step``) prints these lines, and the verify-step explorer shows
them as its log, so both tell the same story in the same words. `frame_at` says what the first k
draws of a step have revealed (which tokens are out, which draft tokens passed, what is drawn next):
the explorer shows that frame.

>>> import numpy as np
>>> from specdec import trace_step
>>> from specdec.rows import spec_example
>>> trace = trace_step(*spec_example(), np.random.default_rng(0))
>>> for line in narrate_trace(trace):
...     print(line)
position 0: draft proposed A with p(A) = 0.5000, q(A) = 0.2500; threshold min(1, p/q) = 1.0000; u = 0.6370 < 1.0000, accepted
position 1: draft proposed B with p(B) = 0.6000, q(B) = 0.2000; threshold min(1, p/q) = 1.0000; u = 0.2698 < 1.0000, accepted
bonus: every draft token passed, so one more token is drawn from p_2: A
output: A B A (3 tokens: 2 accepted, 1 bonus)
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import PositionTrace, StepTrace
from .rows import spec_example, token_labels
from .validation import Constraint, Count, InstanceOf, checked


def narrate_position(position: PositionTrace, labels: list[str]) -> str:
    """One line for one visited draft position: the proposal, the threshold, u, and the verdict."""
    name = labels[position.draft_token]
    line = (
        f"position {position.index}: draft proposed {name} with p({name}) = {position.target_prob:.4f}, "
        f"q({name}) = {position.draft_prob:.4f}; threshold min(1, p/q) = {position.acceptance_probability:.4f}; "
    )
    if position.accepted:
        return line + f"u = {position.uniform:.4f} < {position.acceptance_probability:.4f}, accepted"
    return line + (
        f"u = {position.uniform:.4f} >= {position.acceptance_probability:.4f}, rejected; "
        f"redrawn from the residual norm(max(0, p - q)): {labels[position.resampled_token]}"
    )


def narrate_bonus(trace: StepTrace, labels: list[str]) -> str:
    """The line for the bonus draw of a step whose draft tokens all passed (or that had none)."""
    if trace.gamma == 0:
        return f"bonus: with no draft tokens (γ = 0) the step draws its one token from p_0: {labels[trace.bonus_token]}"
    return (
        f"bonus: every draft token passed, so one more token is drawn from p_{trace.gamma}: "
        f"{labels[trace.bonus_token]}"
    )


def narrate_summary(trace: StepTrace, labels: list[str]) -> str:
    """The closing line: the emitted tokens and where they came from."""
    counts = {origin: trace.origins.count(origin) for origin in ("accepted", "resampled", "bonus")}
    parts = ", ".join(f"{number} {origin}" for origin, number in counts.items() if number)
    emitted = " ".join(labels[token] for token in trace.tokens)
    noun = "token" if len(trace.tokens) == 1 else "tokens"
    return f"output: {emitted} ({len(trace.tokens)} {noun}: {parts})"


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
        A name per token id; by default A, B, C, … (see `specdec.rows.token_labels`).
    """
    lines = [narrate_position(position, labels) for position in trace.positions]
    if trace.all_accepted:
        lines.append(narrate_bonus(trace, labels))
    lines.append(narrate_summary(trace, labels))
    return lines


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def subscript(number: int) -> str:
    """The digits of `number` as Unicode subscripts: ``subscript(12) == "₁₂"``."""
    return str(number).translate(_SUBSCRIPTS)


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
    """How many random draws `trace` made: one uniform per visited position, plus one for a bonus.

    Each draw emits one token, so this is also ``len(trace.tokens)``.
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
    >>> trace = trace_step(*spec_example(), np.random.default_rng(0))
    >>> frame = frame_at(trace, 2)
    >>> frame.tokens, frame.draft_states, frame.bonus_next
    ([0, 1], ['accepted', 'accepted'], True)
    """
    total = draw_total(trace)
    visited = len(trace.positions)
    gamma = trace.gamma
    shown_positions = min(draws, visited)
    rejection_shown = shown_positions == visited and visited > 0 and not trace.positions[-1].accepted
    states = []
    for index in range(gamma):
        if index < shown_positions:
            states.append("accepted" if trace.positions[index].accepted else "rejected")
        elif rejection_shown:
            states.append("discarded")
        else:
            states.append("pending")
    if gamma == 0:
        focus, position = None, None
    elif draws == 0:
        focus, position = 0, None
    else:
        focus = shown_positions - 1
        position = trace.positions[focus]
    bonus_drawn = trace.all_accepted and draws == total
    return StepFrame(
        draws=draws,
        total=total,
        focus=focus,
        position=position,
        tokens=list(trace.tokens[:draws]),
        origins=list(trace.origins[:draws]),
        draft_states=states,
        bonus_drawn=bonus_drawn,
        bonus_next=trace.all_accepted and draws == visited,
    )
