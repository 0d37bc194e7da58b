"""Choosing γ as you go: Hugging Face's heuristic schedule, a fixed γ, and an oracle, on real text.

The best fixed γ (`specdec.theory.optimal_gamma`) assumes one acceptance rate α everywhere. On text,
α changes from one context to the next: inside a common word the draft is nearly always right, at
the start of a word it often is not. A schedule can follow those changes.

* ``"heuristic"`` — the schedule of Hugging Face transformers' assisted generation
  (``num_assistant_tokens_schedule="heuristic"``; ``AssistedCandidateGenerator.update_candidate_strategy``
  in https://github.com/huggingface/transformers/blob/main/src/transformers/generation/candidate_generator.py):
  after a step in which every draft token was accepted, γ grows by 2; after any other step it
  shrinks by 1, never below 1. It starts at ``num_assistant_tokens`` (5 in the versions that made
  this schedule the default; newer versions default to 20 with a constant schedule).
* ``"fixed"`` — the same γ every step: exactly `specdec.text.speculative_generate`.
* ``"oracle"`` — a schedule that knows, before drafting, how many draft tokens the target will
  accept, and drafts exactly that many: it never pays for a rejected draft token. It is run by
  drafting `max_gamma` tokens, verifying them, and charging only the accepted ones. For c > 1, where
  a longer accepted draft always pays, no schedule does better within a step, so it is a practical
  ceiling on what adapting γ can gain.

Every step is verified by `specdec.core.trace_step`, so the text has the target's law under every
schedule; only the cost changes. Costs are counted as in `specdec.text.generation`: one target
call per step, one draft call per drafted token; the speedup at cost ratio c is
characters / (target calls + draft calls / c).

Order of random draws per step: the γ draft draws (one ``rng.choice`` each, in order), then the
draws of `trace_step`. With the same seed, the fixed schedule reproduces `speculative_generate`
draw for draw.

What is simplified: Hugging Face's schedule counts matches of its own (greedy or sampled) check and
can also stop drafting early when the assistant's confidence falls below a threshold
(``assistant_confidence_threshold``), which is not modelled; here γ is also capped at `max_gamma`,
where Hugging Face caps it only by the length left to generate.

>>> heuristic_next_gamma(5, all_accepted=True), heuristic_next_gamma(5, False), heuristic_next_gamma(1, False)
(7, 4, 1)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..validation import DEFAULT_MAX_GAMMA, MAX_GAMMA, Constraint, CostRatio, Count, Generator, OneOf, checked
from ..text.generation import PAIR_GENERATION, Generation, draft_and_verify, speculative_generate
from ..theory import acceptance_rates, optimal_gamma

SCHEDULES = ("heuristic", "fixed", "oracle")

#: Hugging Face's starting ``num_assistant_tokens`` in the versions whose default schedule was "heuristic".
HEURISTIC_START = 5


class DraftLengths(Constraint):
    """A non-empty iterable of draft lengths >= 1, as a list of ints."""

    def __call__(self, value, name, arguments):
        lengths = [Count(1)(length, name, arguments) for length in value]
        if not lengths:
            raise ValueError(f"{name} must hold at least one draft length")
        return lengths


@checked(gamma=Count(1, MAX_GAMMA), max_gamma=Count(1, MAX_GAMMA))
def heuristic_next_gamma(gamma, all_accepted, max_gamma=DEFAULT_MAX_GAMMA) -> int:
    """The next γ of the heuristic schedule: γ + 2 after a fully accepted step, else max(1, γ − 1).

    >>> heuristic_next_gamma(19, True), heuristic_next_gamma(20, True)
    (20, 20)
    """
    if all_accepted:
        return min(max_gamma, gamma + 2)
    return max(1, gamma - 1)


@dataclass(frozen=True)
class ScheduledGeneration:
    """A generation under one γ schedule: the text, the γ of every step, and what it cost."""

    schedule: str
    text: str
    """The continuation, without the prompt."""
    origins: tuple[str, ...]
    """"accepted", "resampled" or "bonus" for each character of `text`."""
    tokens_per_step: tuple[int, ...]
    gammas: tuple[int, ...]
    """γ drafted at each step (for the oracle: the number of draft tokens it pays for)."""
    accepted: tuple[int, ...]
    """How many draft tokens each step accepted."""
    target_calls: int
    draft_calls: int
    visited_acceptance_rates: tuple[float, ...]
    """α = Σ min(p, q) at each visited draft position, in order."""

    @property
    def tokens_per_target_call(self) -> float:
        return len(self.text) / self.target_calls if self.target_calls else math.nan

    @property
    def mean_gamma(self) -> float:
        return float(np.mean(self.gammas)) if self.gammas else math.nan

    @property
    def mean_acceptance_rate(self) -> float:
        rates = self.visited_acceptance_rates
        return float(np.mean(rates)) if rates else math.nan

    @checked(c=CostRatio())
    def speedup(self, c) -> float:
        """characters / (target calls + draft calls / c): the speedup the call counts imply.

        >>> run = ScheduledGeneration("fixed", "abcd", ("accepted",) * 3 + ("bonus",), (4,), (3,), (3,), 1, 3, ())
        >>> round(run.speedup(20), 4)
        3.4783
        """
        cost = self.target_calls + self.draft_calls / c
        return len(self.text) / cost if cost else math.nan


@checked(schedule=OneOf(*SCHEDULES), gamma=Count(1, MAX_GAMMA), max_gamma=Count(1, MAX_GAMMA), **PAIR_GENERATION,
         rng=Generator())
def generate_with_schedule(target, draft, prompt, n_tokens, schedule, rng, *, gamma=HEURISTIC_START,
                           max_gamma=DEFAULT_MAX_GAMMA) -> ScheduledGeneration:
    """Generate `n_tokens` characters speculatively, choosing γ at each step by `schedule`.

    Parameters
    ----------
    target, draft : NGramModel
        Or any objects with ``vocab`` and ``next_distribution(context)``, sharing one vocabulary.
    prompt : str
    n_tokens : int >= 0
    schedule : {"heuristic", "fixed", "oracle"}
    rng : numpy.random.Generator
    gamma : int >= 1
        The starting γ (heuristic) or the γ of every step (fixed); unused by the oracle.
    max_gamma : int >= 1
        The largest γ the heuristic may reach, and how far the oracle looks ahead.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec.text import NGramModel
    >>> text = "the cat sat on the mat and the rat sat on the cat"
    >>> draft, target = NGramModel(order=2).fit(text), NGramModel(order=4).fit(text)
    >>> run = generate_with_schedule(target, draft, "the ", 40, "heuristic", np.random.default_rng(0))
    >>> len(run.text), run.gammas[:4]
    (40, (5, 4, 3, 2))
    """
    if schedule == "fixed":
        generation = speculative_generate.__wrapped__(target, draft, prompt, n_tokens, gamma, rng)
        steps = generation.tokens_per_step
        return ScheduledGeneration(
            "fixed", generation.text, generation.origins, steps, (gamma,) * len(steps),
            _accepted_per_step(generation), generation.target_calls, generation.draft_calls,
            generation.visited_acceptance_rates,
        )
    vocab = target.vocab
    text = ""
    origins: list[str] = []
    steps: list[int] = []
    rates: list[float] = []
    gammas: list[int] = []
    accepted_counts: list[int] = []
    draft_calls = 0
    current = gamma
    while len(text) < n_tokens:
        length = max_gamma if schedule == "oracle" else current
        target_rows, draft_rows, step = draft_and_verify(target, draft, prompt + text, length, rng)

        n_accepted = sum(position.accepted for position in step.positions)
        paid = n_accepted if schedule == "oracle" else length
        draft_calls += paid
        gammas.append(paid)
        accepted_counts.append(n_accepted)
        visited = len(step.positions)
        rates.extend(acceptance_rates.__wrapped__(target_rows, draft_rows)[:visited].tolist())
        kept = step.tokens[: n_tokens - len(text)]  # the last step may overshoot; its calls still count
        text += "".join(vocab[token] for token in kept)
        origins.extend(step.origins[: len(kept)])
        steps.append(len(kept))
        if schedule == "heuristic":
            current = heuristic_next_gamma.__wrapped__(current, step.all_accepted, max_gamma)
    return ScheduledGeneration(schedule, text, tuple(origins), tuple(steps), tuple(gammas), tuple(accepted_counts),
                               len(steps), draft_calls, tuple(rates))


def _accepted_per_step(generation: Generation) -> tuple[int, ...]:
    """Accepted draft tokens per step of a fixed-γ generation, read from its visited positions."""
    counts: list[int] = []
    flags = iter(generation.visited_accepted)
    gamma = generation.gamma
    for _ in generation.tokens_per_step:
        accepted = 0
        for _ in range(gamma):
            flag = next(flags, None)
            if flag is None:
                break
            if not flag:
                break
            accepted += 1
        counts.append(accepted)
    return tuple(counts)


@dataclass(frozen=True)
class ScheduleComparison:
    """Fixed γ (each of `fixed_gammas`), the heuristic schedule and the oracle, on the same prompt."""

    c: float
    fixed: dict
    """γ → ScheduledGeneration."""
    heuristic: ScheduledGeneration
    oracle: ScheduledGeneration
    mean_alpha: float
    """α averaged over the visited draft positions of all the fixed-γ runs."""
    theory_gamma: int
    """`optimal_gamma(mean_alpha, c)`: the best fixed γ if α were the same everywhere."""
    theory_speedup: float

    @property
    def best_fixed_gamma(self) -> int:
        """The fixed γ whose measured speedup at c was largest (the smallest γ on a tie)."""
        return max(sorted(self.fixed), key=lambda g: self.fixed[g].speedup(self.c))

    def table(self) -> list[tuple[str, float, float, float]]:
        """(schedule, mean γ, characters per target call, speedup at c) for each run."""
        rows = [(f"fixed γ = {g}", run.mean_gamma, run.tokens_per_target_call, run.speedup(self.c))
                for g, run in sorted(self.fixed.items())]
        for name, run in (("heuristic (+2 / −1)", self.heuristic), ("oracle", self.oracle)):
            rows.append((name, run.mean_gamma, run.tokens_per_target_call, run.speedup(self.c)))
        return rows


@checked(c=CostRatio(), seed=Count(), fixed_gammas=DraftLengths())
def compare_schedules(target, draft, prompt, n_tokens, c, seed, fixed_gammas=range(1, 9),
                      max_gamma=DEFAULT_MAX_GAMMA) -> ScheduleComparison:
    """Run fixed γ for each of `fixed_gammas`, the heuristic and the oracle, each from the same seed.

    Each run gets ``np.random.default_rng(seed)``, so the comparison is reproducible; the runs still
    draw different texts, since a different γ consumes the random stream differently.

    Examples
    --------
    >>> from specdec.text import NGramModel
    >>> text = "the cat sat on the mat and the rat sat on the cat"
    >>> draft, target = NGramModel(order=2).fit(text), NGramModel(order=4).fit(text)
    >>> comparison = compare_schedules(target, draft, "the ", 60, c=20, seed=0, fixed_gammas=[1, 2])
    >>> [row[0] for row in comparison.table()]
    ['fixed γ = 1', 'fixed γ = 2', 'heuristic (+2 / −1)', 'oracle']
    """
    fixed = {g: generate_with_schedule(target, draft, prompt, n_tokens, "fixed", np.random.default_rng(seed), gamma=g)
             for g in fixed_gammas}
    heuristic = generate_with_schedule(target, draft, prompt, n_tokens, "heuristic", np.random.default_rng(seed),
                                       max_gamma=max_gamma)
    oracle = generate_with_schedule(target, draft, prompt, n_tokens, "oracle", np.random.default_rng(seed),
                                    max_gamma=max_gamma)
    visited = [rate for run in fixed.values() for rate in run.visited_acceptance_rates]
    mean_alpha = float(np.mean(visited)) if visited else math.nan
    theory_gamma, theory_speedup = optimal_gamma(min(1.0, mean_alpha), c) if visited else (1, math.nan)
    return ScheduleComparison(c, fixed, heuristic, oracle, mean_alpha, theory_gamma, theory_speedup)


@checked(window=Count(1))
def rolling_mean(values, window) -> np.ndarray:
    """Mean of each run of `window` consecutive values (length len(values) − window + 1).

    >>> rolling_mean([1, 0, 1, 1], 2)
    array([0.5, 0.5, 1. ])
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size < window:
        raise ValueError(f"values must be 1-D with at least window = {window} entries, got shape {values.shape}")
    sums = np.cumsum(np.concatenate(([0.0], values)))
    return (sums[window:] - sums[:-window]) / window


@checked(corpus_size=Count(1_000))
@functools.lru_cache(maxsize=4)  # several seconds each; the explorer and its tests ask for the same one
def stdlib_comparison(corpus_size=300_000, draft_order=3, target_order=5, prompt="The ", n_tokens=2_000, c=20,
                      seed=0) -> ScheduleComparison:
    """`compare_schedules` on the n-gram pair of notebook 07, fitted on a slice of the standard library's docstrings.

    The defaults are notebook 09's: a 3-gram draft and a 5-gram target fitted on the first 300,000
    characters of `specdec.text.stdlib_corpus`, 2,000 characters after "The ", seed 0. The docstrings
    differ a little between Python versions, and so do the numbers. A repeated call returns the
    comparison already computed, the same object: read it, do not change it.

    Examples
    --------
    >>> comparison = stdlib_comparison(corpus_size=20_000, n_tokens=50, seed=1)
    >>> sorted(comparison.fixed) == list(range(1, 9))
    True
    """
    from ..text import fitted_model, stdlib_corpus

    corpus = stdlib_corpus()[:corpus_size]
    draft = fitted_model(draft_order, corpus)
    target = fitted_model(target_order, corpus)
    return compare_schedules(target, draft, prompt, n_tokens, c, seed)
