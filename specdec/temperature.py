"""Temperature: how a model's logits become the distribution a token is sampled from.

A language model outputs one logit z(x) per token; sampling at temperature T uses

    softmax(z / T)(x) = exp(z(x)/T) / Σ_y exp(z(y)/T).

T = 1 is the model's own distribution, T > 1 flattens it, T < 1 sharpens it, and T → 0 puts all the
mass on the largest logit (if it is unique): greedy decoding. Speculative decoding must use the *same* processed
distribution for sampling and for the ratio p/q, so the temperature of each model changes α.

What is simplified: real engines also apply top-k, top-p and repetition penalties to the logits;
here the temperature is the only processing. The example logits of `related_logits` are Gaussian
noise, not the output of a network: a stand-in that lets a draft agree with its target to a
chosen degree.

>>> softmax([2.0, 1.0, 0.0], temperature=0)
array([1., 0., 0.])
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import validation
from .core import acceptance_rate
from .validation import MAX_VOCAB, Constraint, Count, Generator, OrNone, PositiveNumber, checked


class Temperature(Constraint):
    """A finite real number >= 0, as a float (a temperature, 0 for greedy decoding, or a noise level)."""

    def __call__(self, value, name, arguments):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a real number >= 0, got {value!r} of type {type(value).__name__}")
        value = float(value)
        if not (value >= 0.0 and math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        return value


class Temperatures(Constraint):
    """A 1-D array of temperatures >= 0, as a float array."""

    def __call__(self, value, name, arguments):
        grid = validation.real_array(value, name, "a 1-D array of temperatures >= 0")
        if grid.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of shape (n,), got shape {grid.shape}")
        for index, temperature in enumerate(grid.tolist()):
            Temperature()(temperature, f"{name}[{index}]", arguments)
        return grid


class Logits(Constraint):
    """One real score per token, as a float array (not copied if it is one): ``-inf`` allowed, NaN and
    ``+inf`` refused, at least one finite entry; with `like`, as many tokens as that argument."""

    def __init__(self, like: str | None = None):
        self.like = like

    def __call__(self, value, name, arguments):
        scores = validation.real_array(value, name, "a 1-D array of real numbers")
        if scores.ndim != 1 or scores.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array of shape (V,), got shape {scores.shape}")
        if np.isnan(scores).any():
            raise ValueError(f"{name} contains NaN at index {int(np.argmax(np.isnan(scores)))}; expected real numbers")
        if np.isposinf(scores).any():
            raise ValueError(
                f"{name} contains +inf at index {int(np.argmax(np.isposinf(scores)))}; expected finite numbers "
                f"(-inf is allowed for a token that can never be produced)"
            )
        if not np.isfinite(scores).any():
            raise ValueError(f"{name} must have at least one finite logit, but every entry is -inf")
        if self.like is not None and arguments[self.like].shape != scores.shape:
            raise ValueError(f"{self.like} and {name} must have the same length V, got "
                             f"{arguments[self.like].size} and {scores.size}")
        return scores


@checked(logits=Logits(), temperature=Temperature())
def softmax(logits, temperature=1.0) -> np.ndarray:
    """The distribution softmax(logits / T) that a model samples from at temperature T.

    Parameters
    ----------
    logits : array_like of shape (V,)
        One real score per token. ``-inf`` marks a token that can never be produced; ``+inf`` and
        NaN are refused, and at least one logit must be finite.
    temperature : float >= 0
        T = 0 means greedy decoding: a one-hot distribution on the largest logit (the first one on a
        tie, as ``numpy.argmax`` and greedy decoders pick it), the limit of softmax(z / T) as T → 0
        when the largest logit is unique.

    Returns
    -------
    numpy.ndarray of shape (V,)
        A new float array that sums to 1; `logits` is not modified.

    Examples
    --------
    >>> softmax([0.0, 0.0])
    array([0.5, 0.5])
    >>> softmax([1.0, 0.0], temperature=0.5).round(4)
    array([0.8808, 0.1192])
    """
    if temperature == 0.0:
        greedy = np.zeros_like(logits)
        greedy[int(np.argmax(logits))] = 1.0
        return greedy
    # Shifting by the largest logit keeps every exponent <= 0: no overflow, same distribution. At a
    # tiny T the shifted logits divided by T may reach -inf, whose exponential is the right 0.
    with np.errstate(over="ignore"):
        scaled = (logits - logits.max()) / temperature
    weights = np.exp(scaled)
    return weights / weights.sum()


@checked(vocab=Count(2, MAX_VOCAB), rng=Generator(), draft_noise=Temperature(),
         spread=PositiveNumber("the standard deviation of the target logits"))
def related_logits(vocab, rng, draft_noise=1.0, spread=2.0) -> tuple[np.ndarray, np.ndarray]:
    """Example target and draft logits: the draft's are the target's plus independent noise.

    Parameters
    ----------
    vocab : int in 2 … 1,000,000
        Number of tokens V (at most `specdec.validation.MAX_VOCAB`).
    rng : numpy.random.Generator
        Source of the draws: V normal target logits, then V normal noise terms.
    draft_noise : float >= 0
        Standard deviation of the noise added to the target logits; 0 makes the draft equal the
        target, a large value makes it unrelated.
    spread : finite float > 0
        Standard deviation of the target logits; larger values give more peaked distributions.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        target_logits and draft_logits, each of shape (V,).

    Examples
    --------
    >>> target_logits, draft_logits = related_logits(5, np.random.default_rng(0))
    >>> target_logits.shape, draft_logits.shape
    ((5,), (5,))
    """
    target_logits = rng.normal(0.0, spread, size=vocab)
    draft_logits = target_logits + rng.normal(0.0, 1.0, size=vocab) * draft_noise
    return target_logits, draft_logits


@checked(target_logits=Logits(), draft_logits=Logits(like="target_logits"), temperatures=Temperatures(),
         target_temperature=OrNone(Temperature()))
def alpha_over_temperatures(target_logits, draft_logits, temperatures, target_temperature=None) -> np.ndarray:
    """α = Σ min(p, q) at each temperature of a grid, for the draft alone or for both models.

    Parameters
    ----------
    target_logits, draft_logits : array_like of shape (V,)
        As for `softmax`; the same V.
    temperatures : array_like of shape (n,)
        Temperatures >= 0 (0 is greedy decoding).
    target_temperature : float >= 0, optional
        If given, the target stays at this temperature and only the draft's changes along the
        grid: q = softmax(draft_logits / T) against p = softmax(target_logits / target_temperature).
        If None, both models share each temperature T of the grid.

    Returns
    -------
    numpy.ndarray of shape (n,)
        `specdec.acceptance_rate` of p and q at each temperature.

    Examples
    --------
    >>> target, draft = [2.0, 1.0, 0.0], [0.0, 1.0, 2.0]
    >>> alpha_over_temperatures(target, draft, [0.0, 1.0, 100.0]).round(3).tolist()
    [0.0, 0.425, 0.993]
    >>> alpha_over_temperatures(target, target, [0.0, 1.0], target_temperature=1.0).round(3).tolist()
    [0.665, 1.0]
    """
    unchecked_softmax = softmax.__wrapped__  # every argument here is checked already
    if target_temperature is not None:
        fixed_target = unchecked_softmax(target_logits, target_temperature)
    alphas = np.empty(temperatures.size)
    for index, temperature in enumerate(temperatures.tolist()):
        target = fixed_target if target_temperature is not None else unchecked_softmax(target_logits, temperature)
        alphas[index] = acceptance_rate(target, unchecked_softmax(draft_logits, temperature))
    return alphas
