"""The same speculative generation with several seeds: how much one short run's numbers vary.

One run of a hundred-odd characters yields only a few dozen verify steps, so its characters per target
call swing widely from seed to seed: at γ = 4 with a 3-gram draft and a 5-gram target, seeds 0 … 7
give anything from 1.7 to 2.7. A claim such as "more characters per call as γ grows" should rest on
the mean of several runs, with their spread beside it; `runs_over_seeds` gives both.

What is simplified: the seeds are 0 … count − 1, the same for every setting, so two settings are
compared on the same seeds; the spread is the plain minimum and maximum, not a confidence interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..validation import Count, checked
from .generation import speculative_generate


@dataclass(frozen=True)
class SeedSpread:
    """Characters per target call and measured α over several runs (one per seed)."""

    characters_per_call: np.ndarray
    """(seeds,) characters kept per target call in each run."""
    measured_alpha: np.ndarray
    """(seeds,) the fraction of tested draft characters that passed, in each run."""
    runs: tuple = field(repr=False)
    """The runs themselves (`specdec.text.Generation`), seed 0 first."""

    def speedups(self, c) -> np.ndarray:
        """(seeds,) the speedup each run's call counts imply at cost ratio c (`Generation.speedup_from_calls`)."""
        return np.array([run.speedup_from_calls(c) for run in self.runs])

    @property
    def mean(self) -> float:
        """Mean characters per target call over the runs."""
        return float(self.characters_per_call.mean())

    @property
    def low(self) -> float:
        return float(self.characters_per_call.min())

    @property
    def high(self) -> float:
        return float(self.characters_per_call.max())


@checked(seeds=Count(2))
def runs_over_seeds(target, draft, prompt, length, gamma, seeds: int = 6) -> SeedSpread:
    """Run `speculative_generate` with seeds 0 … `seeds` − 1 and collect what each run measured.

    Parameters
    ----------
    target, draft, prompt, length, gamma
        As for `specdec.text.speculative_generate` (`length` is its ``n_tokens``).
    seeds : int >= 2
        How many runs.

    Returns
    -------
    SeedSpread

    Examples
    --------
    >>> from specdec.text import NGramModel
    >>> text = "the cat sat on the mat and the rat sat on the cat " * 4
    >>> spread = runs_over_seeds(NGramModel(4).fit(text), NGramModel(2).fit(text), "the ", 30, 3, seeds=3)
    >>> spread.characters_per_call.shape, spread.low <= spread.mean <= spread.high
    ((3,), True)
    >>> spread.speedups(20).shape
    (3,)
    """
    runs = [speculative_generate(target, draft, prompt, length, gamma, np.random.default_rng(seed))
            for seed in range(seeds)]
    return SeedSpread(
        characters_per_call=np.array([run.tokens_per_target_call for run in runs]),
        measured_alpha=np.array([run.measured_alpha for run in runs]),
        runs=tuple(runs),
    )
