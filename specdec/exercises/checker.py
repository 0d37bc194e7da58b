"""`check(name, function)`: run a learner's function on every case, compare it with specdec's, and
name the mistake behind the first failure.

Each call gets fresh copies of the case's inputs and is recorded as an `Outcome`. Problems are
found in the order a learner should fix them: an exception, the global generator, a changed input,
a wrong value (a float within a relative 1e-9, an array's entries within 1e-9), the generator's
state, the type of a right value.
The hint comes from what the failing case shows (`mistakes.SYMPTOMS`), from the problem itself, or
from the first known wrong version (`mistakes.MISTAKES`) whose outcomes the learner's reproduces:
on every case for the verify step, on every wrongly answered case for the others; failing that, from
a rounding, when every wrong value is the right one rounded to the same number of decimals.

What is simplified: the checker can only name mistakes it knows (an unknown one still gets the
failing case, and for the verify step the correct rule's draws); the time limit stops a Python
loop, not a single long call inside numpy's compiled code.
"""

from __future__ import annotations

import functools
import html
import math
import numbers
import os
import random
import re
import sys
import sysconfig
import textwrap
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import core, palette
from ..validation import InstanceOf, checked
from . import cases as _cases
from .cases import Case
from .mistakes import MISTAKES, SYMPTOMS, best_gamma

#: Seconds the learner's function may take on one case; the reference takes well under a millisecond.
TIME_LIMIT = 5.0
#: Width the prose rows (hints) are wrapped to in the text form.
TEXT_WIDTH = 100

NOT_IMPLEMENTED = ("replace `raise NotImplementedError` in the cell above with your code, run that cell, then "
                   "run this one again.")
TIMED_OUT = ("your function did not return in time: look for a loop that never ends, such as a `while` loop "
             "whose condition never changes or a counter that is never moved on. Call it on the inputs above "
             "by itself; if it hangs, interrupt the kernel (the ■ button).")
GLOBAL_RNG = ("you drew from numpy's global generator (np.random.random, np.random.choice, …) or Python's "
              "random module: draw from the rng argument instead (rng.random(), rng.choice(V, p=…)), so that "
              "the caller's seed decides the tokens.")
NUMPY_INTEGERS = ("return Python ints, not numpy integers: an element of a numpy array, np.argmax and rng.choice "
                  "over an array all give numpy integers, so convert each with int(…) before you return it.")
RETURN_FLOAT = "return one Python float."
RETURN_ARRAY = "return a numpy float array of shape (V,), e.g. np.asarray(values, dtype=float)."
RETURN_TOKEN_LIST = "return a list of Python ints, e.g. [0, 1, 2]."
ROUNDED = ("your result is the right one rounded to {}: return it unrounded, and round only where you print it "
           "(`f\"{{value:.2f}}\"`).")
RETURN_PAIR = "return a tuple (γ, speedup): return best_gamma, best_speedup."

# --- Running one case ----------------------------------------------------------------------------


class TimedOut(BaseException):
    """Raised in a learner's function whose time is up (an ``except Exception`` does not catch it)."""


@dataclass(frozen=True)
class Outcome:
    """What one call did: its value or exception (`TimedOut` if stopped), the inputs it changed (by name, as
    they were after it) and by how much when all are float arrays, those its value shares memory with, rng's
    state after it, any global draws."""

    value: object = None
    error: BaseException | None = None
    changed_inputs: dict = field(default_factory=dict)
    aliased_inputs: tuple = ()
    rng_state: dict | None = None
    used_global_rng: bool = False
    input_shift: float | None = None

    @property
    def error_text(self) -> str:
        """'ValueError: probabilities contain NaN': the exception's type and message, kept short."""
        try:
            message = str(self.error)
        except Exception:  # a learner's own exception class can have a broken __str__
            message = ""
        message = message if len(message) <= 300 else message[:300] + " …"
        return f"{type(self.error).__name__}: {message}" if message else type(self.error).__name__


def run(function, case: Case, time_limit: float | None = None) -> Outcome:
    """Call `function` on fresh copies of the case's inputs and record what happened."""
    arguments = case.arguments()
    numpy_state, python_state = np.random.get_state(), random.getstate()
    value = error = None
    deadline = None if time_limit is None else time.monotonic() + time_limit

    def stop_when_late(frame, event, arg):
        if time.monotonic() > deadline:
            raise TimedOut
        if event == "call" and _is_learners(frame.f_code.co_filename):
            frame.f_trace_opcodes = True  # a loop on one line ("while True: pass") makes no new line events
        return stop_when_late

    previous_trace = sys.gettrace()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            if deadline is not None:
                sys.settrace(stop_when_late)
            value = function(*arguments)
        except (Exception, SystemExit, TimedOut) as raised:  # the learner's code: any exception is feedback
            error = raised
        finally:
            if deadline is not None:
                sys.settrace(previous_trace)
    now = np.random.get_state()
    used_global_rng = (now[2] != numpy_state[2] or not np.array_equal(now[1], numpy_state[1])
                       or now[3:] != numpy_state[3:] or random.getstate() != python_state)
    np.random.set_state(numpy_state)
    random.setstate(python_state)
    given = list(zip(case.inputs, arguments))
    changed = {name: after for (name, before), after in given if not _same(after, before)}
    shifts = [float(np.max(np.abs(after - before))) for (name, before), after in given if name in changed
              and isinstance(after, np.ndarray) and after.shape == before.shape and after.dtype.kind == "f"]
    aliased = tuple(name for (name, _), after in given if isinstance(value, np.ndarray)
                    and isinstance(after, np.ndarray) and np.shares_memory(value, after))
    rng_state = arguments[-1].bit_generator.state if case.seed is not None else None
    input_shift = max(shifts) if changed and len(shifts) == len(changed) else None
    return Outcome(value, error, changed, aliased, rng_state, used_global_rng, input_shift)


def _same(given, original) -> bool:
    if isinstance(original, np.ndarray):
        return (isinstance(given, np.ndarray) and given.shape == original.shape
                and given.dtype == original.dtype and np.array_equal(given, original))
    if isinstance(original, tuple):  # handed over as a list
        return isinstance(given, list) and given == list(original) and all(type(t) is int for t in given)
    return True  # scalars are immutable


_LIBRARY_DIRECTORIES = tuple(os.path.realpath(path) + os.sep for path in (
    os.path.dirname(np.__file__), os.path.dirname(os.path.dirname(__file__)), sysconfig.get_paths()["stdlib"]))


@functools.lru_cache(maxsize=256)
def _is_learners(filename: str) -> bool:
    """Whether code from `filename` is the learner's: not numpy, specdec, the standard library or compiled."""
    compiled = filename.endswith((".pyx", ".pxd")) or filename.startswith("<frozen")
    return not compiled and not os.path.realpath(filename).startswith(_LIBRARY_DIRECTORIES)


def where_it_raised(error: Exception) -> str | None:
    """The line of the learner's own code where `error` was raised or passed through."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if _is_learners(frame.filename):
            place, code = f"line {frame.lineno} of your {frame.name}", (frame.line or "").strip()
            return f"{place}: {code}" if code else place
    return None


# --- Comparing one outcome with the reference's --------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """What is wrong with one outcome: "error", "global_rng", "changed_input", "value", "draws", "aliased", "type"."""

    kind: str
    summary: str
    hint: str | None = None


def describe_type(value) -> str:
    """'a list', 'a numpy.ndarray', 'None' …: how to name what a function returned."""
    if value is None:
        return "None"
    kind = type(value)
    module = "" if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}."
    return f"{'an' if (module or kind.__name__)[0] in 'aeiou' else 'a'} {module}{kind.__name__}"


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def as_number(value) -> float | None:
    """`value` as a float if it is one real number (a 1-element array counts), else None."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        value = value.reshape(-1)[0]
    try:
        return float(value) if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) else None
    except (OverflowError, TypeError, ValueError):
        return None


def as_vector(value) -> np.ndarray | None:
    try:
        array = np.asarray(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    except (TypeError, ValueError):
        return None
    return array.astype(np.float64, copy=False) if array is not None and array.dtype.kind in "biuf" else None


def as_tokens(value) -> list[int] | None:
    """`value` as a list of ints if it is a 1-D sequence of integers, else None."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = list(value)
    if isinstance(value, (list, tuple)) and all(_is_integer(token) for token in value):
        return [int(t) for t in value]
    return None


def _as_pair(value) -> tuple[int, float] | None:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    gamma, best = value[0], as_number(value[1])
    return (int(gamma), best) if _is_integer(gamma) and best is not None else None


def _why_not_tokens(value) -> str | None:
    entries = list(value) if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) == 1 else []
    odd = next((entry for entry in entries if not _is_integer(entry)), None)
    return None if odd is None else f"its entries must be integer token ids, and {show(odd)} is {describe_type(odd)}"


def _why_not_pair(value) -> str | None:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    gamma, best = value
    if gamma is None:
        return "its first entry is None: no γ was ever kept"
    if not _is_integer(gamma):
        return f"its first entry must be γ, an int, and {show(gamma)} is {describe_type(gamma)}"
    return f"its second entry must be the speedup, a number, and {show(best)} is {describe_type(best)}"


def _close(got: float, expected: float) -> bool:
    return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def _vectors_differ(a, b) -> str | None:
    if a.shape != b.shape:
        return f"the shape is {a.shape}, not {b.shape}"
    if np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True):
        return None
    with np.errstate(invalid="ignore"):
        largest = np.nanmax(np.abs(a - b), initial=0.0)
    if 0 < largest < 1e-6:  # too small to be a wrong formula, and easy to miss in the printed arrays
        return (f"the values differ, but only by up to {largest:.1e}: float32 arithmetic or an extra rounding "
                "step can cause that")
    return "the values differ"


def _float_type(value, what: str = "the value") -> Problem | None:
    if type(value) is float:
        return None
    if isinstance(value, np.floating):
        return Problem("type", f"{what} is right but it is a numpy float ({type(value).__name__})",
                       "return a Python float, not a numpy float: wrap the result in float(…) before you return it.")
    if isinstance(value, numbers.Integral):
        return Problem("type", f"{what} is right but it is an int, not a float",
                       "return a Python float even when the value is a whole number: float(gamma + 1), not gamma + 1.")
    return Problem("type", f"{what} is right but it is {describe_type(value)}, not a Python float", RETURN_FLOAT)


def _array_type(got: Outcome) -> Problem | None:
    if got.aliased_inputs:
        return Problem("aliased", f"the values are right, but the array you returned is {got.aliased_inputs[0]} "
                                  "itself (or a view of it)",
                       "your result is the caller's array itself (or a view of it), so changing one changes the "
                       "other: return a new array, e.g. np.array(target, dtype=float) in the fallback.")
    if got.value.dtype != np.float64:
        return Problem("type", f"the values are right but the array's dtype is {got.value.dtype}", RETURN_ARRAY)
    return None


def _changed_input_hint(changed: dict) -> str:
    names = " and ".join(changed)
    if all(isinstance(value, list) for value in changed.values()):
        return (f"you changed the caller's list ({names}): the caller still needs it. Build a new list (output = [] "
                "or list(draft_tokens)) instead of appending to or removing from theirs.")
    return (f"you changed the caller's array ({names}): the caller still needs it. Work on new arrays (p - q makes "
            "a new one, p -= q overwrites p), or copy first with np.array(target, dtype=float).")


def _token_list_type(got: Outcome) -> Problem | None:
    kinds = sorted({type(token).__name__ for token in got.value if type(token) is not int})
    return Problem("type", f"the tokens are right but they are numpy integers ({', '.join(kinds)})",
                   NUMPY_INTEGERS) if kinds else None


def _pair_type(got: Outcome) -> Problem | None:
    if type(got.value[0]) is not int:
        return Problem("type", f"γ is right but it is {describe_type(got.value[0])}, not an int", NUMPY_INTEGERS)
    return _float_type(got.value[1], "the speedup")


@dataclass(frozen=True)
class ResultKind:
    """What an exercise returns (`noun`, how to `return_hint` it): `normalise` turns a value into one to compare
    (None if it is not such a value: a type problem); `differs(a, b)` says how two normalised values differ (None
    if they agree). A right value must be a `container` ("the values are right but you returned a list"), then
    pass `right_type(outcome)`, which names any problem with the rest of its type."""

    noun: str
    return_hint: str
    normalise: Callable
    differs: Callable
    right_type: Callable
    container: type | None = None
    right_words: str = "the values are right"
    with_dtype: bool = False
    why_not: Callable | None = None
    """Optional: what in a refused value is not of the kind (words, or None)."""

    def first_problem(self, expected: Outcome, got: Outcome) -> Problem | None:
        if got.error is not None:
            return Problem("error", f"your function raised {got.error_text}")
        if got.used_global_rng:
            return Problem("global_rng", "your function drew from numpy's (or Python's) global random generator",
                           GLOBAL_RNG)
        if got.changed_inputs:
            by_rounding = got.input_shift is not None and got.input_shift < 1e-9
            return Problem("changed_input", f"after the call, {', '.join(got.changed_inputs)} differed from what was "
                           "passed in" + (f", by at most {got.input_shift:.1e} (too little to show)" if by_rounding
                                          else ""), _changed_input_hint(got.changed_inputs))
        value = self.normalise(got.value)
        if value is None:
            dtype = getattr(got.value, "dtype", None) if self.with_dtype else None
            what = describe_type(got.value) + (f" of {dtype}" if dtype is not None else "")
            detail = self.why_not(got.value) if self.why_not else None
            return Problem("type", f"your function returned {what}, not {self.noun}" + (f": {detail}" if detail else ""),
                           self.return_hint)
        differs = self.differs(value, self.normalise(expected.value))
        if differs:
            return Problem("value", differs)
        if got.rng_state != expected.rng_state:
            return Problem("draws", "the tokens are right, but rng ended in another state than the rule leaves it in")
        if self.container is not None and not isinstance(got.value, self.container):
            return Problem("type", f"{self.right_words} but you returned {describe_type(got.value)}", self.return_hint)
        return self.right_type(got)

    def same_result(self, first: Outcome, second: Outcome) -> bool:
        """The same exception (type and message), or the same value (up to tolerance) and generator state."""
        if first.error is not None or second.error is not None:
            return (first.error is not None and second.error is not None) and first.error_text == second.error_text
        a, b = self.normalise(first.value), self.normalise(second.value)
        return first.rng_state == second.rng_state and (a is None and b is None or (
            a is not None and b is not None and not self.differs(a, b)))


FLOAT = ResultKind("a number", RETURN_FLOAT, as_number, lambda a, b: None if _close(a, b) or (
    math.isnan(a) and math.isnan(b)) else "the value differs", lambda got: _float_type(got.value))
DISTRIBUTION = ResultKind("an array of real numbers", RETURN_ARRAY, as_vector, _vectors_differ, _array_type,
                          np.ndarray, with_dtype=True)
TOKENS = ResultKind("a list of token ids", RETURN_TOKEN_LIST, as_tokens, lambda a, b: None if a == b
                    else "the tokens differ", _token_list_type, list, "the tokens are right", why_not=_why_not_tokens)
GAMMA_AND_SPEEDUP = ResultKind("a pair (γ, speedup)", RETURN_PAIR, _as_pair, lambda a, b: None if a[0] == b[0]
                               and _close(a[1], b[1]) else "the best γ or its speedup differs", _pair_type, tuple,
                               why_not=_why_not_pair)

# --- The exercises ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exercise:
    """One function the learner writes: specdec's `reference`, its `cases`, what it returns (`result`), what
    a pass means, optionally how to `explain` what the reference does on a case, and the name the reference is
    `documented_as` where it is not ``specdec.<name>`` (the capstones')."""

    name: str
    reference: Callable
    cases: Callable[[], tuple[Case, ...]]
    result: ResultKind
    passed_means: str
    explain: Callable[[Case], str] | None = None
    documented_as: str | None = None

    @property
    def reference_name(self) -> str:
        return self.documented_as or f"specdec.{self.name}"

    @property
    def mistakes(self) -> tuple:
        return tuple(MISTAKES.get(self.name, ()))


def explain_step(case: Case) -> str:
    """What the correct rule does on a case, draw by draw, in words.

    >>> print(explain_step(_cases.step_cases()[1]))
    position 0: draft token 3, p(3) = 0, q(3) = 0.25; u = 0.637 ≥ min(1, p/q) = 0: rejected
        replacement drawn from the residual [0.8333, 0.1667, 0, 0]: token 0, and the step ends
    """
    target_probs, draft_probs, draft_tokens, rng = case.arguments()
    trace = core.trace_step(target_probs, draft_probs, draft_tokens, rng)
    lines = []
    for position in trace.positions:
        u, threshold, token, i = position.uniform, position.acceptance_probability, position.draft_token, position.index
        d = _digits_to_tell_apart(u, threshold)
        lines.append(f"position {i}: draft token {token}, p({token}) = {position.target_prob:.{d}g}, "
                     f"q({token}) = {position.draft_prob:.{d}g}; u = {u:.{d}g} {'<' if position.accepted else '≥'} "
                     f"min(1, p/q) = {threshold:.{d}g}: {'accepted' if position.accepted else 'rejected'}")
        if not position.accepted:
            vector = position.residual
            listed = f"(V = {vector.size})" if vector.size > 8 else "[" + ", ".join(f"{x:.4g}" for x in vector) + "]"
            source = (f"the residual {listed}" if np.maximum(target_probs[i] - draft_probs[i], 0.0).sum() > 0
                      else "p itself (max(0, p − q) has no mass here: the fallback)")
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
        ordered = ((shown_u < shown_threshold) == (u < threshold) and (shown_u == shown_threshold) == (u == threshold))
        if ordered and (shown_u < 1 or u == 1) and (shown_threshold < 1 or threshold == 1):
            return digits
    return 17


EXERCISES: dict[str, Exercise] = {exercise.name: exercise for exercise in (
    Exercise("acceptance_rate", core.acceptance_rate, _cases.pair_cases, FLOAT,
             "each value within 1e-9 of specdec.acceptance_rate's, returned as a Python float, and your inputs "
             "left unchanged"),
    Exercise("residual_distribution", core.residual_distribution, _cases.pair_cases, DISTRIBUTION,
             "each array within 1e-9 of specdec.residual_distribution's, returned as a new float array, and your "
             "inputs left unchanged"),
    Exercise("speculative_step", core.speculative_step, _cases.step_cases, TOKENS,
             "the same tokens as specdec.speculative_step, rng left in the same state (the same draws in the same "
             "order), a list of Python ints, and your inputs left unchanged", explain_step),
    Exercise("expected_tokens", core.expected_tokens, _cases.expected_tokens_cases, FLOAT,
             "each value within a relative 1e-9 of specdec.expected_tokens's, returned as a Python float"),
    Exercise("speedup", core.speedup, _cases.speedup_cases, FLOAT,
             "each value within a relative 1e-9 of specdec.speedup's, returned as a Python float"),
    Exercise("optimal_gamma", best_gamma, _cases.optimal_gamma_cases, GAMMA_AND_SPEEDUP,
             "the same best γ and speedup as specdec.optimal_gamma, returned as a tuple (int, float)"),
)}

#: The exercises, in the order the exercises notebook poses them.
EXERCISE_NAMES = tuple(EXERCISES)

# --- Naming the mistake ----------------------------------------------------------------------------


def _called_with_other_parameters(error) -> bool:
    """Whether `error` is the TypeError of a call whose arguments do not fit the function's parameters."""
    return (isinstance(error, TypeError) and where_it_raised(error) is None
            and re.search(r"positional argument|keyword argument|required argument", str(error)) is not None)


def draws_made(case: Case, state: dict, limit: int = 256) -> int | None:
    """How many 64-bit draws (one per ``rng.random()`` or ``rng.choice(V, p=…)``) take the case's fresh
    generator to `state`; None if not within `limit`."""
    bit_generator = case.generator().bit_generator
    for count in range(limit + 1):
        if bit_generator.state == state:
            return count
        bit_generator.advance(1)
    return None


def _rounding(result: ResultKind, expected, got, indices) -> str | None:
    """'2 decimals' if each outcome in `indices` is the reference's rounded to that many decimals (of a pair
    (γ, speedup), the speedup, with γ right); else None."""
    pairs = [(result.normalise(got[i].value), result.normalise(expected[i].value)) for i in indices]
    pairs = [(a[1], b[1]) if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] else (a, b)
             for a, b in pairs]  # a pair (γ, speedup) with γ right: compare the speedups
    digits = next((k for k in range(1, 10) if all(np.array_equal(np.round(b, k), a) for a, b in pairs)), None)
    return None if digits is None else "1 decimal" if digits == 1 else f"{digits} decimals"


def _diagnose(exercise: Exercise, cases, expected, got, problems, index) -> tuple[str | None, str | None]:
    """The hint for `problems[index]`, the first failure, and where real code made the same mistake."""
    problem, case, outcome = problems[index], cases[index], got[index]
    shown = [s for s in SYMPTOMS if exercise.name in s.exercises and problem.kind in s.kinds and s.shows(case, outcome)]
    plain, last_resort = [s.hint for s in shown if not s.last_resort], [s.hint for s in shown if s.last_resort]
    if plain:
        return plain[0], None
    if problem.hint:
        return problem.hint, None
    if _called_with_other_parameters(outcome.error):
        return (f"your function must take the parameters of {exercise.reference_name}, in this order: "
                f"({', '.join(case.parameters)})."), None
    if case.seed is not None:  # random draws: every case, to tell apart mistakes that agree on most seeds
        relevant = [index] + [i for i in range(len(cases)) if i != index]
    else:
        relevant = ([index] if problem.kind == "error" else []) + [
            i for i, p in enumerate(problems) if p is not None and p.kind == "value"]
    for known in exercise.mistakes if relevant else ():
        if all(exercise.result.same_result(run(known.function, cases[i]), got[i]) for i in relevant):
            return known.hint, known.in_practice
    if problem.kind == "value" and (rounded := _rounding(exercise.result, expected, got, relevant)):
        return ROUNDED.format(rounded), None
    if problem.kind == "draws":
        rule_draws, your_draws = draws_made(case, expected[index].rng_state), draws_made(case, outcome.rng_state)
        counted = (f"here the rule made {rule_draws} draws from rng and yours made {your_draws}. "
                   if rule_draws is not None and your_draws is not None else
                   "your function drew from rng differently (other methods, or a different number of draws). ")
        return ("your tokens are right but rng ended in another state: " + counted + "Make exactly one rng.random() "
                "per visited position, then one rng.choice(V, p=…) — the replacement or the bonus — and nothing "
                "else, so that the caller's next draws are what they expect."), None
    return (last_resort[0] if last_resort else None), None


# --- The feedback ----------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Row:
    """One labelled row of feedback; `code` rows keep their line breaks and are shown in monospace."""

    label: str
    text: str
    code: bool = False


@dataclass(frozen=True, repr=False)
class CheckResult:
    """What `check` found: `status` ("passed", "failed" or "not implemented"), a `headline` starting with
    ✓ or ✗, the `rows` of feedback, the `hint` if the failure matches a known mistake, and the first
    failing `case` (``result.case.arguments()`` gives its inputs again). Shown as text and as HTML.

    >>> result = CheckResult("speedup", "passed", "✓ speedup: all 3 cases pass")
    >>> result.passed, bool(result), result
    (True, True, ✓ speedup: all 3 cases pass)
    """

    name: str
    status: str
    headline: str
    rows: tuple = ()
    hint: str | None = None
    case: Case | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __bool__(self) -> bool:
        return self.passed

    @property
    def message(self) -> str:
        """The whole feedback as plain text."""
        width = max((len(row.label) for row in self.rows), default=0) + 2
        lines = [self.headline]
        for row in self.rows:
            body = row.text.split("\n") if row.code else textwrap.wrap(row.text, TEXT_WIDTH - width - 2) or [""]
            lines += [f"  {row.label if n == 0 else '':<{width}}{line}" for n, line in enumerate(body)]
        return "\n".join(lines)

    __repr__ = __str__ = lambda self: self.message

    def _repr_html_(self) -> str:
        colour = {"passed": palette.ACCEPTED, "failed": palette.RESAMPLED, "not implemented": palette.NEUTRAL}
        cells = []
        for row in self.rows:
            text = html.escape(row.text)
            # A code row wraps at spaces (JupyterLab's own style breaks words anywhere in a <pre>).
            text = (f'<pre style="margin:0; white-space:pre-wrap; word-break:normal; overflow-wrap:break-word; '
                    f'text-align:left">{text}</pre>' if row.code else re.sub(r"`([^`]+)`", r"<code>\1</code>", text))
            cells.append('<tr><th scope="row" style="text-align:left; vertical-align:top; font-weight:normal; '
                         f'padding:0.15em 1em 0.15em 0">{html.escape(row.label)}</th><td style="text-align:left; '
                         f'vertical-align:top; padding:0.15em 0">{text}</td></tr>')
        # Inline styles override JupyterLab's, which centre tables and fix their layout.
        table = (f'<table style="border-collapse:collapse; table-layout:auto; margin:0.3em auto 0 0">{"".join(cells)}'
                 '</table>' if cells else "")
        return (f'<div style="border-left:0.35em solid {colour[self.status]}; padding:0.3em 0.8em; margin:0.2em 0">'
                f'<div style="font-weight:bold">{html.escape(self.headline)}</div>{table}</div>')


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


def _show_inputs(case: Case) -> str:
    width = max(len(parameter) for parameter in case.parameters)
    return "\n".join(f"{parameter:<{width}} = " + (
        case.generator_text().replace("\n", "\n" + " " * (width + 3)) if isinstance(value, np.random.Generator)
        else show(value, precision=case.precision, indent=width + 3))
        for parameter, value in zip(case.parameters, case.arguments()))


def _show_outcome(case: Case, problem: Problem, shown: Outcome, got: Outcome) -> str:
    """`shown` (the reference's outcome or the learner's, `got`) as the feedback's expected or got row."""
    if shown is got and got.error is not None:
        where = where_it_raised(got.error)
        return f"{got.error_text}\n(raised at {where})" if where else got.error_text
    if problem.kind == "changed_input":
        prefix = "{} after the call: " if shown is got else "{} left as it was passed in: "
        values = got.changed_inputs if shown is got else dict(zip(case.parameters, case.arguments()))
        return "\n".join(prefix.format(name) + show(values[name], indent=len(prefix.format(name)))
                         for name in got.changed_inputs)
    text = show(shown.value, precision=max(8, case.precision))  # a case of nearly equal rows shows its digits
    if problem.kind == "draws":
        draws = draws_made(case, shown.rng_state)
        text += ("   (rng then in a state that no number of the rule's draws reaches)" if draws is None else
                 f"   (rng then after {draws} draw{'s' if draws != 1 else ''})")
    return text


def _what_the_cases_are(cases) -> str:
    worked, paper, edge, randoms = (sum(case.source == source for case in cases)
                                    for source in ("worked", "paper", "edge", "random"))
    parts = [text for count, text in (
        (worked, "the worked example" if worked == 1 else f"{worked} worked examples"),
        (paper, f"{paper} from Leviathan et al."), (edge, "1 edge case" if edge == 1 else f"{edge} edge cases"),
        (randoms, f"{randoms} seeded random cases")) if count]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def exercise_name(registry: dict):
    """An argument check: a string naming one of the exercises in `registry`."""
    def check_name(value, name, arguments) -> str:
        listed = ", ".join(map(repr, registry))
        if not isinstance(value, str):
            raise TypeError(f"{name} must be the exercise's name as a string, one of {listed}; got "
                            f"{type(value).__name__}")
        if value not in registry:
            raise ValueError(f"{name} must be one of {listed}; got {value!r}")
        return value
    return check_name


def _seconds(value, name, arguments):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 600:
        raise ValueError(f"{name} must be a number of seconds in (0, 600], got {value!r}")
    return value


#: The checks of `check` (and of the capstones' check): the exercise's name, a callable, a time limit.
CHECK_ARGUMENTS = dict(function=InstanceOf(Callable, "the function you wrote (a callable)"), time_limit=_seconds)


@checked(name=exercise_name(EXERCISES), **CHECK_ARGUMENTS)
def check(name: str, function, time_limit: float = TIME_LIMIT) -> CheckResult:
    """Check your implementation of one exercise of the exercises notebook against specdec's.

    Parameters
    ----------
    name : str
        One of "acceptance_rate", "residual_distribution", "speculative_step", "expected_tokens",
        "speedup", "optimal_gamma".
    function : callable
        Your function, with the same parameters as specdec's (optimal_gamma takes (alpha, c)).
    time_limit : float, optional
        Seconds your function may take on one case; a call still running then is stopped and reported.

    Returns
    -------
    CheckResult
        ``.passed``, ``.message``, and on a failure ``.case.arguments()``, the failing inputs again.

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
    return check_exercise(EXERCISES[name], function, time_limit)


def check_exercise(exercise: Exercise, function, time_limit: float = TIME_LIMIT, check_name="check") -> CheckResult:
    """`check`'s work for one exercise, on arguments already checked (the capstones reuse it)."""
    name, cases, got = exercise.name, exercise.cases(), []
    yours = getattr(function, "__name__", "")
    yours = yours if yours.isidentifier() else "your_function"  # a lambda has no name to call it by
    try_it = Row("try it", f'result = {check_name}("{name}", {yours})\n{yours}(*result.case.arguments())', code=True)
    for index, case in enumerate(cases):
        outcome = run(function, case, time_limit)
        if isinstance(outcome.error, NotImplementedError) and index == 0:
            return CheckResult(name, "not implemented", f"✗ {name}: not implemented yet",
                               (Row("to do", NOT_IMPLEMENTED),))
        if isinstance(outcome.error, TimedOut):
            rows = (Row("problem", f"your function had not returned after {time_limit:g} s, so the check stopped it"),
                    Row("inputs", _show_inputs(case), code=True), Row("hint", TIMED_OUT), try_it)
            return CheckResult(name, "failed", f"✗ {name} did not finish on case {index + 1} of {len(cases)}: "
                               f"{case.label}", rows, TIMED_OUT, case)
        got.append(outcome)
    expected = [run(exercise.reference, case) for case in cases]
    problems = [exercise.result.first_problem(e, g) for e, g in zip(expected, got)]
    failing = [i for i, problem in enumerate(problems) if problem is not None]
    if not failing:
        return CheckResult(name, "passed", f"✓ {name}: all {len(cases)} cases pass",
                           (Row("checked", f"{_what_the_cases_are(cases)}: {exercise.passed_means}."),))
    index = failing[0]
    case, problem = cases[index], problems[index]
    hint, in_practice = _diagnose(exercise, cases, expected, got, problems, index)
    rows = [Row("problem", problem.summary), Row("inputs", _show_inputs(case), code=True),
            Row("expected", _show_outcome(case, problem, expected[index], got[index]), code=True),
            Row("got", _show_outcome(case, problem, got[index], got[index]), code=True)]
    if exercise.explain is not None and problem.kind in ("value", "draws", "error"):
        rows.append(Row("the rule", exercise.explain(case), code=True))
    rows += [Row(label, text) for label, text in (("hint", hint), ("in practice", in_practice)) if text]
    headline = f"✗ {name} fails on case {index + 1} of {len(cases)}: {case.label}"
    headline += f" ({len(failing)} cases fail in all)" if len(failing) > 1 else ""
    return CheckResult(name, "failed", headline, (*rows, try_it), hint, case)
