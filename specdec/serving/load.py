"""Speculation under load: tokens per second for the batch and time per token for one request, against b.

With the cost model of notebook 05 (`specdec.hardware`), at batch size b:

* plain decoding: one target pass per token; the batch makes b / t_target tokens per second and
  one request waits t_target per token;
* speculative decoding: γ draft passes and one verify pass per step, E[N] tokens per sequence per
  step: the batch makes b · E[N] / t_step tokens per second, one request waits t_step / E[N].

While the verify pass is memory-bound it costs what a plain pass costs and speculation pays. As b
grows the b · (γ + 1) positions of a verify pass turn it compute-bound, t_verify grows with them
and speculation stops paying. *In this model* every sequence of the batch moves in step, so at a
given b the two goals have the same ratio, and one crossover batch size. They part where memory
enters: the draft's weights and its KV caches take room from the batch, so the best throughput an
engine can reach, at the largest batch that fits, can be better without speculation even where
one request is still faster with it; at the lesson's settings the turn to compute-bound comes
first. A long context makes each pass read more KV cache, stays memory-bound longer and moves the
crossover to larger batches (MagicDec, Chen et al. 2024, https://arxiv.org/abs/2408.11049). Every
batch size from 1 to 1,024 is evaluated, so the crossovers and the largest batches that fit are
exact within the model.

What engines expose for it (their documentation as it stands):

* vLLM: ``num_speculative_tokens`` (γ) in ``--speculative-config``
  (https://docs.vllm.ai/en/latest/features/speculative_decoding/), and, for dynamic speculative
  decoding, ``num_speculative_tokens_per_batch_size``: a γ (at most ``num_speculative_tokens``) per
  range of batch sizes, where γ = 0 switches speculation off
  (https://docs.vllm.ai/en/latest/features/speculative_decoding/dynamic_speculative_decoding/). The
  older ``disable_by_batch_size`` worked only in the V0 engine and was removed
  (https://github.com/vllm-project/vllm/pull/35060);
* SGLang: ``--speculative-num-steps``, ``--speculative-eagle-topk``,
  ``--speculative-num-draft-tokens`` (https://docs.sglang.io/docs/advanced_features/speculative_decoding);
  ``--speculative-adaptive`` changes the number of steps at run time from the measured accept length,
  per range of batch sizes (https://docs.sglang.io/docs/advanced_features/adaptive_speculative_decoding);
  and ``--cuda-graph-max-bs``, the largest batch its captured graphs cover.

>>> from specdec.hardware import ACCELERATORS, MODELS, cluster
>>> four_h100s = cluster(ACCELERATORS["H100 SXM"], 4)  # as notebook 11 counts them
>>> curves = load_curves(four_h100s, MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"], 4, 0.8)
>>> bool(curves.latency_speedup[0] > 1 > curves.latency_speedup[-1])
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import expected_tokens
from ..hardware import BATCH_SIZES, DEFAULT_CONTEXT, pass_times_for_batches
from ..validation import MAX_GAMMA, Count, Probability, checked

#: The short and the long context the lesson compares (tokens of KV cache per sequence).
SHORT_CONTEXT = 1024
LONG_CONTEXT = 32768
#: Batch sizes of the load curves: every b from 1 to 1,024 (the lessons mark 1, 2, 4, … on them).
LOAD_BATCHES = tuple(range(1, BATCH_SIZES[-1] + 1))


@dataclass(frozen=True)
class LoadCurves:
    """Per batch size: the batch's tokens per second and one request's seconds per token, both ways."""

    batches: np.ndarray
    plain_tokens_per_second: np.ndarray
    speculative_tokens_per_second: np.ndarray
    plain_seconds_per_token: np.ndarray
    speculative_seconds_per_token: np.ndarray
    fits_plain: np.ndarray
    fits_speculative: np.ndarray
    context: int

    @property
    def throughput_speedup(self) -> np.ndarray:
        return self.speculative_tokens_per_second / self.plain_tokens_per_second

    @property
    def latency_speedup(self) -> np.ndarray:
        return self.plain_seconds_per_token / self.speculative_seconds_per_token

    @property
    def latency_crossover(self) -> int | None:
        """The smallest batch size at which one request is no faster with speculation (None: never in range)."""
        losing = np.flatnonzero(self.latency_speedup <= 1.0)
        return int(self.batches[losing[0]]) if losing.size else None

    @property
    def best_plain_throughput(self) -> float:
        """Plain decoding's best tokens per second over the batch sizes that fit in memory."""
        fits = self.fits_plain
        return float(self.plain_tokens_per_second[fits].max()) if fits.any() else float("nan")

    @property
    def best_speculative_throughput(self) -> float:
        fits = self.fits_speculative
        return float(self.speculative_tokens_per_second[fits].max()) if fits.any() else float("nan")

    @property
    def throughput_crossover(self) -> int | None:
        """The smallest fitting batch size at which the batch makes no more tokens/s with speculation."""
        losing = np.flatnonzero((self.throughput_speedup <= 1.0) & self.fits_speculative)
        return int(self.batches[losing[0]]) if losing.size else None


@checked(gamma=Count(1, MAX_GAMMA), alpha=Probability(), context=Count(0, 1 << 24))
def load_curves(accelerator, target, draft, gamma, alpha, context=DEFAULT_CONTEXT, batches=LOAD_BATCHES) -> LoadCurves:
    """Tokens per second and seconds per token against batch size, with and without speculation.

    Parameters
    ----------
    accelerator : specdec.hardware.Accelerator
    target, draft : specdec.hardware.Model
        As `specdec.hardware.pass_times` takes them (its checks apply).
    gamma : int >= 1
    alpha : float in [0, 1]
        The acceptance rate per position.
    context : int
        Tokens of KV cache per sequence.
    batches : sequence of int
        Batch sizes (checked by `pass_times_for_batches`).

    Examples
    --------
    >>> from specdec.hardware import ACCELERATORS, MODELS, cluster
    >>> c = load_curves(cluster(ACCELERATORS["H100 SXM"], 4), MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"], 4, 0.8,
    ...                 batches=[1])
    >>> bool(np.isclose(c.throughput_speedup[0], c.latency_speedup[0]))
    True
    """
    tokens = expected_tokens.__wrapped__(alpha, gamma)
    rows = pass_times_for_batches(accelerator, target, draft, gamma, batches, context=context)
    b = np.array([int(x) for x in batches])
    target_decode = np.array([r.target_decode for r in rows])
    step = np.array([r.step_time for r in rows])
    draft_bytes = np.array([2.0 * draft.parameters + int(x) * context * draft.kv_bytes_per_token for x in b])
    needed = np.array([r.memory.needed for r in rows])
    capacity = rows[0].memory.capacity
    return LoadCurves(b, b / target_decode, b * tokens / step, target_decode, step / tokens,
                      needed - draft_bytes <= capacity, needed <= capacity, context)
