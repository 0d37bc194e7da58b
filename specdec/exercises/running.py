"""Call a function on one case and record everything the checker compares: the outcome.

The learner's code runs here, so nothing it does may escape: an exception becomes part of the
outcome, numpy's floating-point warnings are silenced (a NaN in the result says more than a warning
printed above the feedback), and if it draws from numpy's or Python's global generator, that is
recorded and the global state put back as it was. A call that has not returned within its time
limit is interrupted, and the outcome says so.

How the limit interrupts: in the main thread on Unix, a one-shot ``SIGALRM`` timer
(``signal.setitimer``) whose handler raises `TimedOut` where the code is running; elsewhere (another
thread, Windows), a trace function (``sys.settrace``) that raises it at the next line once the time
is up. Both stop a Python loop; neither stops a single long call inside numpy's compiled code.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import sysconfig
import threading
import time
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from .cases import Case


class TimedOut(BaseException):
    """Raised inside a learner's function whose time is up.

    A BaseException, like KeyboardInterrupt, so that an ``except Exception`` in the learner's code
    does not swallow it.
    """


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
    timed_out : bool
        Whether it was stopped because it had not returned within its time limit.
    """

    value: object = None
    error: Exception | None = None
    changed_inputs: tuple = ()
    changed_values: tuple = ()
    aliased_inputs: tuple = ()
    rng_state: dict | None = None
    used_global_rng: bool = False
    timed_out: bool = False


def run(function, case: Case, time_limit: float | None = None) -> Outcome:
    """Call `function` on fresh copies of the case's inputs and record what happened.

    If `time_limit` (seconds) is given and the call has not returned by then, it is interrupted
    and the outcome has ``timed_out`` set.
    """
    arguments = case.arguments()
    numpy_state, python_state = np.random.get_state(), random.getstate()
    value, error, timed_out = None, None, False
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            with time_limited(time_limit):
                value = function(*arguments)
        except TimedOut:
            timed_out = True
        except Exception as raised:  # the learner's code: any exception is feedback
            error = raised
    used_global_rng = _restore_if_changed(numpy_state, python_state)
    changed, changed_values, aliased = [], [], []
    for (parameter, original), given in zip(case.inputs, arguments):
        if not _unchanged(given, original):
            changed.append(parameter)
            changed_values.append(given)
        if isinstance(value, np.ndarray) and isinstance(given, np.ndarray) and np.shares_memory(value, given):
            aliased.append(parameter)
    rng_state = arguments[-1].bit_generator.state if case.seed is not None else None
    return Outcome(value, error, tuple(changed), tuple(changed_values), tuple(aliased), rng_state, used_global_rng,
                   timed_out)


@contextlib.contextmanager
def time_limited(seconds: float | None):
    """Raise `TimedOut` inside the block once it has run for `seconds`; no limit if None.

    >>> with time_limited(1.0):
    ...     total = sum(range(10))
    >>> total
    45
    """
    if seconds is None:
        yield
    elif threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _traced_deadline(seconds):
            yield


def _raise_timed_out(signum, frame):
    raise TimedOut


@contextlib.contextmanager
def _alarm(seconds: float):
    """A one-shot SIGALRM timer; any timer and handler set before are put back afterwards."""
    previous_handler = signal.signal(signal.SIGALRM, _raise_timed_out)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        # The timer fires at most once: if it fires here, the inner finally still restores.
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            signal.signal(signal.SIGALRM, previous_handler)
            if previous_delay > 0:  # someone else's timer was running: let it go on
                remaining = max(previous_delay - (time.monotonic() - started), 1e-6)
                signal.setitimer(signal.ITIMER_REAL, remaining, previous_interval)


@contextlib.contextmanager
def _traced_deadline(seconds: float):
    """A trace function that raises TimedOut at the first line run after the deadline."""
    deadline = time.monotonic() + seconds
    previous_trace = sys.gettrace()

    def trace(frame, event, arg):
        if time.monotonic() > deadline:
            raise TimedOut
        return trace

    sys.settrace(trace)
    try:
        yield
    finally:
        sys.settrace(previous_trace)


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
