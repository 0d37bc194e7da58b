"""A verify step told in words, one line per random draw.

The terminal face (``python -m specdec step``) prints these lines, and the verify-step explorer shows
them as its log, so both tell the same story in the same words.

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

from .core import PositionTrace, StepTrace
from .rows import token_labels


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
    """The line for the bonus draw of a step whose draft tokens all passed."""
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


def narrate_trace(trace: StepTrace, labels: list[str] | None = None) -> list[str]:
    """Every draw of `trace` as a line of text, then a summary line.

    Parameters
    ----------
    trace : StepTrace
    labels : list of str, optional
        A name per token id; by default A, B, C, … (see `specdec.rows.token_labels`).
    """
    labels = labels if labels is not None else token_labels(trace.target_probs.shape[1])
    lines = [narrate_position(position, labels) for position in trace.positions]
    if trace.all_accepted:
        lines.append(narrate_bonus(trace, labels))
    lines.append(narrate_summary(trace, labels))
    return lines
