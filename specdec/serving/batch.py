"""b sequences verified in one target pass: each accepts its own count, the pass is as long as the longest.

One verify pass over a batch scores γ + 1 positions of every sequence: b · (γ + 1) slots, all
written. Sequence i keeps 1 + kᵢ of them (its accepted draft tokens, then one resampled or bonus
token); the other γ − kᵢ are rejected slots, computed for nothing. Engines either pad every
sequence to γ + 1 positions with a mask, or flatten the batch into one list of positions with each
sequence's own causal mask (vLLM's ragged batches); with one γ for all, both score b · (γ + 1)
positions.

Each sequence's verify is the rule of notebook 02, independent of the others: `verify_batch`
decides all b at once from given uniforms, and equals `verify_sequence` run on each.

The batch emits Σ (1 + kᵢ) tokens per pass: b · E[N] on average, so **throughput follows the
mean**. A request is done when its own tokens are; a batch that waits for all of its sequences
(a static batch) is done at its **slowest** sequence, which needs more passes the larger b is.

>>> import numpy as np
>>> run = batch_run(alpha=0.8, gamma=4, batch=8, tokens=32, rng=np.random.default_rng(0))
>>> run.passes_per_sequence.min() <= run.mean_passes <= run.slowest_passes
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import expected_tokens
from ..validation import MAX_GAMMA, Constraint, Count, Generator, Probability, checked

#: The largest batch the simulations accept.
MAX_SIMULATED_BATCH = 4096
#: The most tokens per sequence the simulations accept.
MAX_SIMULATED_TOKENS = 10_000


def _inverse_cdf(row: np.ndarray, u: float) -> int:
    cumulative = np.cumsum(row)
    return int(min(np.searchsorted(cumulative, u * cumulative[-1], side="right"), row.size - 1))


class BatchRows(Constraint):
    """target (b, γ+1, V), draft (b, γ, V) rows, draft tokens (b, γ), uniforms (b, γ+1), checked together."""

    def __init__(self):
        self.parameters = ("target_rows", "draft_rows", "draft_tokens", "uniforms")

    def __call__(self, value, name, arguments):  # pragma: no cover - used by position only
        return value

    def update(self, arguments):
        target = np.asarray(arguments["target_rows"], dtype=np.float64)
        draft = np.asarray(arguments["draft_rows"], dtype=np.float64)
        tokens = np.asarray(arguments["draft_tokens"])
        uniforms = np.asarray(arguments["uniforms"], dtype=np.float64)
        if target.ndim != 3 or draft.ndim != 3:
            raise ValueError("target_rows must have shape (b, γ+1, V) and draft_rows (b, γ, V)")
        b, g1, v = target.shape
        if draft.shape != (b, g1 - 1, v):
            raise ValueError(f"draft_rows must have shape {(b, g1 - 1, v)}, got {draft.shape}")
        if tokens.shape != (b, g1 - 1) or not np.issubdtype(tokens.dtype, np.integer):
            raise ValueError(f"draft_tokens must be integers of shape {(b, g1 - 1)}, got {tokens.shape}")
        if uniforms.shape != (b, g1) or np.any((uniforms < 0) | (uniforms >= 1)):
            raise ValueError(f"uniforms must be numbers in [0, 1) of shape {(b, g1)}")
        for rows, label in ((target, "target_rows"), (draft, "draft_rows")):
            if np.any(rows < 0) or not np.allclose(rows.sum(axis=-1), 1.0, atol=1e-9):
                raise ValueError(f"every row of {label} must be a probability vector")
        if np.any((tokens < 0) | (tokens >= v)):
            raise ValueError(f"draft_tokens must lie in 0 … {v - 1}")
        if np.any(np.take_along_axis(draft, tokens[..., None], axis=-1) <= 0):
            raise ValueError("each draft token must have q(x) > 0 in its draft row")
        arguments.update(target_rows=target, draft_rows=draft, draft_tokens=tokens, uniforms=uniforms)


@dataclass(frozen=True)
class BatchStep:
    """What one verify pass over b sequences decided."""

    accepted: np.ndarray
    """kᵢ: draft tokens accepted by sequence i."""
    emitted: list[list[int]]
    """Each sequence's tokens: its accepted draft tokens, then one resampled or bonus token."""
    gamma: int

    @property
    def batch(self) -> int:
        return self.accepted.size

    @property
    def slots(self) -> int:
        """Positions the pass scored: b · (γ + 1)."""
        return self.batch * (self.gamma + 1)

    @property
    def tokens(self) -> int:
        """Tokens the batch emitted in this pass: Σ (1 + kᵢ)."""
        return int((self.accepted + 1).sum())

    @property
    def rejected_slots(self) -> int:
        """Slots scored and thrown away: Σ (γ − kᵢ)."""
        return self.slots - self.tokens

    def slot_roles(self) -> np.ndarray:
        """(b, γ+1) strings: 'accepted', 'resampled' or 'bonus', then 'rejected' for the cropped slots."""
        roles = np.full((self.batch, self.gamma + 1), "rejected", dtype=object)
        for i, k in enumerate(self.accepted):
            roles[i, :k] = "accepted"
            roles[i, k] = "bonus" if k == self.gamma else "resampled"
        return roles


def _verify_one(target, draft, tokens, uniforms) -> list[int]:
    gamma = tokens.size
    for i in range(gamma):
        x = int(tokens[i])
        if uniforms[i] * draft[i, x] >= target[i, x]:  # reject: u ≥ p/q
            residual = np.maximum(target[i] - draft[i], 0.0)
            if residual.sum() <= 0:
                residual = target[i]
            return [int(t) for t in tokens[:i]] + [_inverse_cdf(residual, uniforms[gamma])]
    return [int(t) for t in tokens] + [_inverse_cdf(target[gamma], uniforms[gamma])]


@checked(BatchRows())
def verify_sequence(target_rows, draft_rows, draft_tokens, uniforms) -> list[int]:
    """One sequence's verify step (batch of 1), deciding with the given uniforms: the reference.

    Position i accepts when uᵢ · q(xᵢ) < p(xᵢ); the last uniform picks the resampled or bonus token
    by inverse CDF.

    >>> verify_sequence([[[0.5, 0.5], [1.0, 0.0]]], [[[1.0, 0.0]]], [[0]], [[0.2, 0.7]])
    [0, 0]
    """
    return _verify_one(target_rows[0], draft_rows[0], draft_tokens[0], uniforms[0])


@checked(BatchRows())
def verify_batch(target_rows, draft_rows, draft_tokens, uniforms) -> BatchStep:
    """Verify b sequences in one pass: every position's test at once, then each sequence's first rejection.

    Parameters
    ----------
    target_rows : array_like (b, γ+1, V)
    draft_rows : array_like (b, γ, V)
    draft_tokens : array_like of int (b, γ)
    uniforms : array_like (b, γ+1) in [0, 1)
        Column i < γ decides position i; column γ draws the resampled or bonus token.

    Returns
    -------
    BatchStep

    Examples
    --------
    >>> step = verify_batch([[[0.5, 0.5], [1.0, 0.0]]] * 2, [[[1.0, 0.0]]] * 2, [[0], [0]], [[0.2, 0.7], [0.9, 0.7]])
    >>> step.accepted.tolist(), step.emitted, step.tokens, step.rejected_slots
    ([1, 0], [[0, 0], [1]], 3, 1)
    """
    b, g1, _ = target_rows.shape
    gamma = g1 - 1
    p_x = np.take_along_axis(target_rows[:, :gamma], draft_tokens[..., None], axis=-1)[..., 0]
    q_x = np.take_along_axis(draft_rows, draft_tokens[..., None], axis=-1)[..., 0]
    passes = uniforms[:, :gamma] * q_x < p_x
    accepted = np.where(passes.all(axis=1), gamma, np.argmin(passes, axis=1))
    last_rows = np.empty((b, target_rows.shape[2]))
    for i, k in enumerate(accepted):
        if k == gamma:
            last_rows[i] = target_rows[i, gamma]
        else:
            residual = np.maximum(target_rows[i, k] - draft_rows[i, k], 0.0)
            last_rows[i] = residual if residual.sum() > 0 else target_rows[i, k]
    emitted = [[int(t) for t in draft_tokens[i, :k]] + [_inverse_cdf(last_rows[i], uniforms[i, gamma])]
               for i, k in enumerate(accepted)]
    return BatchStep(accepted.astype(np.int64), emitted, gamma)


@dataclass(frozen=True)
class BatchRun:
    """b sequences generating `tokens` each, one verify pass at a time, every position accepting with α."""

    accepted: np.ndarray
    """(passes, b): kᵢ at each pass; −1 once sequence i has its tokens."""
    passes_per_sequence: np.ndarray
    gamma: int
    tokens: int

    @property
    def slowest_passes(self) -> int:
        return int(self.passes_per_sequence.max())

    @property
    def mean_passes(self) -> float:
        return float(self.passes_per_sequence.mean())

    @property
    def tokens_per_pass(self) -> float:
        """Tokens the whole batch emits per pass while every sequence is still running."""
        running = (self.accepted >= 0).all(axis=1)
        return float((self.accepted[running] + 1).sum(axis=1).mean()) if running.any() else float("nan")


@checked(alpha=Probability(), gamma=Count(0, MAX_GAMMA), batch=Count(1, MAX_SIMULATED_BATCH),
         tokens=Count(1, MAX_SIMULATED_TOKENS), rng=Generator())
def batch_run(alpha, gamma, batch, tokens, rng) -> BatchRun:
    """Simulate b sequences verified together until each has `tokens` tokens (α the same at every position).

    A sequence accepts k draft tokens with P(k) = αᵏ(1 − α) for k < γ and αᵞ for k = γ, and emits
    k + 1 tokens; one that has its tokens drops out and waits for the slowest.

    Examples
    --------
    >>> import numpy as np
    >>> run = batch_run(0.0, 4, 3, 5, np.random.default_rng(0))  # nothing accepted: one token per pass
    >>> run.passes_per_sequence.tolist(), run.tokens_per_pass
    ([5, 5, 5], 3.0)
    """
    done = np.zeros(batch, dtype=np.int64)
    passes = np.zeros(batch, dtype=np.int64)
    rows = []
    while (done < tokens).any():
        coins = rng.random((batch, gamma)) < alpha
        k = np.where(coins.all(axis=1), gamma, np.argmin(coins, axis=1)) if gamma else np.zeros(batch, np.int64)
        running = done < tokens
        done = np.where(running, done + k + 1, done)
        passes = passes + running
        rows.append(np.where(running, k, -1))
    return BatchRun(np.array(rows), passes, gamma, tokens)


@checked(alpha=Probability(), gamma=Count(0, MAX_GAMMA), batch=Count(1, MAX_SIMULATED_BATCH))
def expected_tokens_per_pass(alpha, gamma, batch) -> float:
    """b · E[N]: the batch's mean tokens per verify pass.

    >>> expected_tokens_per_pass(0.8, 4, 8)
    26.8928
    """
    return batch * expected_tokens.__wrapped__(alpha, gamma)
