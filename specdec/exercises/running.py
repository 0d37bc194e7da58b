"""Call a function on one case and record everything the checker compares: the outcome.

The learner's code runs here, so nothing it does may escape: an exception becomes part of the
outcome, numpy's floating-point warnings are silenced (a NaN in the result says more than a warning
printed above the feedback), and if it draws from numpy's or Python's global generator, that is
recorded and the global state put back as it was.
"""

from __future__ import annotations

import os
import random
import sysconfig
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from .cases import PARAMETERS, Case


@dataclass(frozen=True)
class Outcome:
    """What one call did.

    Attributes
    ----------
    value : object
        What the function returned (None if it raised).
    error : Exception or None
        What it raised.
    changed_inputs : tuple of str
        The parameters whose arrays or lists differ from what was passed in.
    changed_values : tuple
        What those parameters held after the call, in the same order.
    aliased_inputs : tuple of str
        The parameters whose arrays share memory with the returned array.
    rng_state : dict or None
        ``rng.bit_generator.state`` after the call, for exercises that take a generator.
    used_global_rng : bool
        Whether it drew from ``np.random``'s or ``random``'s global generator.
    """

    value: object = None
    error: Exception | None = None
    changed_inputs: tuple = ()
    changed_values: tuple = ()
    aliased_inputs: tuple = ()
    rng_state: dict | None = None
    used_global_rng: bool = False


def run(name: str, function, case: Case) -> Outcome:
    """Call `function` on fresh copies of the case's inputs and record what happened."""
    arguments = case.arguments()
    numpy_state, python_state = np.random.get_state(), random.getstate()
    value, error = None, None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            value = function(*arguments)
        except Exception as raised:  # the learner's code: any exception is feedback
            error = raised
    used_global_rng = _restore_if_changed(numpy_state, python_state)
    names = PARAMETERS[name]
    changed, changed_values, aliased = [], [], []
    for parameter, given, (_, original) in zip(names, arguments, case.inputs):
        if not _unchanged(given, original):
            changed.append(parameter)
            changed_values.append(given)
        if isinstance(value, np.ndarray) and isinstance(given, np.ndarray) and np.shares_memory(value, given):
            aliased.append(parameter)
    rng_state = arguments[-1].bit_generator.state if case.seed is not None else None
    return Outcome(value, error, tuple(changed), tuple(changed_values), tuple(aliased), rng_state, used_global_rng)


def _unchanged(given, original) -> bool:
    """Whether the argument handed over still equals the case's frozen input."""
    if isinstance(original, np.ndarray):
        return (isinstance(given, np.ndarray) and given.shape == original.shape
                and given.dtype == original.dtype and np.array_equal(given, original))
    if isinstance(original, tuple):  # handed over as a list
        return isinstance(given, list) and given == list(original) and all(type(t) is int for t in given)
    return True  # scalars are immutable


def _restore_if_changed(numpy_state, python_state) -> bool:
    changed = False
    now = np.random.get_state()
    if now[2] != numpy_state[2] or not np.array_equal(now[1], numpy_state[1]) or now[3:] != numpy_state[3:]:
        np.random.set_state(numpy_state)
        changed = True
    if random.getstate() != python_state:
        random.setstate(python_state)
        changed = True
    return changed


_LIBRARY_DIRECTORIES = tuple(
    os.path.realpath(path) + os.sep
    for path in (
        os.path.dirname(np.__file__),
        os.path.dirname(os.path.dirname(__file__)),  # specdec itself
        sysconfig.get_paths()["stdlib"],
    )
)


def error_text(error: Exception) -> str:
    """'ValueError: probabilities contain NaN': the exception's type and message, kept short."""
    try:
        message = str(error)
    except Exception:  # a learner's own exception class can have a broken __str__
        message = ""
    if len(message) > 300:
        message = message[:300] + " …"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def where_it_raised(error: Exception) -> str | None:
    """The line of the caller's own code where `error` was raised (or passed through), as text.

    Frames inside numpy, specdec and the standard library are skipped, so a ``rng.choice`` that
    refuses NaN probabilities is reported at the learner's line that called it.
    """
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        compiled = frame.filename.endswith((".pyx", ".pxd")) or frame.filename.startswith("<frozen")
        if compiled or os.path.realpath(frame.filename).startswith(_LIBRARY_DIRECTORIES):
            continue
        place = f"line {frame.lineno} of your {frame.name}"
        code = (frame.line or "").strip()
        return f"{place}: {code}" if code else place
    return None
