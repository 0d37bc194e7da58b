"""Do these samples follow that law? Pearson's chi-square test, the TV distance, and a verdict.

The chi-square statistic Σₓ (Oₓ − Eₓ)² / Eₓ compares observed counts O with expected counts E = n·p.
If the samples really follow p, it is approximately chi-square distributed with (categories − 1)
degrees of freedom, and the p-value says how often chance alone would give a statistic at least this
large. A correct sampler gives p-values spread approximately evenly over [0, 1] (the chi-square law
is asymptotic and the counts are discrete); a biased one gives p-values that
shrink towards 0 as n grows.

Two cases need care, and are handled the same way every time:

* a sample in a category of probability 0 is not "unlikely", it is impossible: the test fails at
  once (statistic ∞, p-value 0), however few such samples there are;
* the chi-square approximation is poor for categories expected fewer than 5 times: those are pooled
  into one category (added to the smallest other one if the pool itself is still expected fewer
  than 5 times).

The p-value comes from `scipy.stats.chi2`, imported on first use so that ``import specdec`` stays
light.

>>> import numpy as np
>>> samples = np.random.default_rng(0).choice(3, size=10_000, p=[0.5, 0.3, 0.2])
>>> fit = goodness_of_fit(samples, [0.5, 0.3, 0.2])
>>> fit.passed, fit.degrees_of_freedom
(True, 2)
>>> goodness_of_fit([0, 1, 2], [0.5, 0.5, 0.0]).verdict
'fails: 1 sample fell on a token of probability 0 (token C), which is impossible under this law'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import validation
from .validation import Constraint, Distribution, Integers, Probability, StepRows, checked

#: Below this p-value the samples are said not to follow the law. Small, because the series runs
#: many checks and a correct sampler must not fail by bad luck.
DEFAULT_SIGNIFICANCE = 1e-3

#: Categories expected fewer times than this are pooled before the chi-square test.
MIN_EXPECTED_COUNT = 5.0

#: The largest total `fit_counts` accepts: 2⁵³, beyond which float64 no longer counts every integer
#: (and 2⁶³ would overflow int64). No sampler of this project comes near it.
MAX_TOTAL_COUNT = 2**53

#: The most sizes `max_deviation_by_size` takes: each costs one pass over the vocabulary, and a
#: curve drawn through more points than this shows nothing more.
MAX_SIZES = 10_000


class Significance(Constraint):
    """A significance level strictly between 0 and 1, as a float."""

    def __call__(self, value, name, arguments):
        value = Probability()(value, name)
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}")
        return value


#: Samples of the law `expected`: integer categories 0 … V − 1.
SAMPLES = Integers("categories", low=0, high=lambda arguments: arguments["expected"].size - 1,
                   within="categories (one per entry of expected)")


class CategoryCounts(Constraint):
    """One count >= 0 per entry of `expected`, totalling at most `MAX_TOTAL_COUNT`, as an int64 array."""

    def __call__(self, value, name, arguments):
        law = arguments["expected"]
        observed = Integers("counts (one per category)")(value, name)
        if observed.shape != law.shape:
            raise ValueError(f"{name} must have one entry per category ({law.size}), got shape {observed.shape}")
        validation.integers_in_range(
            observed, name, 0, MAX_TOTAL_COUNT, "counts of samples (at most 2**53 in all, the most float64 counts exactly)"
        )
        total = sum(observed.tolist())  # Python ints: exact, and cannot overflow
        if total > MAX_TOTAL_COUNT:
            raise ValueError(
                f"{name} must total at most 2**53 = {MAX_TOTAL_COUNT:,} samples (beyond that float64 cannot "
                f"count them exactly), got {total:,}"
            )
        return observed.astype(np.int64)


class SampleSizes(Constraint):
    """At most `MAX_SIZES` prefix lengths of `samples`, each in 1 … len(samples), as an integer array."""

    def __call__(self, value, name, arguments):
        samples = arguments["samples"]
        sizes = Integers("sample counts")(value, name)
        if sizes.size > MAX_SIZES:
            raise ValueError(f"{name} must hold at most {MAX_SIZES:,} sample counts (MAX_SIZES), got {sizes.size:,}")
        if samples.size == 0 and sizes.size:
            raise ValueError("samples must hold at least one sample when sizes are given, got none")
        validation.integers_in_range(sizes, name, 1, samples.size, "sample counts (prefixes of samples)")
        return sizes


class Categories(Constraint):
    """A 1-D array of integer categories >= 0 (any labels: they need not be consecutive)."""

    def __call__(self, value, name, arguments):
        values = np.asarray(value)
        if values.ndim != 1 or not (values.size == 0 or np.issubdtype(values.dtype, np.integer)):
            raise TypeError(f"{name} must be a 1-D array of integer categories, got {values.dtype} of shape {values.shape}")
        if values.size and values.min() < 0:
            raise ValueError(f"{name} must hold categories >= 0, got {int(values.min())}")
        return values


class SampledSteps(Constraint):
    """Sampled steps as a 2-D integer array (steps by positions); with `like`, as many columns as that one."""

    def __init__(self, like: str | None = None):
        self.like = like

    def __call__(self, value, name, arguments):
        values = np.asarray(value)
        if values.ndim != 2 or not np.issubdtype(values.dtype, np.integer):
            raise TypeError(f"{name} must be a 2-D integer array (steps by positions), got {values.dtype} of shape {values.shape}")
        if self.like is not None and arguments[self.like].shape[1] != values.shape[1]:
            raise ValueError(f"both samples need the same γ+1 columns, got {arguments[self.like].shape[1]} and {values.shape[1]}")
        return values


class StepSamples(Constraint):
    """`tokens` and `counts` as `sample_steps` returns them, for the rows `target_probs` (checked before).

    tokens must be an (n, γ+1) integer array and counts an (n,) integer array with entries in
    0 … γ+1; the first counts[j] tokens of step j must be token ids 0 … V − 1 (the −1 padding after
    them is not read). Declared by position, after `StepRows`.

    >>> StepSamples().update({"target_probs": np.ones((2, 4)) / 4, "tokens": [[0, 99]], "counts": [2]})
    Traceback (most recent call last):
    ValueError: tokens[0, 1] = 99 is out of range: step 0 emitted 2 tokens, so its positions 0 … 1 must hold token ids in 0 … 3 (V = 4)
    """

    def update(self, arguments):
        positions, vocab = arguments["target_probs"].shape
        token_array = Integers("token ids (padded with -1)", 2)(arguments["tokens"], "tokens")
        count_array = Integers("token counts (one per step)")(arguments["counts"], "counts")
        if token_array.shape[1] != positions:
            raise ValueError(
                f"tokens must have γ+1 = {positions} columns (one per position a step can reach), got shape "
                f"{token_array.shape}"
            )
        if count_array.shape[0] != token_array.shape[0]:
            raise ValueError(
                f"counts must hold one entry per step (row of tokens): tokens has {token_array.shape[0]:,} rows "
                f"and counts {count_array.shape[0]:,} entries"
            )
        validation.integers_in_range(count_array, "counts", 0, positions, "tokens per step")
        emitted = np.arange(positions) < count_array[:, None]
        outside = emitted & ((token_array < 0) | (token_array >= vocab))
        if outside.any():
            step, position = (int(i) for i in np.argwhere(outside)[0])
            emitted_here = int(count_array[step])
            raise ValueError(
                f"tokens[{step}, {position}] = {int(token_array[step, position])} is out of range: step {step} "
                f"emitted {emitted_here} tokens, so its positions 0 … {emitted_here - 1} must hold token ids in "
                f"0 … {vocab - 1} (V = {vocab})"
            )
        arguments["tokens"], arguments["counts"] = token_array, count_array


@dataclass(frozen=True)
class FitResult:
    """The outcome of a goodness-of-fit check."""

    n: int
    """Number of samples."""
    statistic: float
    """Pearson's chi-square statistic (∞ if a sample fell where the law has probability 0)."""
    degrees_of_freedom: int
    p_value: float
    """Probability of a statistic at least this large if the samples follow the law."""
    tv: float
    """½ Σ |observed frequency − expected probability| (NaN without samples)."""
    typical_tv: float
    """The TV a correct sampler typically shows at this n: Σₓ √(p(1−p) / (2πn))."""
    impossible: int
    """Samples that fell on categories of probability 0."""
    significance: float
    verdict: str
    """The outcome in plain words."""

    @property
    def passed(self) -> bool:
        """True when nothing rejects the law at the chosen significance."""
        return self.impossible == 0 and self.p_value >= self.significance


@checked(expected=Distribution(), samples=SAMPLES, significance=Significance())
def goodness_of_fit(samples, expected, significance=DEFAULT_SIGNIFICANCE, category="token") -> FitResult:
    """Test whether integer samples (tokens 0 … V−1) follow the law `expected`.

    Parameters
    ----------
    samples : array_like of int
        Each sample is a category 0 … V−1.
    expected : array_like of shape (V,)
        The law the samples should follow; sums to 1.
    significance : float in (0, 1)
        The p-value below which the verdict is "fails".
    category : str
        What a category is called in the verdict ("token", "count", …).

    Returns
    -------
    FitResult

    Examples
    --------
    >>> import numpy as np
    >>> samples = np.random.default_rng(1).choice(2, size=100_000, p=[0.6, 0.4])
    >>> goodness_of_fit(samples, [0.5, 0.5]).passed
    False
    """
    counts = np.bincount(samples.astype(np.intp, copy=False), minlength=expected.size)  # bincount is slow on int32
    return _fit(counts, expected, significance, category)


@checked(expected=Distribution(), counts=CategoryCounts(), significance=Significance())
def fit_counts(counts, expected, significance=DEFAULT_SIGNIFICANCE, category="token") -> FitResult:
    """`goodness_of_fit` from observed counts per category instead of the samples themselves.

    `counts` holds one non-negative integer per entry of `expected`, totalling at most
    `MAX_TOTAL_COUNT` (2⁵³).

    Examples
    --------
    >>> fit_counts([30, 20, 50], [0.3, 0.2, 0.5]).p_value
    1.0
    """
    return _fit(counts, expected, significance, category)


def _fit(counts: np.ndarray, law: np.ndarray, significance: float, category: str = "token") -> FitResult:
    n = int(counts.sum())
    if n == 0:
        return FitResult(0, 0.0, 0, 1.0, math.nan, math.nan, 0, significance,
                         "nothing to test: there are no samples")
    tv = float(0.5 * np.abs(counts / n - law).sum())
    typical_tv = float(np.sqrt(law * (1.0 - law) / (2.0 * math.pi * n)).sum())
    impossible_tokens = np.flatnonzero((law == 0) & (counts > 0))
    impossible = int(counts[impossible_tokens].sum())
    if impossible:
        statistic, dof, p_value = math.inf, _pooled_dof(counts, law), 0.0
        from .narrate import token_labels  # here, not at import: only a failing fit names its tokens

        labels = token_labels(law.size) if category == "token" else range(law.size)  # tokens as the series names them
        names = ", ".join(str(labels[t]) for t in impossible_tokens[:5])
        plural = "s" if len(impossible_tokens) > 1 else ""
        verdict = (
            f"fails: {impossible:,} sample{'s' if impossible > 1 else ''} fell on {'' if plural else 'a '}{category}"
            f"{plural} of probability 0 ({category}{plural} {names}), which is impossible under this law"
        )
    else:
        statistic, dof = _pooled_statistic(counts, law, n)
        p_value = _chi2_sf(statistic, dof)
        verdict = _verdict(n, statistic, dof, p_value, tv, typical_tv, significance)
    return FitResult(n, statistic, dof, p_value, tv, typical_tv, impossible, significance, verdict)


def _pooled_bins(law: np.ndarray, n: int) -> list[np.ndarray]:
    """Groups of categories to test: one per well-populated category, plus one pool of the rest."""
    expected = n * law
    positive = np.flatnonzero(law > 0)
    large = [np.array([c]) for c in positive if expected[c] >= MIN_EXPECTED_COUNT]
    pool = positive[expected[positive] < MIN_EXPECTED_COUNT]
    if pool.size:
        if expected[pool].sum() >= MIN_EXPECTED_COUNT or not large:
            large.append(pool)
        else:
            smallest = min(range(len(large)), key=lambda b: expected[large[b]].sum())
            large[smallest] = np.concatenate([large[smallest], pool])
    return large


def _pooled_dof(counts: np.ndarray, law: np.ndarray) -> int:
    return max(0, len(_pooled_bins(law, int(counts.sum()))) - 1)


def _pooled_statistic(counts: np.ndarray, law: np.ndarray, n: int) -> tuple[float, int]:
    bins = _pooled_bins(law, n)
    if n == 0 or len(bins) < 2:
        return 0.0, 0
    observed = np.array([counts[b].sum() for b in bins], dtype=np.float64)
    expected = np.array([n * law[b].sum() for b in bins])
    return float(((observed - expected) ** 2 / expected).sum()), len(bins) - 1


def _chi2_sf(statistic: float, dof: int) -> float:
    if dof == 0:
        return 1.0
    from scipy.stats import chi2

    return float(chi2.sf(statistic, dof))


def _verdict(n, statistic, dof, p_value, tv, typical_tv, significance) -> str:
    if dof == 0:
        return f"nothing to test: with {n:,} samples there are not two categories expected at least 5 times each"
    summary = (f"χ² = {statistic:.1f} on {dof} degree{'' if dof == 1 else 's'} of freedom, "
               f"p-value {format_p_value(p_value)}")
    if p_value >= significance:
        return (
            f"passes: {n:,} samples are consistent with the law ({summary}); TV {tv:.4f}, "
            f"where chance alone typically gives {typical_tv:.4f}"
        )
    return (
        f"fails: {n:,} samples do not follow the law ({summary}): chance alone would give a "
        f"deviation this large less than once in {_format_odds(p_value)} tries; TV {tv:.4f}, "
        f"where chance alone typically gives {typical_tv:.4f}"
    )


@checked(p_value=Probability())
def format_p_value(p_value: float) -> str:
    """A p-value for reading: three decimals, scientific notation below 0.001.

    `p_value` must be a real number in [0, 1]; NaN is refused.

    >>> format_p_value(0.4567), format_p_value(3.2e-9), format_p_value(0.0)
    ('0.457', '3.2e-09', 'below 1e-300')
    """
    if p_value == 0.0:
        return "below 1e-300"
    if p_value >= 0.001:
        return f"{p_value:.3f}"
    return f"{p_value:.1e}"


def _format_odds(p_value: float) -> str:
    if p_value <= 1e-300:
        return "10^300"
    exponent = math.floor(-math.log10(p_value))
    return f"{10 ** exponent:,}" if exponent <= 9 else f"10^{exponent}"


@dataclass(frozen=True)
class StepsCheck:
    """Goodness of fit of sampled verify steps: each output position, and the token counts."""

    positions: tuple[FitResult, ...]
    """Position i: the tokens of the steps that reached i, tested against pᵢ."""
    counts: FitResult
    """The number of tokens per step (categories 0 … γ+1), tested against the exact count law."""

    @property
    def passed(self) -> bool:
        return self.counts.passed and all(fit.passed for fit in self.positions)


@checked(StepRows("target_probs", "draft_probs"), StepSamples(), significance=Significance())
def check_steps(tokens, counts, target_probs, draft_probs, significance=DEFAULT_SIGNIFICANCE) -> StepsCheck:
    """Test sampled steps against the exact law: position i against pᵢ, counts against their law.

    Parameters
    ----------
    tokens, counts : numpy.ndarray
        As returned by `specdec.sample_steps`: integer arrays of shapes (n, γ+1), padded with −1,
        and (n,) with counts in 0 … γ+1; every emitted token must be in 0 … V − 1.
    target_probs, draft_probs : array_like
        The rows the steps were sampled on.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec.sampling import sample_steps
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> tokens, counts = sample_steps(target_probs, draft_probs, 50_000, np.random.default_rng(0))
    >>> check_steps(tokens, counts, target_probs, draft_probs).passed
    True
    """
    from .output_law import position_tokens, token_count_law

    positions = tuple(
        goodness_of_fit(position_tokens(tokens, counts, i), target_probs[i], significance)
        for i in range(target_probs.shape[0])
    )
    # Counts 0 … γ+1, where a count of 0 has probability 0: a rule that emits nothing fails at once.
    count_law = np.concatenate(([0.0], token_count_law(target_probs, draft_probs)))
    count_fit = goodness_of_fit(counts, count_law, significance, category="count")
    return StepsCheck(positions, count_fit)


@checked(expected=Distribution(), samples=SAMPLES, sizes=SampleSizes())
def max_deviation_by_size(samples, expected, sizes) -> np.ndarray:
    """maxₓ |frequency of x among the first m samples − expected(x)|, for each m in `sizes`.

    For a correct sampler this shrinks like 1/√m; for a biased one it levels off at the bias.
    `samples` are integer categories 0 … V − 1; `sizes` are at most `MAX_SIZES` integers in
    1 … len(samples).

    Examples
    --------
    >>> max_deviation_by_size([0, 0, 1, 1], [0.5, 0.5], [1, 2, 4])
    array([0.5, 0.5, 0. ])
    """
    order = np.argsort(sizes, kind="stable")
    deviations = np.empty(sizes.size)
    running = np.zeros(expected.size, dtype=np.int64)
    done = 0
    for index in order:
        size = int(sizes[index])
        running += np.bincount(samples[done:size].astype(np.intp, copy=False), minlength=expected.size)[: expected.size]
        done = max(done, size)
        deviations[index] = np.abs(running / size - expected).max()
    return deviations


@checked(first=Categories(), second=Categories(), significance=Significance())
def compare_samples(first, second, significance=DEFAULT_SIGNIFICANCE) -> FitResult:
    """Do two sets of integer samples come from the same law? A two-sample chi-square test.

    The law is unknown; each category's expected counts come from the pooled frequencies. Use it to
    compare two samplers that should agree, such as `sample_steps` and a loop over
    `speculative_step`. Categories expected fewer than 5 times in either sample are pooled.
    `tv` is the distance between the two empirical laws.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> compare_samples(rng.choice(3, 5_000, p=[0.2, 0.3, 0.5]), rng.choice(3, 8_000, p=[0.2, 0.3, 0.5])).passed
    True
    """
    # Relabel the categories that occur as 0, 1, 2, …, so that sparse labels cost no memory.
    _, labels = np.unique(np.concatenate([first, second]), return_inverse=True)
    first_values, second_values = labels[: first.size], labels[first.size :]
    size = int(max(first_values.max(initial=-1), second_values.max(initial=-1))) + 1
    first_counts = np.bincount(first_values, minlength=size)
    second_counts = np.bincount(second_values, minlength=size)
    n1, n2 = int(first_counts.sum()), int(second_counts.sum())
    if n1 == 0 or n2 == 0:
        raise ValueError("compare_samples needs at least one sample on each side")
    pooled = (first_counts + second_counts) / (n1 + n2)
    bins = _pooled_bins(pooled, min(n1, n2))
    tv = float(0.5 * np.abs(first_counts / n1 - second_counts / n2).sum())
    typical_tv = float(np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2) / (2 * math.pi)).sum())
    if len(bins) < 2:
        statistic, dof = 0.0, 0
    else:
        observed = np.array([[first_counts[b].sum(), second_counts[b].sum()] for b in bins], dtype=np.float64)
        law = observed.sum(axis=1) / (n1 + n2)
        expected = law[:, None] * np.array([n1, n2])
        statistic, dof = float(((observed - expected) ** 2 / expected).sum()), len(bins) - 1
    p_value = _chi2_sf(statistic, dof)
    verdict = _verdict(min(n1, n2), statistic, dof, p_value, tv, typical_tv, significance)
    verdict = verdict.replace(f"{min(n1, n2):,} samples are consistent with the law",
                              f"{n1:,} and {n2:,} samples: both follow the same law")
    verdict = verdict.replace(f"{min(n1, n2):,} samples do not follow the law",
                              f"{n1:,} and {n2:,} samples: the two laws differ")
    return FitResult(n1 + n2, statistic, dof, p_value, tv, typical_tv, 0, significance, verdict)


@checked(first_tokens=SampledSteps(), second_tokens=SampledSteps(like="first_tokens"), significance=Significance())
def compare_steps(first_tokens, second_tokens, significance=DEFAULT_SIGNIFICANCE) -> FitResult:
    """Do two samplers of verify steps agree in law? Each emitted sequence is one category.

    Parameters
    ----------
    first_tokens, second_tokens : array_like of int, shape (n₁, γ+1) and (n₂, γ+1)
        Emitted tokens padded with −1, as `specdec.sample_steps` returns them. Two steps fall in
        the same category exactly when they emitted the same tokens in the same order, so this
        compares the joint law of all positions and of the count at once.

    Examples
    --------
    Two samplers of the worked example's step, with different seeds, agree:

    >>> import numpy as np, specdec
    >>> rows = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25] * 4], [[0.25] * 4, [0.4, 0.2, 0.2, 0.2]]
    >>> first, second = (specdec.sample_steps(*rows, 20_000, np.random.default_rng(seed))[0] for seed in (1, 2))
    >>> compare_steps(first, second).passed
    True
    """
    _, categories = np.unique(np.concatenate([first_tokens, second_tokens]), axis=0, return_inverse=True)
    categories = categories.ravel()
    return compare_samples.__wrapped__(categories[: len(first_tokens)], categories[len(first_tokens) :], significance)
