"""`check(name, function)`: run a learner's function on every case and compare it with specdec's.

For each case the learner's function and the reference get fresh copies of the same inputs (and
the verify step a fresh generator in the same state). The first case where they disagree is shown
in full — inputs, expected, got — with the hint for the mistake it matches (`diagnosis.py`).
Nothing the learner's code does can make `check` itself fail or hang: exceptions, NaN, odd return
values and a call that does not return within `TIME_LIMIT` all become feedback.
"""

from __future__ import annotations

import math

import numpy as np

from . import hints
from .cases import Case
from .comparisons import Problem
from .diagnosis import diagnose, draws_made
from .registry import EXERCISE_NAMES, EXERCISES, Exercise
from .result import CheckResult, Row
from .running import Outcome, error_text, run, where_it_raised

#: Seconds the learner's function may take on one case before the check stops it. The reference
#: takes well under a millisecond on every case.
TIME_LIMIT = 5.0


def check(name: str, function, time_limit: float = TIME_LIMIT) -> CheckResult:
    """Check your implementation of one exercise of notebook 09 against specdec's.

    Parameters
    ----------
    name : str
        One of "acceptance_rate", "residual_distribution", "speculative_step", "expected_tokens",
        "speedup", "optimal_gamma".
    function : callable
        Your function, with the same parameters as specdec's (optimal_gamma takes (alpha, c)).
    time_limit : float, optional
        Seconds your function may take on one case; a call that has not returned by then is stopped
        and reported, and the check ends there.

    Returns
    -------
    CheckResult
        ``.passed`` and ``.message``; in a notebook it shows itself as a short report. On a failure,
        ``.case.arguments()`` gives the failing inputs again, to try your function on.

    Examples
    --------
    >>> def expected_tokens(alpha, gamma):
    ...     return (1 - alpha ** (gamma + 1)) / (1 - alpha)
    >>> result = check("expected_tokens", expected_tokens)
    >>> result.passed
    False
    >>> result.case.label, result.hint.startswith("at α = 1 the formula divides by zero")
    ('worked example (α = 1: every draft token passes)', True)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be the exercise's name as a string, one of {', '.join(map(repr, EXERCISE_NAMES))}; "
                        f"got {type(name).__name__}")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit <= 600:
        raise ValueError(f"time_limit must be a number of seconds in (0, 600], got {time_limit!r}")
    if name not in EXERCISES:
        raise ValueError(f"name must be one of {', '.join(map(repr, EXERCISE_NAMES))}; got {name!r}")
    if not callable(function):
        raise TypeError(f"function must be the function you wrote (a callable), got {type(function).__name__}")
    exercise = EXERCISES[name]
    cases = exercise.cases()
    got = []
    for index, case in enumerate(cases):
        outcome = run(function, case, time_limit)
        if isinstance(outcome.error, NotImplementedError):
            return CheckResult(name, "not implemented", f"✗ {name}: not implemented yet",
                               (Row("to do", hints.NOT_IMPLEMENTED),))
        if outcome.timed_out:
            return _timed_out(exercise, function, cases, index, time_limit)
        got.append(outcome)
    expected = [run(exercise.reference, case) for case in cases]
    problems = [exercise.result.first_problem(e, g) for e, g in zip(expected, got)]
    failing = [i for i, problem in enumerate(problems) if problem is not None]
    if not failing:
        return CheckResult(name, "passed", f"✓ {name}: all {len(cases)} cases pass",
                           (Row("checked", f"{_what_the_cases_are(cases)}: {exercise.passed_means}."),))
    index = failing[0]
    diagnosis = diagnose(exercise, cases, expected, got, problems, index)
    case, problem = cases[index], problems[index]
    rows = [
        Row("problem", problem.summary),
        Row("inputs", _show_inputs(exercise, case), code=True),
        Row("expected", _show_expected(exercise, case, problem, expected[index], got[index]), code=True),
        Row("got", _show_got(case, problem, got[index]), code=True),
    ]
    if diagnosis.rule_trace:
        rows.append(Row("the rule", diagnosis.rule_trace, code=True))
    if diagnosis.hint:
        rows.append(Row("hint", diagnosis.hint))
    if diagnosis.in_practice:
        rows.append(Row("in practice", diagnosis.in_practice))
    rows.append(_try_it(name, function))
    headline = f"✗ {name} fails on case {index + 1} of {len(cases)}: {case.label}"
    if len(failing) > 1:
        headline += f" ({len(failing)} cases fail in all)"
    return CheckResult(name, "failed", headline, tuple(rows), diagnosis.hint, case)


def _timed_out(exercise: Exercise, function, cases, index: int, time_limit: float) -> CheckResult:
    case = cases[index]
    rows = (
        Row("problem", f"your function had not returned after {time_limit:g} s, so the check stopped it"),
        Row("inputs", _show_inputs(exercise, case), code=True),
        Row("hint", hints.TIMED_OUT),
        _try_it(exercise.name, function),
    )
    headline = f"✗ {exercise.name} did not finish on case {index + 1} of {len(cases)}: {case.label}"
    return CheckResult(exercise.name, "failed", headline, rows, hints.TIMED_OUT, case)


def _try_it(name: str, function) -> Row:
    yours = getattr(function, "__name__", "")
    yours = yours if yours.isidentifier() else name
    return Row("try it", f'result = check("{name}", {yours})\n{yours}(*result.case.arguments())', code=True)


def _what_the_cases_are(cases) -> str:
    counts = {source: sum(case.source == source for case in cases) for source in ("worked", "paper", "edge", "random")}
    parts = []
    if counts["worked"]:
        parts.append("the worked example" if counts["worked"] == 1 else f"{counts['worked']} worked examples")
    if counts["paper"]:
        parts.append(f"{counts['paper']} from Leviathan et al.")
    if counts["edge"]:
        parts.append("1 edge case" if counts["edge"] == 1 else f"{counts['edge']} edge cases")
    if counts["random"]:
        parts.append(f"{counts['random']} seeded random cases")
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


# --- Showing values ------------------------------------------------------------------------------


def show(value, precision: int = 4, indent: int = 0) -> str:
    """A value as a learner would type it; arrays wrapped and, when long, shortened with '…'."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=precision, separator=", ", threshold=48, edgeitems=3,
                               max_line_width=96, suppress_small=False, prefix=" " * indent)
    if type(value) is float and math.isinf(value):
        return "math.inf" if value > 0 else "-math.inf"
    try:
        text = repr(value)
    except Exception:  # a learner's own class can have a broken __repr__
        return f"a {type(value).__name__} object (its repr raised an error)"
    return text if len(text) <= 2000 else text[:2000] + " …"


def _show_inputs(exercise: Exercise, case: Case) -> str:
    names = exercise.parameters
    width = max(len(parameter) for parameter in names)
    lines = []
    for parameter, value in zip(names, case.arguments()):
        if isinstance(value, np.random.Generator):
            text = case.generator_text().replace("\n", "\n" + " " * (width + 3))
        else:
            text = show(value, precision=case.precision, indent=width + 3)
        lines.append(f"{parameter:<{width}} = {text}")
    return "\n".join(lines)


def _show_expected(exercise: Exercise, case: Case, problem: Problem, expected: Outcome, got: Outcome) -> str:
    if problem.kind == "changed_input":
        originals = dict(zip(exercise.parameters, case.arguments()))
        prefix = "{} left as it was passed in: "
        return "\n".join(prefix.format(parameter) + show(originals[parameter], indent=len(prefix.format(parameter)))
                         for parameter in got.changed_inputs)
    text = show(expected.value, precision=8)
    if problem.kind == "draws":
        text += f"   ({_after(draws_made(case, expected.rng_state))})"
    return text


def _show_got(case: Case, problem: Problem, got: Outcome) -> str:
    if got.error is not None:
        where = where_it_raised(got.error)
        text = error_text(got.error)
        return f"{text}\n(raised at {where})" if where else text
    if problem.kind == "changed_input":
        prefix = "{} after the call: "
        return "\n".join(prefix.format(parameter) + show(value, indent=len(prefix.format(parameter)))
                         for parameter, value in zip(got.changed_inputs, got.changed_values))
    text = show(got.value, precision=8)
    if problem.kind == "draws":
        text += f"   ({_after(draws_made(case, got.rng_state))})"
    return text


def _after(draws: int | None) -> str:
    if draws is None:
        return "rng then in a state that no number of the rule's draws reaches"
    return f"rng then after {draws} draw{'s' if draws != 1 else ''}"
