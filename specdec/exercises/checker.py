"""`check(name, function)`: run a learner's function on every case and compare it with specdec's.

For each case the learner's function and the reference get fresh copies of the same inputs (and
the verify step a fresh generator in the same state). The first case where they disagree is shown
in full — inputs, expected, got — with the hint for the mistake it matches (`diagnosis.py`).
Nothing the learner's code does can make `check` itself fail: exceptions, NaN and odd return
values all become feedback.
"""

from __future__ import annotations

import math

import numpy as np

from .. import core, theory
from . import hints
from .cases import EXERCISE_NAMES, PARAMETERS, Case, cases_for
from .comparisons import Problem, first_problem
from .diagnosis import diagnose, draws_made
from .result import CheckResult, Row
from .running import Outcome, error_text, run, where_it_raised

REFERENCES = {
    "acceptance_rate": core.acceptance_rate,
    "residual_distribution": core.residual_distribution,
    "speculative_step": core.speculative_step,
    "expected_tokens": core.expected_tokens,
    "speedup": theory.speedup,
    "optimal_gamma": theory.optimal_gamma,
}

# What a pass guarantees, for the ✓ message.
_CHECKED = {
    "acceptance_rate": "each value within 1e-9 of specdec.acceptance_rate's, returned as a Python float, and your "
                       "inputs left unchanged",
    "residual_distribution": "each array within 1e-9 of specdec.residual_distribution's, returned as a new float "
                             "array, and your inputs left unchanged",
    "speculative_step": "the same tokens as specdec.speculative_step, rng left in the same state (the same draws in "
                        "the same order), a list of Python ints, and your inputs left unchanged",
    "expected_tokens": "each value within a relative 1e-9 of specdec.expected_tokens's, returned as a Python float",
    "speedup": "each value within a relative 1e-9 of specdec.speedup's, returned as a Python float",
    "optimal_gamma": "the same best γ and speedup as specdec.optimal_gamma, returned as a tuple (int, float)",
}


def check(name: str, function) -> CheckResult:
    """Check your implementation of one exercise of notebook 09 against specdec's.

    Parameters
    ----------
    name : str
        One of "acceptance_rate", "residual_distribution", "speculative_step", "expected_tokens",
        "speedup", "optimal_gamma".
    function : callable
        Your function, with the same parameters as specdec's (optimal_gamma takes (alpha, c)).

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
    ("SPEC's example (α = 1: every draft token passes)", True)
    """
    if name not in REFERENCES:
        raise ValueError(f"name must be one of {', '.join(map(repr, EXERCISE_NAMES))}; got {name!r}")
    if not callable(function):
        raise TypeError(f"function must be the function you wrote (a callable), got {type(function).__name__}")
    cases = cases_for(name)
    got = []
    for case in cases:
        outcome = run(name, function, case)
        if isinstance(outcome.error, NotImplementedError):
            return CheckResult(name, "not implemented", f"✗ {name}: not implemented yet",
                               (Row("to do", hints.NOT_IMPLEMENTED),))
        got.append(outcome)
    expected = [run(name, REFERENCES[name], case) for case in cases]
    problems = [first_problem(name, e, g) for e, g in zip(expected, got)]
    failing = [i for i, problem in enumerate(problems) if problem is not None]
    if not failing:
        return CheckResult(name, "passed", f"✓ {name}: all {len(cases)} cases pass",
                           (Row("checked", f"{_what_the_cases_are(cases)}: {_CHECKED[name]}."),))
    index = failing[0]
    diagnosis = diagnose(name, cases, expected, got, problems, index)
    case, problem = cases[index], problems[index]
    rows = [
        Row("problem", problem.summary),
        Row("inputs", _show_inputs(name, case), code=True),
        Row("expected", _show_expected(name, case, problem, expected[index], got[index]), code=True),
        Row("got", _show_got(name, case, problem, got[index]), code=True),
    ]
    if diagnosis.rule_trace:
        rows.append(Row("the rule", diagnosis.rule_trace, code=True))
    if diagnosis.hint:
        rows.append(Row("hint", diagnosis.hint))
    if diagnosis.in_practice:
        rows.append(Row("in practice", diagnosis.in_practice))
    yours = getattr(function, "__name__", "")
    yours = yours if yours.isidentifier() else name
    rows.append(Row("try it", f'result = check("{name}", {yours})\n{yours}(*result.case.arguments())', code=True))
    headline = f"✗ {name} fails on case {index + 1} of {len(cases)}: {case.label}"
    if len(failing) > 1:
        headline += f" ({len(failing)} cases fail in all)"
    return CheckResult(name, "failed", headline, tuple(rows), diagnosis.hint, case)


def _what_the_cases_are(cases) -> str:
    counts = {source: sum(case.source == source for case in cases) for source in ("SPEC", "paper", "edge", "random")}
    parts = []
    if counts["SPEC"]:
        parts.append("SPEC's example" if counts["SPEC"] == 1 else f"SPEC's {counts['SPEC']} examples")
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


def _show_inputs(name: str, case: Case) -> str:
    names = PARAMETERS[name]
    width = max(len(parameter) for parameter in names)
    lines = []
    for parameter, value in zip(names, case.arguments()):
        if isinstance(value, np.random.Generator):
            text = case.generator_text().replace("\n", "\n" + " " * (width + 3))
        else:
            text = show(value, precision=case.precision, indent=width + 3)
        lines.append(f"{parameter:<{width}} = {text}")
    return "\n".join(lines)


def _show_expected(name: str, case: Case, problem: Problem, expected: Outcome, got: Outcome) -> str:
    if problem.kind == "changed_input":
        originals = dict(zip(PARAMETERS[name], case.arguments()))
        prefix = "{} left as it was passed in: "
        return "\n".join(prefix.format(parameter) + show(originals[parameter], indent=len(prefix.format(parameter)))
                         for parameter in got.changed_inputs)
    text = show(expected.value, precision=8)
    if name == "speculative_step" and problem.kind == "draws":
        text += f"   ({_after(draws_made(case, expected.rng_state))})"
    return text


def _show_got(name: str, case: Case, problem: Problem, got: Outcome) -> str:
    if got.error is not None:
        where = where_it_raised(got.error)
        text = error_text(got.error)
        return f"{text}\n(raised at {where})" if where else text
    if problem.kind == "changed_input":
        prefix = "{} after the call: "
        return "\n".join(prefix.format(parameter) + show(value, indent=len(prefix.format(parameter)))
                         for parameter, value in zip(got.changed_inputs, got.changed_values))
    text = show(got.value, precision=8)
    if name == "speculative_step" and problem.kind == "draws":
        text += f"   ({_after(draws_made(case, got.rng_state))})"
    return text


def _after(draws: int | None) -> str:
    if draws is None:
        return "rng then in a state that no number of the rule's draws reaches"
    return f"rng then after {draws} draw{'s' if draws != 1 else ''}"
