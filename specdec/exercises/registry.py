"""The exercises of notebook 09, one `Exercise` entry each: everything the checker needs to know.

Adding an exercise means adding one entry to `EXERCISES` (with its cases in `cases.py`, its known
mistakes in `mistakes.py` and their hints in `hints.py`); the checker has no table of its own.

>>> EXERCISE_NAMES
('acceptance_rate', 'residual_distribution', 'speculative_step', 'expected_tokens', 'speedup', 'optimal_gamma')
>>> EXERCISES["speedup"].parameters
('alpha', 'gamma', 'c')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import core, theory
from . import cases, comparisons, diagnosis, mistakes
from .cases import Case
from .comparisons import ResultKind
from .mistakes import Mistake


@dataclass(frozen=True)
class Exercise:
    """One function the learner writes, and how `check` judges it."""

    name: str
    parameters: tuple[str, ...]
    """The parameter names of the learner's function, in order."""
    reference: Callable
    """specdec's own function, whose outcomes are the expected ones."""
    cases: Callable[[], tuple[Case, ...]]
    """Returns the cases, in the order they are checked."""
    result: ResultKind
    """What the function returns, and how such values are compared."""
    passed_means: str
    """What a pass guarantees, for the ✓ message."""
    mistakes: tuple[Mistake, ...]
    """Known wrong versions, the most specific first; the first one the learner's outputs match is named."""
    value_hint: Callable[[Case, object], str | None] | None = None
    """A hint for a wrong value that the failing case alone gives away, tried before the mistakes."""
    explain: Callable[[Case], str] | None = None
    """What the reference does on a case, step by step, shown beside a failure."""


EXERCISES: dict[str, Exercise] = {
    exercise.name: exercise
    for exercise in (  # in the order notebook 09 poses them
        Exercise(
            "acceptance_rate", ("target", "draft"), core.acceptance_rate, cases.pair_cases, comparisons.FLOAT,
            "each value within 1e-9 of specdec.acceptance_rate's, returned as a Python float, and your inputs "
            "left unchanged",
            mistakes.ACCEPTANCE_RATE_MISTAKES,
            value_hint=diagnosis.acceptance_rate_value_hint,
        ),
        Exercise(
            "residual_distribution", ("target", "draft"), core.residual_distribution, cases.pair_cases,
            comparisons.DISTRIBUTION,
            "each array within 1e-9 of specdec.residual_distribution's, returned as a new float array, and your "
            "inputs left unchanged",
            mistakes.RESIDUAL_MISTAKES,
            value_hint=diagnosis.residual_value_hint,
        ),
        Exercise(
            "speculative_step", ("target_probs", "draft_probs", "draft_tokens", "rng"), core.speculative_step,
            cases.step_cases, comparisons.TOKENS,
            "the same tokens as specdec.speculative_step, rng left in the same state (the same draws in the same "
            "order), a list of Python ints, and your inputs left unchanged",
            mistakes.STEP_MISTAKES,
            explain=diagnosis.explain_step,
        ),
        Exercise(
            "expected_tokens", ("alpha", "gamma"), core.expected_tokens, cases.expected_tokens_cases,
            comparisons.FLOAT,
            "each value within a relative 1e-9 of specdec.expected_tokens's, returned as a Python float",
            mistakes.EXPECTED_TOKENS_MISTAKES,
        ),
        Exercise(
            "speedup", ("alpha", "gamma", "c"), theory.speedup, cases.speedup_cases, comparisons.FLOAT,
            "each value within a relative 1e-9 of specdec.speedup's, returned as a Python float",
            mistakes.SPEEDUP_MISTAKES,
        ),
        Exercise(
            "optimal_gamma", ("alpha", "c"), theory.optimal_gamma, cases.optimal_gamma_cases,
            comparisons.GAMMA_AND_SPEEDUP,
            "the same best γ and speedup as specdec.optimal_gamma, returned as a tuple (int, float)",
            mistakes.OPTIMAL_GAMMA_MISTAKES,
        ),
    )
}

#: The exercises, in the order notebook 09 poses them.
EXERCISE_NAMES = tuple(EXERCISES)
