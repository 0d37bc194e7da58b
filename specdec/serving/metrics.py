"""The acceptance numbers serving engines report, computed from the steps of a run, and what they mean.

vLLM counts, over the verify steps of a run (its ``SpecDecodingStats``, in
https://github.com/vllm-project/vllm/blob/main/vllm/v1/spec_decode/metrics.py; per request, at
https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/):

* ``num_drafts``: drafts, one per request and verify step that carried draft tokens (here one sequence:
  its steps that proposed a draft); ``num_draft_tokens``: draft tokens proposed;
  ``num_accepted_tokens``: draft tokens accepted; ``num_accepted_tokens_per_pos[j]``: steps whose
  draft token at position j + 1 was accepted;

and reports from them

* **mean acceptance length** = 1 + num_accepted_tokens / num_drafts: tokens per verify step,
  the bonus or resampled token included. With a fixed γ it is E[N] of notebook 04;
* **draft acceptance rate** = num_accepted_tokens / num_draft_tokens. It is *not* α: with
  α the same at every position it is (E[N] − 1) / γ = α(1 − αᵞ) / (γ(1 − α)), below α for γ > 1,
  because a rejection discards every later draft token, accepted or not;
* **per-position acceptance rate** j = num_accepted_tokens_per_pos[j] / num_drafts: the share of
  steps that got past position j + 1. It falls with depth even when α does not (αʲ⁺¹ under the
  model of notebook 04); the conditional rate, per-position j over per-position j − 1, is α.

SGLang logs ``accept len`` and ``accept rate`` and exports them as ``sglang:spec_accept_length`` and
``sglang:spec_accept_rate`` (its ``SchedulerMetricsReporter``, in
https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/scheduler_components/metrics_reporter.py).
It adds one token per sequence and verify step to the accepted draft tokens, so its accept length is
vLLM's mean acceptance length; its accept rate is accepted over proposed draft tokens, vLLM's draft
acceptance rate (from late 2025 until https://github.com/sgl-project/sglang/pull/23530, April 2026, it was E[N] over its
number of draft tokens per step, γ + 1 for a chain).

>>> metrics = engine_metrics(drafted=[3, 3, 3], accepted=[3, 0, 1])
>>> metrics.mean_acceptance_length, round(metrics.draft_acceptance_rate, 3)
(2.333333333333333, 0.444)
>>> metrics.per_position_acceptance.tolist()
[0.6666666666666666, 0.3333333333333333, 0.3333333333333333]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import expected_tokens
from ..validation import MAX_GAMMA, Constraint, Count, Integers, Probability, checked


@dataclass(frozen=True)
class EngineMetrics:
    """vLLM's counters over a run, and the rates vLLM (and SGLang) report from them."""

    num_drafts: int
    num_draft_tokens: int
    num_accepted_tokens: int
    accepted_per_position: np.ndarray
    """num_accepted_tokens_per_pos: steps whose draft token at position j + 1 was accepted."""

    @property
    def mean_acceptance_length(self) -> float:
        """1 + accepted / drafts: tokens per verify step, bonus included."""
        return 1.0 + self.num_accepted_tokens / self.num_drafts

    @property
    def draft_acceptance_rate(self) -> float:
        """accepted / proposed draft tokens."""
        return self.num_accepted_tokens / self.num_draft_tokens

    @property
    def per_position_acceptance(self) -> np.ndarray:
        """Share of the steps that accepted the draft token at position j + 1 (j = 0 …)."""
        return self.accepted_per_position / self.num_drafts

    @property
    def conditional_acceptance(self) -> np.ndarray:
        """P(position j + 1 accepted | position j reached and accepted): α at each depth, NaN if never reached."""
        reached = np.concatenate([[self.num_drafts], self.accepted_per_position[:-1]]).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(reached > 0, self.accepted_per_position / np.maximum(reached, 1), np.nan)


class StepCounts(Constraint):
    """Drafted and accepted counts of the same steps, 0 ≤ accepted ≤ drafted, at least one draft."""

    def __init__(self):
        self.parameters = ("drafted", "accepted")

    def __call__(self, value, name, arguments):  # pragma: no cover - used by position only
        return value

    def update(self, arguments):
        drafted = Integers("drafted", low=0, high=MAX_GAMMA)(arguments["drafted"], "drafted", arguments)
        accepted = Integers("accepted", low=0, high=MAX_GAMMA)(arguments["accepted"], "accepted", arguments)
        if drafted.shape != accepted.shape:
            raise ValueError(f"drafted and accepted must count the same steps, got {drafted.size} and {accepted.size}")
        if np.any(accepted > drafted):
            raise ValueError("accepted must be at most drafted at every step")
        if not np.any(drafted > 0):
            raise ValueError("drafted must hold at least one step with a draft")
        arguments["drafted"], arguments["accepted"] = drafted, accepted


@checked(StepCounts())
def engine_metrics(drafted, accepted) -> EngineMetrics:
    """vLLM's speculative-decoding counters and rates from the steps of a run.

    Parameters
    ----------
    drafted : sequence of int
        Draft tokens proposed at each step (0: a step without speculation, not counted as a draft).
    accepted : sequence of int
        Draft tokens accepted at each step (the bonus or resampled token is not counted).

    Returns
    -------
    EngineMetrics

    Examples
    --------
    >>> engine_metrics([4, 4], [4, 2]).per_position_acceptance.tolist()
    [1.0, 1.0, 0.5, 0.5]
    """
    drafted, accepted = np.asarray(drafted), np.asarray(accepted)
    used = drafted > 0
    depth = int(drafted.max())
    per_position = np.array([(accepted[used] > j).sum() for j in range(depth)], dtype=np.int64)
    return EngineMetrics(int(used.sum()), int(drafted.sum()), int(accepted.sum()), per_position)


@dataclass(frozen=True)
class ModelMetrics:
    """What the engine metrics converge to when every position accepts with the same α (notebook 04)."""

    mean_acceptance_length: float
    draft_acceptance_rate: float
    per_position_acceptance: np.ndarray


@checked(alpha=Probability(), gamma=Count(1, MAX_GAMMA))
def metrics_at_alpha(alpha, gamma) -> ModelMetrics:
    """The engine metrics of a long run at acceptance rate α per position and draft length γ.

    >>> m = metrics_at_alpha(0.8, 4)
    >>> round(m.mean_acceptance_length, 4), round(m.draft_acceptance_rate, 4)
    (3.3616, 0.5904)
    >>> m.per_position_acceptance.round(4).tolist()
    [0.8, 0.64, 0.512, 0.4096]
    """
    length = expected_tokens.__wrapped__(alpha, gamma)
    return ModelMetrics(length, (length - 1.0) / gamma, alpha ** np.arange(1, gamma + 1))


class AcceptanceLength(Constraint):
    """A mean acceptance length in [1, γ + 1]."""

    def __call__(self, value, name, arguments):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}")
        top = arguments["gamma"] + 1
        if not 1.0 <= float(value) <= top:
            raise ValueError(f"{name} must be in [1, γ + 1] = [1, {top}], got {value}")
        return float(value)


@checked(gamma=Count(1, MAX_GAMMA), length=AcceptanceLength())
def alpha_from_acceptance_length(length, gamma) -> float:
    """The α at which E[N] at draft length γ equals a reported mean acceptance length (bisection).

    >>> round(alpha_from_acceptance_length(3.3616, 4), 4)
    0.8
    """
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = 0.5 * (low + high)
        if expected_tokens.__wrapped__(middle, gamma) < length:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)
