"""Argument checks, declared once at each public entry, and the limits and defaults specdec shares.

A public function says in one decorator what each argument must be, ``@checked(alpha=Probability(), rng=Generator())``;
each constraint returns the clean value the body receives, or raises a `ValueError` / `TypeError` naming the argument,
what was wrong and what is expected, before the body runs: a bad call never consumes a random draw. Arrays are read
with `real_array` or `Integers`, never ``np.asarray(value, dtype=float)``, which drops imaginary parts and truncates.
The ranges of the explorers' controls are not here: the shared ones are in `specdec.explore.frame`.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers

import numpy as np

# The limits and defaults of specdec's functions (γ, V, the γ search range), in one place: import them, never copy a
# number.
MAX_GAMMA = 64  #: the largest draft length γ a function that builds a verify step from a size accepts
MAX_VOCAB = 1_000_000  #: the largest vocabulary a function that builds rows from a size accepts (real: ~10⁵)
DEFAULT_MAX_GAMMA = 20  #: the γ search range unless told otherwise (`optimal_gamma`; a γ schedule's longest)
LARGEST_MAX_GAMMA = 1_000  #: the longest draft `optimal_gamma` searches: past any useful γ, a search of ms
SUM_TOLERANCE = 1e-6  #: how far a row may sum from 1 and still count as a probability distribution

_FLOAT64 = np.dtype(np.float64)


def _number(value, name: str, expected: str, kind=numbers.Real):
    """`value` if it is a `kind` number and not a bool; else a TypeError saying what `name` must be."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {expected}, got {value!r} of type {type(value).__name__}")
    return value


def _numpy_view(value, name: str, expected: str) -> np.ndarray:
    """``np.asarray(value)``, refusing text, None and what numpy cannot read, in words that name `name`."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__}")
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} that numpy cannot read as numbers "
                        f"({error})") from None


def real_array(value, name: str, expected: str = "an array (or list) of real numbers") -> np.ndarray:
    """`value` as a float64 array (not copied if it is one); complex numbers and text are a TypeError that
    says what `name` must be (`expected`) and, for complex numbers, to pass ``.real`` if that is meant."""
    array = _numpy_view(value, name, expected)
    if array.dtype.kind == "c":
        raise TypeError(f"{name} must be {expected}, got complex numbers ({array.dtype}); pass .real if the "
                        f"imaginary parts are meant to be dropped")
    if array.dtype.kind not in "biufO":
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} that numpy cannot read as numbers "
                        f"(its entries are of type {array.dtype})")
    try:
        return array.astype(np.float64, copy=False)
    except (TypeError, ValueError) as error:  # an object array holding something that is not a real number
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} that numpy cannot read as real "
                        f"numbers ({error})") from None


def as_float_array(value, name: str, ndim: int) -> np.ndarray:
    """`value` as a float64 array of probabilities with `ndim` dimensions, not copied if it already is one."""
    if type(value) is np.ndarray and value.dtype is _FLOAT64 and value.ndim == ndim and value.shape[-1]:
        return value  # the common case, checked in one line
    array = real_array(value, name, "an array (or list) of probabilities (real numbers)")
    if array.ndim != ndim:
        wanted = "a 1-D array of shape (V,)" if ndim == 1 else "a 2-D array with one distribution per row"
        raise ValueError(f"{name} must be {wanted}, got an array of shape {array.shape}")
    if array.shape[-1] < 1 and (ndim == 1 or array.shape[0] > 0):
        raise ValueError(f"{name} must have at least one token (V >= 1), got shape {array.shape}")
    return array


def _describe_bad_entry(array: np.ndarray, name: str) -> str:
    """The first NaN of `array`, else its first infinity, else its first negative entry, in words."""
    if len(bad := np.argwhere(np.isnan(array))):
        return f"{name} contains NaN at index {tuple(int(i) for i in bad[0])}; expected finite probabilities"
    if len(bad := np.argwhere(np.isinf(array))):
        where = tuple(int(i) for i in bad[0])
        return f"{name} contains {array[where]} at index {where}; expected finite probabilities"
    where = tuple(int(i) for i in np.argwhere(array < 0)[0])
    return f"{name} contains a negative entry {array.item(where)!r} at index {where}; probabilities must be >= 0"


def check_distributions(array: np.ndarray, name: str) -> None:
    """Check that every row (or the single vector) of `array` is a probability distribution."""
    if array.size == 0:
        return
    if not np.minimum.reduce(array, axis=None) >= 0:  # also catches NaN, for which every comparison is False
        raise ValueError(_describe_bad_entry(array, name))
    for row, total in enumerate(np.add.reduce(np.atleast_2d(array), axis=1).tolist()):
        if not abs(total - 1.0) <= SUM_TOLERANCE:  # also catches an infinite or NaN sum
            if not math.isfinite(total):
                raise ValueError(_describe_bad_entry(array, name))
            rule = f"sum to 1 (within {SUM_TOLERANCE:g}), but"
            raise ValueError(f"{name} must {rule} it sums to {total!r}" if array.ndim == 1
                             else f"each row of {name} must {rule} row {row} sums to {total!r}")


def same_vocabulary(first: np.ndarray, first_name: str, second: np.ndarray, second_name: str) -> None:
    """Check that the arrays `first` and `second` have as many tokens (their last axis)."""
    if first.shape[-1] != second.shape[-1]:
        raise ValueError(f"{first_name} and {second_name} must be over the same vocabulary, but {first_name} has "
                         f"V = {first.shape[-1]} tokens and {second_name} has V = {second.shape[-1]}")


def integers_in_range(array: np.ndarray, name: str, low: int, high: int, what: str) -> None:
    """Check that every entry of the integer array `array` lies in low … high; name the first that does not
    ("samples[1] = 4 is out of range: categories must be in 0 … 2")."""
    if array.size == 0 or (array.min() >= low and array.max() <= high):
        return
    bad = np.argwhere((array < low) | (array > high))[0]
    raise ValueError(f"{name}[{', '.join(str(int(i)) for i in bad)}] = {int(array[tuple(bad)])} is out of range: "
                     f"{what} must be in {low:,} … {high:,}")


# Declared checks: the constraints, and `checked`, which runs them. ----------------------------------


class Constraint:
    """What one argument must be: ``constraint(value, name, arguments)`` returns `value` checked and converted.

    `name` is the parameter's, for the message; `arguments` maps every parameter to its value, those declared before
    this one already converted ("over the same vocabulary as target"). Outside `checked`: ``Count(1)(value, name)``.
    """

    @staticmethod
    def bound(limit, arguments: dict):
        """A bound given as a number, or as a function of the arguments checked so far."""
        return limit(arguments) if callable(limit) else limit


class Probability(Constraint):
    """A real number in [0, 1], as a float."""
    def __call__(self, value, name, arguments=None):
        value = float(_number(value, name, "a real number in [0, 1]"))
        if not 0.0 <= value <= 1.0:  # False for NaN too
            raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        return value


class PositiveFraction(Probability):
    """A real number in (0, 1], as a float."""
    def __call__(self, value, name, arguments=None):
        if (value := super().__call__(value, name, arguments)) == 0.0:
            raise ValueError(f"{name} must be in (0, 1], got 0.0")
        return value


class Count(Constraint):
    """An integer in minimum … maximum (no upper bound if maximum is None), as a Python int; either bound
    may be a function of the arguments checked before: ``Count(1, lambda a: a["gamma"] + 1)``."""
    def __init__(self, minimum=0, maximum=None):
        self.minimum, self.maximum = minimum, maximum

    def __call__(self, value, name, arguments=None):
        minimum, maximum = self.bound(self.minimum, arguments), self.bound(self.maximum, arguments)
        expected = f">= {minimum:,}" if maximum is None else f"in {minimum:,} … {maximum:,}"
        value = int(_number(value, name, f"an integer {expected}", numbers.Integral))
        if value < minimum or (maximum is not None and value > maximum):
            raise ValueError(f"{name} must be an integer {expected}, got {value:,}")
        return value


class Between(Constraint):
    """A real number in low … high (a float slider's range), as a float; `unit` follows the bounds in a message.

    >>> Between(0, 3, " ms")(3.5, "pass_time")
    Traceback (most recent call last):
    ValueError: pass_time must be in 0 … 3 ms (the slider's range), got 3.5
    """
    def __init__(self, low: float, high: float, unit: str = ""):
        self.low, self.high, self.unit = low, high, unit

    def __call__(self, value, name, arguments=None):
        span = f"{self.low:g} … {self.high:g}{self.unit}"
        if not self.low <= _number(value, name, f"a number in {span}") <= self.high:  # False for NaN too
            raise ValueError(f"{name} must be in {span} (the slider's range), got {value!r}")
        return float(value)


class CostRatio(Constraint):
    """c, the time of one target pass over one draft pass: a number > 0 (``math.inf``: a free draft), as a float."""
    def __call__(self, value, name, arguments=None):
        value = float(_number(value, name, "a positive number"))
        if not value > 0:  # False for NaN too
            raise ValueError(f"{name} must be > 0 (the time of one target pass divided by one draft pass), "
                             f"got {value!r}")
        return value


class PositiveNumber(Constraint):
    """A finite real number > 0, as a float; `meaning` says in any error what the parameter is."""
    def __init__(self, meaning: str):
        self.meaning = meaning

    def __call__(self, value, name, arguments=None):
        value = float(_number(value, name, f"a finite number > 0 ({self.meaning})"))
        if not (value > 0 and math.isfinite(value)):  # False for NaN too
            raise ValueError(f"{name} must be a finite number > 0 ({self.meaning}), got {value!r}")
        return value


class Distribution(Constraint):
    """A 1-D probability vector, as a float array; with `like`, over the same vocabulary as that argument."""
    ndim = 1

    def __init__(self, like: str | None = None):
        self.like = like

    def __call__(self, value, name, arguments=None):
        if self.ndim == 2 and isinstance(value, (list, tuple)) and len(value) == 0:
            return np.empty((0, 0))
        array = as_float_array(value, name, self.ndim)
        check_distributions(array, name)
        if self.like is not None:
            same_vocabulary(arguments[self.like], self.like, array, name)
        return array


class DistributionRows(Distribution):
    """A 2-D float array whose rows are probability vectors; an empty list or tuple is no rows."""
    ndim = 2


class StepRows(Constraint):
    """The (γ+1, V) target rows and the (γ, V) draft rows of one verify step, checked together: given to
    `checked` by position, its ``update(arguments)`` replaces both values in `arguments` by checked ones.
    Valid rows cost two numpy reductions; the precise diagnosis runs only once something is wrong."""
    def __init__(self, target: str, draft: str):
        self.target, self.draft = target, draft

    def update(self, arguments):
        target, draft = as_float_array(arguments[self.target], "target_probs", 2), arguments[self.draft]
        if isinstance(draft, (list, tuple)) and len(draft) == 0:
            draft = np.empty((0, target.shape[1]))  # γ = 0: an empty list means "no draft rows" whatever V is
        draft = as_float_array(draft, "draft_probs", 2)
        rows, vocab = target.shape
        if draft.shape[0] != rows - 1:
            raise ValueError(f"target_probs must have one row more than draft_probs (γ+1 rows against γ), but "
                             f"target_probs has {rows} rows and draft_probs has {draft.shape[0]}")
        if rows > 1 and draft.shape[1] != vocab:  # with no draft rows (γ = 0), the draft's width says nothing
            same_vocabulary(target, "target_probs", draft, "draft_probs")
        if rows == 1:
            draft = draft.reshape(0, vocab)  # (0, V′) at γ = 0 is no rows whatever V′; a view, the input is untouched
            check_distributions(target, "target_probs")
        else:  # one stacked copy halves the number of reductions, whose fixed cost dominates at these sizes
            stacked = np.concatenate((target, draft))
            lowest, sums = np.minimum.reduce(stacked, None), np.add.reduce(stacked, 1).tolist()
            # A NaN entry makes `lowest` NaN and fails the first test; an infinite one fails a sum test.
            if not (lowest >= 0 and max(sums) - 1.0 <= SUM_TOLERANCE and 1.0 - min(sums) <= SUM_TOLERANCE):
                check_distributions(target, "target_probs")
                check_distributions(draft, "draft_probs")
        arguments[self.target], arguments[self.draft] = target, draft


class DraftTokens(Constraint):
    """One token id per row of the checked draft rows ``arguments["draft_probs"]``, each with q(x) > 0, as ints."""
    def __call__(self, value, name, arguments):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise TypeError(f"draft_tokens must be a 1-D sequence of token ids (ints), got {type(value).__name__}")
        tokens = value.tolist() if isinstance(value, np.ndarray) else list(value)
        draft = arguments["draft_probs"]
        rows, vocab_size = draft.shape
        if len(tokens) != rows:
            raise ValueError(f"draft_tokens must hold one token per draft row: expected {rows}, got {len(tokens)}")
        for position, token in enumerate(tokens):
            if type(token) is not int:  # the common case skips the slower abstract-class checks
                tokens[position] = token = int(_number(token, f"draft_tokens[{position}]", "an integer token id",
                                                       numbers.Integral))
            if not 0 <= token < vocab_size:
                raise ValueError(f"draft_tokens[{position}] = {token} is out of range: token ids must be in "
                                 f"0 … {vocab_size - 1} (V = {vocab_size})")
            if not draft.item(position, token) > 0:
                raise ValueError(
                    f"draft_tokens[{position}] = {token} has draft probability draft_probs[{position}, {token}] = 0: "
                    f"the draft model could not have sampled that token at that position (expected q(x) > 0)")
        return tokens


class Generator(Constraint):
    """A numpy.random.Generator (not a seed, not a RandomState)."""
    def __call__(self, value, name, arguments=None):
        if isinstance(value, np.random.Generator):
            return value
        seed_like = isinstance(value, (numbers.Integral, np.random.RandomState)) or value is None
        hint = "; use np.random.default_rng(seed) to make one" if seed_like else ""
        raise TypeError(f"{name} must be a numpy.random.Generator, got {type(value).__name__}{hint}")


class Rates(Constraint):
    """A 1-D sequence of acceptance rates, each in [0, 1], as a float array."""
    def __call__(self, value, name, arguments=None):
        values = real_array(value, name, "a 1-D sequence of acceptance rates")
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-D (one acceptance rate per entry), got shape {values.shape}")
        if (outside := ~((values >= 0) & (values <= 1))).any():  # NaN counts as outside
            index = int(np.argmax(outside))
            raise ValueError(f"{name}[{index}] must be an acceptance rate in [0, 1], got {values.item(index)!r}")
        return values


class Integers(Constraint):
    """An integer array with `ndim` dimensions (an empty one becomes int64); with bounds, every entry in low … high.

    Floats (even whole ones), booleans, complex numbers and ints too large for 64 bits are refused: a float token or
    count is a sign of a mix-up. `what` names the entries ("token ids"), `within` in the out-of-range message.

    >>> Integers("token ids")([2, 1.7], "ids")
    Traceback (most recent call last):
    TypeError: ids must be a 1-D array of integer token ids, got float64 entries (such as 2.0) of shape (2,)
    """
    def __init__(self, what: str, ndim: int = 1, low=None, high=None, within: str | None = None):
        self.what, self.ndim, self.low, self.high, self.within = what, ndim, low, high, within or what

    def __call__(self, value, name, arguments=None):
        expected = f"{'a 1-D array' if self.ndim == 1 else f'a {self.ndim}-D array'} of integer {self.what}"
        array = _numpy_view(value, name, expected)
        if array.ndim != self.ndim:
            raise ValueError(f"{name} must be {expected}, got an array of shape {array.shape}")
        if array.size == 0:
            return array.astype(np.int64)
        if not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"{name} must be {expected}, got {array.dtype} entries (such as "
                            f"{array.ravel()[:1].tolist()[0]!r}) of shape {array.shape}")
        if self.low is not None:
            low, high = self.bound(self.low, arguments), self.bound(self.high, arguments)
            integers_in_range(array, name, low, high, self.within)
        return array


class OneOf(Constraint):
    """One of a few given values (compared with ==, of the same type), returned as it is."""
    def __init__(self, *choices):
        self.choices = choices

    def __call__(self, value, name, arguments=None):
        if any(type(value) is type(choice) and value == choice for choice in self.choices):
            return value
        raise ValueError(f"{name} must be one of {', '.join(repr(choice) for choice in self.choices)}; got {value!r}")


class InstanceOf(Constraint):
    """An instance of `kind` (a class or a tuple of classes), returned as it is; `what` names it in words."""
    def __init__(self, kind, what: str):
        self.kind, self.what = kind, what

    def __call__(self, value, name, arguments=None):
        if not isinstance(value, self.kind):
            raise TypeError(f"{name} must be {self.what}, got {type(value).__name__}")
        return value


class OrNone(Constraint):
    """None, or what `constraint` accepts."""
    def __init__(self, constraint):
        self.constraint = constraint

    def __call__(self, value, name, arguments=None):
        return None if value is None else self.constraint(value, name, arguments)


def checked(*joint, **named):
    """Declare what each argument of a function must be; the decorated function checks them first.

    `named` maps a parameter to its constraint; each of `joint` checks several parameters together (like `StepRows`)
    through its method ``update(arguments)``. They run in the order given, `joint` first, before the body: a bad call
    makes no random draw. Each returns the value the body receives; others pass as they are; inputs are never modified.

    >>> @checked(alpha=Probability(), gamma=Count(maximum=64))
    ... def power(alpha, gamma):
    ...     return alpha**gamma
    >>> power(0.5, 2)
    0.25
    >>> power(0.5, 65)
    Traceback (most recent call last):
    ValueError: gamma must be an integer in 0 … 64, got 65
    """
    def decorate(function):
        signature = inspect.signature(function)
        parameters = tuple(signature.parameters)
        if unknown := sorted(set(named) - set(parameters)):
            raise TypeError(f"@checked names {unknown}, which {function.__qualname__} has no parameter for")
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in signature.parameters.values())
        arity = len(parameters) if plain else -1

        @functools.wraps(function)
        def checked_function(*args, **kwargs):
            if len(args) == arity and not kwargs:
                arguments = dict(zip(parameters, args))  # the common case: every argument by position
            else:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                arguments = bound.arguments
            for constraint in joint:
                constraint.update(arguments)
            for name, constraint in named.items():
                arguments[name] = constraint(arguments[name], name, arguments)
            if plain:  # `arguments` holds every parameter, in the order of the signature
                return function(*arguments.values())
            return function(*bound.args, **bound.kwargs)

        return checked_function

    return decorate
