"""Compare what the learner's function did on one case with what specdec's reference did.

`ResultKind.first_problem` returns the most basic thing wrong with one outcome, or None. The order is the
order a learner should fix things in: an exception first, then drawing from the wrong generator,
then changing the inputs, then a wrong value, then the generator left in another state, then the
type of a value that is right. A type problem carries its own hint, since the type says it all.

Floats are compared with a relative tolerance of 1e-9: a learner's textbook formula and the
reference's rounding-safe one (``expm1``/``log1p``) differ in the last digits, and that is not a
mistake. Tokens and generator states are compared exactly.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import hints
from .running import Outcome, error_text

RELATIVE_TOLERANCE = 1e-9
ABSOLUTE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Problem:
    """What is wrong with one outcome.

    kind is one of "error", "global_rng", "changed_input", "value", "draws", "aliased", "type".
    """

    kind: str
    summary: str
    hint: str | None = None


@dataclass(frozen=True)
class ResultKind:
    """One kind of value an exercise returns (a float, an array, tokens, a pair), and how to compare it.

    `compare_value` finds what is wrong with the learner's outcome against the reference's, once the
    checks that hold for every exercise have passed; `same_value` says whether two values agree, to
    match a learner's outputs with a known mistake's.
    """

    compare_value: Callable[[Outcome, Outcome], Problem | None]
    same_value: Callable[[object, object], bool]

    def first_problem(self, expected: Outcome, got: Outcome) -> Problem | None:
        """The first thing wrong with `got`, compared with the reference's `expected`; None if nothing."""
        if got.error is not None:
            return Problem("error", f"your function raised {error_text(got.error)}")
        if got.used_global_rng:
            return Problem("global_rng", "your function drew from numpy's (or Python's) global random generator",
                           hints.GLOBAL_RNG)
        if got.changed_inputs:
            changed = ", ".join(got.changed_inputs)
            return Problem("changed_input", f"after the call, {changed} differed from what was passed in",
                           hints.changed_input(got.changed_inputs))
        return self.compare_value(expected, got)

    def same_result(self, first: Outcome, second: Outcome) -> bool:
        """Whether two outcomes agree in what matters for naming a mistake: the same exception type,
        or the same value (up to tolerance and Python/numpy types) and the same generator state."""
        if first.error is not None or second.error is not None:
            return type(first.error) is type(second.error)
        if first.rng_state != second.rng_state:
            return False
        return self.same_value(first.value, second.value)


# --- Floats: acceptance_rate, expected_tokens, speedup ------------------------------------------


def as_number(value) -> float | None:
    """`value` as a float if it is one real number (a 1-element array counts), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        if isinstance(value, numbers.Real):
            return float(value)
        if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
            return float(value.reshape(-1)[0])
    except (OverflowError, TypeError, ValueError):
        pass
    return None


def close(got: float, expected: float) -> bool:
    return math.isclose(got, expected, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE)


def _same_float(first, second) -> bool:
    a, b = as_number(first), as_number(second)
    if a is None or b is None:
        return a is None and b is None
    return close(a, b) or (math.isnan(a) and math.isnan(b))


def _compare_float(expected: Outcome, got: Outcome) -> Problem | None:
    number = as_number(got.value)
    if number is None:
        return Problem("type", f"your function returned {describe_type(got.value)}, not a number",
                       hints.RETURN_FLOAT)
    if not close(number, expected.value):
        return Problem("value", "the value differs")
    return _float_type(got.value)


def _float_type(value, what: str = "the value") -> Problem | None:
    if type(value) is float:
        return None
    if isinstance(value, np.floating):
        return Problem("type", f"{what} is right but it is a numpy float ({type(value).__name__})", hints.NUMPY_FLOAT)
    if isinstance(value, numbers.Integral):
        return Problem("type", f"{what} is right but it is an int, not a float", hints.INT_NOT_FLOAT)
    return Problem("type", f"{what} is right but it is {describe_type(value)}, not a Python float", hints.RETURN_FLOAT)


# --- residual_distribution ----------------------------------------------------------------------


def _as_float_vector(value) -> np.ndarray | None:
    if not isinstance(value, (np.ndarray, list, tuple)):
        return None
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if array.dtype.kind not in "biuf":  # complex, text and objects are not a float vector
        return None
    return array.astype(np.float64, copy=False)


def _same_vector(first, second) -> bool:
    a, b = _as_float_vector(first), _as_float_vector(second)
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True)


def _compare_residual(expected: Outcome, got: Outcome) -> Problem | None:
    vector = _as_float_vector(got.value)
    if vector is None:
        dtype = getattr(got.value, "dtype", None)
        what = f"{describe_type(got.value)} of {dtype}" if dtype is not None else describe_type(got.value)
        return Problem("type", f"your function returned {what}, not an array of real numbers",
                       hints.RETURN_ARRAY)
    if vector.shape != expected.value.shape:
        return Problem("value", f"the shape is {vector.shape}, not {expected.value.shape}")
    if not np.allclose(vector, expected.value, rtol=0, atol=1e-9):
        return Problem("value", "the values differ")
    if got.aliased_inputs:
        return Problem("aliased", f"the values are right, but the array you returned is {got.aliased_inputs[0]} "
                                  "itself (or a view of it)", hints.RETURN_COPY)
    if not isinstance(got.value, np.ndarray):
        return Problem("type", f"the values are right but you returned {describe_type(got.value)}",
                       hints.RETURN_ARRAY)
    if got.value.dtype != np.float64:
        return Problem("type", f"the values are right but the array's dtype is {got.value.dtype}",
                       hints.RETURN_ARRAY)
    return None


# --- speculative_step ---------------------------------------------------------------------------


def as_tokens(value) -> list[int] | None:
    """`value` as a list of ints if it is a 1-D sequence of integers, else None."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            return None
        value = list(value)
    if not isinstance(value, (list, tuple)):
        return None
    if not all(isinstance(t, numbers.Integral) and not isinstance(t, (bool, np.bool_)) for t in value):
        return None
    return [int(t) for t in value]


def _same_tokens(first, second) -> bool:
    return as_tokens(first) == as_tokens(second)


def _compare_step(expected: Outcome, got: Outcome) -> Problem | None:
    tokens = as_tokens(got.value)
    if tokens is None:
        return Problem("type", f"your function returned {describe_type(got.value)}, not a list of token ids",
                       hints.RETURN_TOKEN_LIST)
    if tokens != expected.value:
        return Problem("value", "the tokens differ")
    if got.rng_state != expected.rng_state:
        return Problem("draws", "the tokens are right, but rng ended in another state than the rule leaves it in")
    if not isinstance(got.value, list):
        return Problem("type", f"the tokens are right but you returned {describe_type(got.value)}",
                       hints.RETURN_TOKEN_LIST)
    if any(type(token) is not int for token in got.value):
        kinds = sorted({type(token).__name__ for token in got.value if type(token) is not int})
        return Problem("type", f"the tokens are right but they are numpy integers ({', '.join(kinds)})",
                       hints.NUMPY_INTEGERS)
    return None


# --- optimal_gamma ------------------------------------------------------------------------------


def _as_pair(value) -> tuple[int, float] | None:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    gamma, best = value
    if isinstance(gamma, (bool, np.bool_)) or not isinstance(gamma, numbers.Integral):
        return None
    number = as_number(best)
    return None if number is None else (int(gamma), number)


def _same_pair(first, second) -> bool:
    a, b = _as_pair(first), _as_pair(second)
    if a is None or b is None:
        return a is None and b is None
    return a[0] == b[0] and close(a[1], b[1])


def _compare_optimal_gamma(expected: Outcome, got: Outcome) -> Problem | None:
    pair = _as_pair(got.value)
    if pair is None:
        return Problem("type", f"your function returned {describe_type(got.value)}, not a pair (γ, speedup)",
                       hints.RETURN_PAIR)
    gamma, best = pair
    if gamma != expected.value[0] or not close(best, expected.value[1]):
        return Problem("value", "the best γ or its speedup differs")
    if not isinstance(got.value, tuple):
        return Problem("type", f"the values are right but you returned {describe_type(got.value)}", hints.RETURN_PAIR)
    if type(got.value[0]) is not int:
        return Problem("type", f"γ is right but it is a {type(got.value[0]).__name__}", hints.NUMPY_INTEGERS)
    return _float_type(got.value[1], "the speedup")


def describe_type(value) -> str:
    """'a list', 'a numpy.ndarray', 'None' …: how to name what a function returned."""
    if value is None:
        return "None"
    kind = type(value)
    module = "" if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}."
    article = "an" if (module or kind.__name__)[0] in "aeiou" else "a"
    return f"{article} {module}{kind.__name__}"


FLOAT = ResultKind(_compare_float, _same_float)
"""One Python float: acceptance_rate, expected_tokens, speedup."""
DISTRIBUTION = ResultKind(_compare_residual, _same_vector)
"""A new float array of shape (V,): residual_distribution."""
TOKENS = ResultKind(_compare_step, _same_tokens)
"""A list of Python ints, and the generator left in the reference's state: speculative_step."""
GAMMA_AND_SPEEDUP = ResultKind(_compare_optimal_gamma, _same_pair)
"""A tuple (int, float): optimal_gamma."""
