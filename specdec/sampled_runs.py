"""Sampled verify steps that grow as more are asked for: the tallies, fits and deviation curve of every prefix.

The Monte Carlo explorer of notebook 03 looks at the first n of up to a million steps of one rule
(the correct one, or a broken one of `specdec.broken_rules`) and compares them with the exact law
(`specdec.output_law`). A `SampledRun` samples in blocks of `SampledRun.BLOCK` steps only as far as n
reaches, and keeps the tallies of every prefix it has looked at; `deviation_guide` is the size of the
deviation that chance alone gives, one standard deviation, which a correct rule follows down as 1/√n.

What is simplified: each (rule, seed) pair is one run; growing n adds samples to the same run, as a
longer experiment would, and looking at a smaller n costs no sampling.
"""

from __future__ import annotations

import numpy as np

from .broken_rules import BROKEN_RULES
from .goodness_of_fit import fit_counts
from .sampling import sample_steps

#: The most steps a run samples.
MAX_STEPS = 1_000_000


def deviation_guide(target_row, reach_probability: float, sizes) -> np.ndarray:
    """One standard deviation of a token's frequency at one position after n steps, for each n in `sizes`.

    Position i is reached in a fraction `reach_probability` of the steps, so n steps give about
    n·reach tokens there; a frequency of p(x) from m tokens has standard deviation √(p(x)(1 − p(x))/m).
    The guide takes the largest over the tokens.

    >>> deviation_guide([0.5, 0.5], 1.0, [100, 10_000]).tolist()
    [0.05, 0.005]
    """
    target_row = np.asarray(target_row, dtype=float)
    return np.sqrt((target_row * (1 - target_row)).max() / (reach_probability * np.asarray(sizes, dtype=float)))


class SampledRuns:
    """The runs sampled so far over the rows (target, draft), one per (rule, seed); the few most recent are kept.

    Examples
    --------
    >>> from specdec.narrate import spec_example
    >>> target, draft, _ = spec_example()
    >>> runs = SampledRuns(target, draft)
    >>> run = runs.get("correct", seed=0)
    >>> run is runs.get("correct", seed=0), all(fit.passed for fit in run.position_fits(10_000))
    (True, True)
    """

    KEPT = 4

    def __init__(self, target: np.ndarray, draft: np.ndarray):
        self.target, self.draft = target, draft
        self._runs: dict = {}

    def get(self, rule: str, seed: int) -> "SampledRun":
        key = (rule, seed)
        run = self._runs.pop(key, None) or SampledRun(self.target, self.draft, rule, seed)
        self._runs[key] = run  # most recent last
        while len(self._runs) > self.KEPT:
            self._runs.pop(next(iter(self._runs)))
        return run


class SampledRun:
    """Up to `MAX_STEPS` steps of one rule, sampled in blocks as the slider asks for more.

    Block k is sampled with ``default_rng([seed, k])``, so the first n steps are the same whatever
    order the slider visited its values in. The token and count tallies of every prefix looked at
    are kept; a new prefix is tallied from the longest kept one below it.
    """

    BLOCK = 100_000
    #: The prefix sizes of the deviation curve: 10² … 10⁶, eight per decade (the slider's values among them).
    SIZES = np.unique(np.round(np.logspace(2, 6, 33)).astype(np.int64))

    def __init__(self, target: np.ndarray, draft: np.ndarray, rule: str, seed: int):
        self.target, self.draft, self.rule, self.seed = target, draft, rule, seed
        positions, vocab = target.shape
        self.tokens = np.empty((MAX_STEPS, positions), dtype=np.int32)  # filled block by block
        self.counts = np.empty(MAX_STEPS, dtype=np.int32)
        self.sampled = 0
        # Token x at position i is tallied at i·(V+1) + x + 1; index i·(V+1) counts the −1 padding.
        self._codes = (np.arange(positions, dtype=np.int32) * (vocab + 1) + 1)[None, :]
        self._tallies: dict = {0: (np.zeros((positions, vocab + 1), np.int64), np.zeros(positions + 1, np.int64))}

    def _sample_until(self, steps: int) -> None:
        sampler = sample_steps if self.rule == "correct" else BROKEN_RULES[self.rule].sample_steps
        while self.sampled < steps:
            rng = np.random.default_rng([self.seed, self.sampled // self.BLOCK])
            tokens, counts = sampler(self.target, self.draft, self.BLOCK, rng)
            self.tokens[self.sampled : self.sampled + self.BLOCK] = tokens
            self.counts[self.sampled : self.sampled + self.BLOCK] = counts
            self.sampled += self.BLOCK

    def tallies(self, steps: int):
        """(token tallies (γ+1, V+1) with the padding in column 0, count tallies (γ+2,)) of the first `steps` steps."""
        if steps not in self._tallies:
            # Every prefix size of the deviation curve below `steps` is tallied on the way, in
            # increasing order, so that each sampled step is counted once however the view asks.
            for size in (*self.SIZES[self.SIZES < steps].tolist(), steps):
                if size not in self._tallies:
                    self._extend_tallies(size)
        return self._tallies[steps]

    def _extend_tallies(self, steps: int) -> None:
        self._sample_until(steps)
        start = max(size for size in self._tallies if size < steps)
        tokens, counts = self._tallies[start]
        positions, width = tokens.shape
        codes = np.add(self.tokens[start:steps], self._codes, dtype=np.intp).ravel()  # bincount is slow on int32
        extra_tokens = np.bincount(codes, minlength=positions * width).reshape(positions, width)
        extra_counts = np.bincount(self.counts[start:steps].astype(np.intp), minlength=positions + 1)[: positions + 1]
        self._tallies[steps] = (tokens + extra_tokens, counts + extra_counts)

    def position_fits(self, steps: int):
        """A `specdec.goodness_of_fit.FitResult` per output position: its tokens in the first `steps` steps against pᵢ."""
        tokens, _ = self.tallies(steps)
        return [fit_counts(tokens[i, 1:], self.target[i]) for i in range(len(tokens))]

    def frequencies(self, steps: int, position: int) -> np.ndarray:
        """How often each token came out at `position` in the first `steps` steps (NaN if never reached)."""
        observed = self.tallies(steps)[0][position, 1:]
        total = observed.sum()
        return observed / total if total else np.full(observed.size, np.nan)

    def count_fit(self, steps: int, count_law: np.ndarray):
        """The fit of the tokens-per-step counts against `count_law` (P(N = 0 … γ+1)), and their frequencies."""
        observed = self.tallies(steps)[1]
        return fit_counts(observed, count_law, category="count"), observed / steps

    def deviation_curve(self, position: int, steps: int):
        """The largest |frequency − pᵢ| at each size of `SIZES` up to `steps`, and at `steps`."""
        sizes = np.append(self.SIZES[self.SIZES < steps], steps)
        deviations = np.array([np.abs(self.frequencies(int(size), position) - self.target[position]).max()
                               for size in sizes])
        return sizes.astype(float), deviations
