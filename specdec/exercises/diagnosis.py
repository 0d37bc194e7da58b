"""Match a failure to the mistake behind it, and say what the rule does on the failing case.

Three sources of evidence, tried in this order:

1. the problem itself: a wrong type, a changed input or a draw from the global generator says
   what is wrong without further work;
2. what is special about the failing case (its tags): NaN where max(0, p − q) has no mass, an
   exception or infinity at α = 1, a 0/0 at a token neither model can produce;
3. the known mistakes of the exercise (`mistakes.py`, with the broken rules of
   `specdec.broken_rules` for the verify step): each is run on the same cases, and the first whose
   outputs the learner's function reproduces is named. Where the cases make random draws (the
   verify step) it must reproduce tokens and generator state on every case, which tells apart
   mistakes that agree on most seeds; for the other exercises, on every case whose value is wrong.

If nothing matches, the feedback still shows the failing case, and for the verify step a trace of
what the correct rule does on it, draw by draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import hints
from ..core import trace_step
from .cases import Case
from .comparisons import Problem, as_number
from .running import Outcome, error_text, run

#: How many draws `draws_made` looks through before it gives up.
MAX_COUNTED_DRAWS = 256


@dataclass(frozen=True)
class Diagnosis:
    """The hint for a failure, where the same mistake shows in real code, and what the rule does."""

    hint: str | None = None
    in_practice: str | None = None
    rule_trace: str | None = None


def diagnose(exercise, cases, expected: list[Outcome], got: list[Outcome], problems: list,
             index: int) -> Diagnosis:
    """Explain `problems[index]`, the first failure of the learner's function on `cases`.

    `exercise` is the `specdec.exercises.registry.Exercise` the cases belong to.
    """
    problem: Problem = problems[index]
    case, outcome = cases[index], got[index]
    traced = exercise.explain is not None and problem.kind in ("value", "draws", "error")
    trace = exercise.explain(case) if traced else None
    hint = problem.hint or _hint_from_case(exercise, problem, case, outcome)
    if hint is not None:
        return Diagnosis(hint, rule_trace=trace)
    mistake = _matching_mistake(exercise, cases, got, problems, index)
    if mistake is not None:
        return Diagnosis(mistake.hint, mistake.in_practice, trace)
    return Diagnosis(_last_resort_hint(problem, case, outcome, expected[index]), rule_trace=trace)


def _hint_from_case(exercise, problem: Problem, case: Case, outcome: Outcome) -> str | None:
    """A hint that what is special about the failing case gives away, before any mistake is run."""
    if problem.kind == "error":
        if isinstance(outcome.error, ZeroDivisionError) and "alpha_one" in case.tags:
            return hints.ALPHA_ONE
        return None
    untouched = case.seed is not None and outcome.rng_state == case.generator().bit_generator.state
    if problem.kind in ("value", "draws") and untouched:
        return hints.NO_DRAWS
    if problem.kind != "value":
        return None
    if "alpha_one" in case.tags and _not_finite(outcome.value):
        return hints.ALPHA_ONE
    return exercise.value_hint(case, outcome.value) if exercise.value_hint else None


def acceptance_rate_value_hint(case: Case, value) -> str | None:
    """acceptance_rate's wrong value on a case that gives the mistake away."""
    if "zero_over_zero" in case.tags and _not_finite(value):
        return hints.ZERO_OVER_ZERO
    return None


def residual_value_hint(case: Case, value) -> str | None:
    """residual_distribution's wrong value on a case that gives the mistake away."""
    values = np.asarray(value, dtype=np.float64)
    if "zero_residual" in case.tags and np.isnan(values).any():
        return hints.RESIDUAL_WITHOUT_FALLBACK
    if (values < 0).any():
        return hints.NOT_CLIPPED
    return None


def _last_resort_hint(problem: Problem, case: Case, outcome: Outcome, expected: Outcome) -> str | None:
    """A hint from the symptom alone, when no known mistake reproduces the learner's outputs."""
    if problem.kind == "draws":
        return hints.draw_count(draws_made(case, expected.rng_state), draws_made(case, outcome.rng_state))
    if problem.kind == "error" and case.seed is not None:  # the error came from a random draw
        if "zero_residual" in case.tags and "NaN" in error_text(outcome.error):
            return hints.RESIDUAL_WITHOUT_FALLBACK
        if "sum to 1" in error_text(outcome.error):
            return hints.NOT_NORMALISED_FOR_CHOICE
    return None


def _not_finite(value) -> bool:
    if isinstance(value, (tuple, list)) and len(value) == 2:  # optimal_gamma's (γ, speedup)
        value = value[1]
    number = as_number(value)
    return number is not None and not math.isfinite(number)


def _matching_mistake(exercise, cases, got, problems, index):
    """The first known mistake whose outcomes are the learner's on the cases that tell (see module doc)."""
    if cases[index].seed is not None:  # random draws: every case, to tell apart mistakes that agree on most seeds
        relevant = [index] + [i for i in range(len(cases)) if i != index]
    else:
        relevant = [i for i, problem in enumerate(problems) if problem is not None and problem.kind == "value"]
        if problems[index].kind == "error":
            relevant = [index] + relevant
    if not relevant:
        return None
    for mistake in exercise.mistakes:
        if all(exercise.result.same_result(run(mistake.function, cases[i]), got[i]) for i in relevant):
            return mistake
    return None


def draws_made(case: Case, state: dict | None, limit: int = MAX_COUNTED_DRAWS) -> int | None:
    """How many 64-bit draws take the case's fresh generator to `state`; None if not within `limit`.

    Every draw the rule makes, ``rng.random()`` or ``rng.choice(V, p=…)``, uses one 64-bit output.

    >>> from specdec.exercises.cases import step_cases
    >>> case = step_cases()[0]
    >>> rng = case.generator()
    >>> _ = rng.random(), rng.random(), rng.random()
    >>> draws_made(case, rng.bit_generator.state)
    3
    """
    if state is None:
        return None
    bit_generator = case.generator().bit_generator
    for count in range(limit + 1):
        if bit_generator.state == state:
            return count
        bit_generator.advance(1)
    return None


def explain_step(case: Case) -> str:
    """What the correct rule does on a case, draw by draw, in words.

    >>> from specdec.exercises.cases import step_cases
    >>> print(explain_step(step_cases()[1]))
    position 0: draft token 3, p(3) = 0, q(3) = 0.25; u = 0.637 ≥ min(1, p/q) = 0: rejected
        replacement drawn from the residual [0.8333, 0.1667, 0, 0]: token 0, and the step ends
    """
    target_probs, draft_probs, draft_tokens, rng = case.arguments()
    trace = trace_step(target_probs, draft_probs, draft_tokens, rng)
    lines = []
    for position in trace.positions:
        comparison = "<" if position.accepted else "≥"
        verdict = "accepted" if position.accepted else "rejected"
        u, threshold = position.uniform, position.acceptance_probability
        digits = _digits_to_tell_apart(u, threshold)
        token = position.draft_token
        lines.append(f"position {position.index}: draft token {token}, p({token}) = {position.target_prob:.{digits}g}, "
                     f"q({token}) = {position.draft_prob:.{digits}g}; u = {u:.{digits}g} "
                     f"{comparison} min(1, p/q) = {threshold:.{digits}g}: {verdict}")
        if not position.accepted:
            i = position.index
            if np.maximum(target_probs[i] - draft_probs[i], 0.0).sum() > 0:
                source = f"the residual {_short_vector(position.residual)}"
            else:
                source = "p itself (max(0, p − q) has no mass here: the fallback)"
            lines.append(f"    replacement drawn from {source}: token {position.resampled_token}, and the step ends")
    if trace.all_accepted:
        every = "every draft token accepted" if trace.positions else "no draft tokens"
        lines.append(f"{every}: bonus token drawn from the last row of target_probs: token {trace.bonus_token}")
    return "\n".join(lines)


def _digits_to_tell_apart(u: float, threshold: float) -> int:
    """Fewest significant digits (at least 4) that show u and the threshold in their true order,
    and show no value below 1 as 1 (a u of 1 − 2⁻⁵³ must not read as 1)."""
    for digits in range(4, 18):
        shown_u, shown_threshold = float(f"{u:.{digits}g}"), float(f"{threshold:.{digits}g}")
        ordered = ((shown_u < shown_threshold) == (u < threshold)
                   and (shown_u == shown_threshold) == (u == threshold))
        if ordered and (shown_u < 1 or u == 1) and (shown_threshold < 1 or threshold == 1):
            return digits
    return 17


def _short_vector(vector: np.ndarray) -> str:
    if vector.size > 8:
        return f"(V = {vector.size})"
    return "[" + ", ".join(f"{value:.4g}" for value in vector) + "]"
