"""The one-position empirical check: sample the rule many times, compare frequencies with p.

At a single position the rule draws x ~ q, keeps it when u < min(1, p(x)/q(x)), and otherwise draws
a replacement from the residual. Its output should follow p exactly. `speculative_samples` draws n
such outputs at once; `max_deviation` measures the largest gap between their frequencies and p;
`chance_max_deviations` says how large that gap is when nothing is wrong at all, by drawing n
tokens straight from p many times over. A sampler is suspect only when its gap is well beyond
what chance gives.

The ten-token rows are a worked check: a peaked target p and a flatter draft q.

>>> import numpy as np
>>> samples = speculative_samples(TEN_TOKEN_TARGET, TEN_TOKEN_DRAFT, 1000, np.random.default_rng(0))
>>> samples.shape, bool(samples.min() >= 0), bool(samples.max() < 10)
((1000,), True, True)
"""

from __future__ import annotations

import numpy as np

from .core import unchecked_residual
from .goodness_of_fit import max_deviation_by_size
from .validation import Constraint, Count, Distribution, Generator, checked

#: Target p of the ten-token check.
TEN_TOKEN_TARGET = (0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01)
#: Draft q of the ten-token check.
TEN_TOKEN_DRAFT = (0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01)


@checked(target=Distribution(), draft=Distribution(like="target"), n=Count(1), rng=Generator())
def speculative_samples(target, draft, n, rng) -> np.ndarray:
    """n independent outputs of the rule at one position, as an int array of shape (n,).

    Each output: draw x from q and u from U[0, 1); keep x when u < min(1, p(x)/q(x)); otherwise
    draw from the residual norm(max(0, p − q)). The draws are vectorised (all proposals, then all
    uniforms, then all replacements), so the random stream differs from n calls of
    `speculative_step`; the law is the same.

    Parameters
    ----------
    target, draft : array_like of shape (V,)
        p and q, each summing to 1.
    n : int >= 1
    rng : numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> speculative_samples([1.0, 0.0], [0.5, 0.5], 5, np.random.default_rng(0)).tolist()
    [0, 0, 0, 0, 0]
    """
    vocab = target.size
    proposals = rng.choice(vocab, size=n, p=draft)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(draft > 0, np.minimum(1.0, target / draft), 0.0)
    accepted = rng.random(n) < ratio[proposals]
    samples = proposals.copy()
    rejected = int((~accepted).sum())
    if rejected:
        samples[~accepted] = rng.choice(vocab, size=rejected, p=unchecked_residual(target, draft))
    return samples


class TokenSamples(Constraint):
    """A non-empty 1-D integer array of token ids in 0 … vocab − 1."""

    def __call__(self, value, name, arguments):
        values, vocab = np.asarray(value), arguments["vocab"]
        if values.ndim != 1 or values.size == 0 or not np.issubdtype(values.dtype, np.integer):
            raise ValueError(f"{name} must be a non-empty 1-D array of token ids, got {values!r:.60}")
        if values.min() < 0 or values.max() >= vocab:
            raise ValueError(f"{name} must be token ids in 0 … {vocab - 1}, got values from {values.min()} to {values.max()}")
        return values


@checked(vocab=Count(1), samples=TokenSamples())
def frequencies(samples, vocab) -> np.ndarray:
    """How often each token 0 … vocab−1 occurs in `samples`, as fractions summing to 1.

    >>> frequencies([0, 1, 1, 3], 4).tolist()
    [0.25, 0.5, 0.0, 0.25]
    """
    return np.bincount(samples, minlength=vocab) / samples.size


def max_deviation(samples, target) -> float:
    """The largest |frequency − p(x)| over the tokens x, for samples that should follow p.

    >>> max_deviation([0, 1, 1, 1], [0.5, 0.5])
    0.25
    """
    return float(max_deviation_by_size(samples, target, [len(samples)])[0])


@checked(target=Distribution(), n=Count(1), repeats=Count(1), rng=Generator())
def chance_max_deviations(target, n, rng, repeats=1000) -> np.ndarray:
    """`max_deviation` of n tokens drawn straight from p, repeated `repeats` times: what chance gives.

    Nothing is wrong with these samples, so their deviations show how far a correct sampler's
    frequencies wander from p at this n. Compare a sampler's deviation with, say, the median and the
    95th percentile of these.

    Examples
    --------
    >>> import numpy as np
    >>> deviations = chance_max_deviations([0.5, 0.5], 10_000, np.random.default_rng(0), repeats=200)
    >>> deviations.shape, bool(0 < np.median(deviations) < 0.01)
    ((200,), True)
    """
    counts = rng.multinomial(n, target, size=repeats)
    return np.abs(counts / n - target).max(axis=1)
