"""Many verify steps at once: the rule of `speculative_step`, vectorised over n independent steps.

`speculative_step` follows one step draw by draw, which is what a learner should read. To check
that the output law is exactly p takes a million steps: a Python loop needs close to a minute for
that on the project's 2-core machine, `sample_steps` a tenth of a second. It makes the same kind of draws — a draft
token from each qᵢ, a uniform per position, and one resampled or bonus token — but all steps of a
chunk in a few array operations, so its random stream differs from the loop's while its law is the
same.

How it is fast:

* all uniforms of a chunk come from one ``rng.random`` call into a preallocated array;
* each categorical draw uses the alias method (Walker, Vose): ``u·V`` picks a column, its fraction
  decides between the column's token and its alias — one uniform and two table look-ups, however
  large V is;
* every position is computed, even those after the first rejection, because masking costs more
  than the arithmetic it would save; those tokens are then overwritten with −1.

What is simplified: the rows p₀ … p_γ and q₀ … q_{γ-1} are the same for every step. In real
decoding they depend on the text so far; here they are fixed, which is exactly the setting in which
the law of each output position can be stated and checked.

>>> import numpy as np
>>> from specdec.narrate import spec_example
>>> target_probs, draft_probs, _ = spec_example()
>>> tokens, counts = sample_steps(target_probs, draft_probs, 5, np.random.default_rng(0))
>>> tokens.shape, counts.shape
((5, 3), (5,))
>>> bool(np.all((tokens >= 0).sum(axis=1) == counts))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import unchecked_residual
from .validation import Count, Generator, StepRows, checked

#: How many uniforms one chunk draws at most: 512 KB of them, so that a chunk's arrays stay in the
#: processor's cache (measured faster than larger chunks), and the working memory beyond the two
#: returned arrays is a few MB whatever n is.
CHUNK_UNIFORMS = 1 << 16

#: The most tokens `sample_steps` returns, n·(γ+1): a 1 GB int32 array. A larger n is refused before
#: anything is allocated; sample in several calls to go further.
MAX_SAMPLED_TOKENS = 250_000_000


#: The arguments of `sample_steps` and of every sampler of a rule: rows, a number of steps, a generator.
SAMPLING_ARGUMENTS = checked(StepRows("target_probs", "draft_probs"),
                             n=Count(0, lambda arguments: MAX_SAMPLED_TOKENS // arguments["target_probs"].shape[0]),
                             rng=Generator())


@SAMPLING_ARGUMENTS
def sample_steps(target_probs, draft_probs, n, rng) -> tuple[np.ndarray, np.ndarray]:
    """Run n independent verify steps on the same rows; draw the draft tokens from q as well.

    Parameters
    ----------
    target_probs : array_like of shape (γ+1, V)
        Target rows p₀ … p_γ, the same for every step.
    draft_probs : array_like of shape (γ, V)
        Draft rows q₀ … q_{γ-1}; step by step, draft token xᵢ is drawn from qᵢ.
    n : int >= 0
        Number of steps.
    rng : numpy.random.Generator

    Returns
    -------
    tokens : numpy.ndarray of int32, shape (n, γ+1)
        Row s holds the tokens step s emitted, followed by −1 padding.
    counts : numpy.ndarray of int32, shape (n,)
        How many tokens each step emitted, 1 … γ+1.

    Notes
    -----
    At each position i, the tokens of the steps that reached position i are distributed exactly as
    pᵢ, and the counts follow ``token_count_distribution_for_rates(acceptance_rates(...))``.
    The steps are sampled in chunks of at most `CHUNK_UNIFORMS` uniforms, so the memory used beyond
    the two returned arrays does not grow with n.

    Examples
    --------
    >>> import numpy as np
    >>> target_probs = [[0.5, 0.3, 0.2, 0.0], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]]
    >>> draft_probs = [[0.25, 0.25, 0.25, 0.25], [0.4, 0.2, 0.2, 0.2]]
    >>> tokens, counts = sample_steps(target_probs, draft_probs, 100_000, np.random.default_rng(1))
    >>> np.bincount(tokens[:, 0], minlength=4) / 100_000  # p₀ = (0.5, 0.3, 0.2, 0)
    array([0.50003, 0.30061, 0.19936, 0.     ])
    """
    return sample_with_tables(correct_rule_tables(target_probs, draft_probs), n, rng)


@dataclass(frozen=True)
class VerifyTables:
    """A verify rule described by what it draws from, for rules whose positions are independent.

    The correct rule has draft_rows = q, acceptance = min(1, p/q), resample_rows = the residuals and
    bonus_row = p_γ; each broken rule of `specdec.broken_rules` changes one or two of these.
    """

    draft_rows: np.ndarray
    """(γ, V): the law of the draft token at each position."""
    acceptance: np.ndarray
    """(γ, V): the probability of accepting token x at position i."""
    resample_rows: np.ndarray
    """(γ, V): the law of the replacement after a rejection at position i."""
    bonus_row: np.ndarray | None
    """(V,): the law of the bonus token; None if the rule emits no bonus token."""
    shared_uniform: bool = False
    """If True, one uniform per step is compared at every position."""


def correct_rule_tables(target: np.ndarray, draft: np.ndarray) -> VerifyTables:
    """The correct rule as `VerifyTables`, for checked float rows of shapes (γ+1, V) and (γ, V).

    >>> tables = correct_rule_tables(np.array([[0.5, 0.5], [0.0, 1.0]]), np.array([[0.75, 0.25]]))
    >>> tables.acceptance, tables.resample_rows
    (array([[0.66666667, 1.        ]]), array([[0., 1.]]))
    """
    return VerifyTables(
        draft_rows=draft,
        acceptance=acceptance_table(target[:-1], draft),
        resample_rows=residual_rows(target[:-1], draft),
        bonus_row=target[-1],
    )


def sample_with_tables(tables: VerifyTables, n: int, rng: np.random.Generator):
    """`sample_steps` for a rule given as `VerifyTables`; arguments are assumed checked.

    Returns (tokens, counts) as `sample_steps` does; a step without a bonus token can emit γ
    tokens after accepting all γ (and none at all if γ = 0).
    """
    gamma, vocab = tables.draft_rows.shape
    emits_bonus = tables.bonus_row is not None
    final_rows = np.vstack([tables.resample_rows, tables.bonus_row if emits_bonus else np.ones(vocab)])
    draft_alias = _AliasTables(tables.draft_rows, tables.acceptance)
    final_alias = _AliasTables(final_rows)

    tokens = np.empty((n, gamma + 1), dtype=np.int32)
    counts = np.empty(n, dtype=np.int32)
    uniforms_per_step = 2 * gamma + 1
    chunk = max(1, min(n, CHUNK_UNIFORMS // uniforms_per_step))
    # One row of uniforms per draw, one column per step: every array below is contiguous.
    buffer = np.empty(uniforms_per_step * chunk)
    draft_rows = np.arange(gamma, dtype=np.intp)[:, None]
    for start in range(0, n, chunk):
        size = min(n, start + chunk) - start
        block = buffer[: uniforms_per_step * size].reshape(uniforms_per_step, size)
        rng.random(out=block)
        drafted, acceptance = draft_alias.draw(block[:gamma], draft_rows)
        accept_uniforms = block[gamma : gamma + 1] if tables.shared_uniform else block[gamma : 2 * gamma]
        alive = np.less(accept_uniforms, acceptance)  # made cumulative below
        stopped_at = np.zeros(size, dtype=np.intp)  # the first rejection, or γ if all passed
        for i in range(gamma):  # a loop over γ rows is faster than ufunc.accumulate on booleans
            if i:
                np.logical_and(alive[i - 1], alive[i], out=alive[i])  # alive[i]: positions 0 … i passed
            stopped_at += alive[i]
        last, _ = final_alias.draw(block[2 * gamma], stopped_at)

        frame = np.empty((gamma + 1, size), dtype=np.int32)  # position by step; transposed at the end
        np.multiply(drafted + 1, alive, out=frame[:gamma], casting="unsafe")
        frame[:gamma] -= 1  # −1 after the first rejection
        frame[gamma] = -1
        frame.ravel()[stopped_at * size + np.arange(size)] = last
        step_counts = counts[start : start + size]
        np.add(stopped_at, 1, out=step_counts, casting="unsafe")
        if not emits_bonus:
            all_passed = stopped_at == gamma
            frame[gamma, all_passed] = -1
            step_counts[all_passed] -= 1
        tokens[start : start + size] = frame.T
    return tokens, counts


class _AliasTables:
    """Alias tables of several rows at once, flattened so that one gather serves every row.

    A uniform u picks column c = ⌊u·V⌋ of its row j; the draw keeps token c when u·V < c + keep,
    and takes the column's alias otherwise. Both outcomes of column (j, c) sit side by side at
    2(j·V + c) + {0, 1}, so the draw is two gathers and no branch. A token of probability 0 has
    keep = 0 and is nobody's alias, so it is never drawn.

    If `attached` (same shape as the rows) is given, `draw` also returns attached[j, token] for each
    draw — the acceptance probability of a draft token, fetched with the same gather.
    """

    def __init__(self, rows: np.ndarray, attached: np.ndarray | None = None):
        rows = np.asarray(rows, dtype=np.float64)
        self.vocab = rows.shape[1]
        keep = np.zeros(rows.shape)
        alias = np.tile(np.arange(self.vocab, dtype=np.intp), (rows.shape[0], 1))
        for j, row in enumerate(rows):
            _vose(row / row.sum(), keep[j], alias[j])
        columns = np.arange(self.vocab)
        self.threshold = (columns + keep).ravel()
        outcomes = np.stack([alias, np.broadcast_to(columns, alias.shape)], axis=-1)  # (rows, V, 2)
        self.outcome_tokens = outcomes.astype(np.int32).ravel()
        if attached is not None:
            attached = np.asarray(attached, dtype=np.float64)
            self.outcome_attached = np.take_along_axis(
                attached[:, :, None].repeat(2, axis=2), outcomes, axis=1
            ).ravel()
        else:
            self.outcome_attached = None

    def draw(self, uniforms: np.ndarray, rows: np.ndarray):
        """Tokens (int32) for `uniforms`, each from the row index broadcast against it in `rows`.

        Returns (tokens, attached values or None).
        """
        scaled = uniforms * self.vocab
        column = scaled.astype(np.int32)
        np.minimum(column, self.vocab - 1, out=column)  # u·V can round up to V when u is near 1
        flat = column.astype(np.intp)
        flat += rows * self.vocab
        keep = np.less(scaled, self.threshold.take(flat))
        flat <<= 1
        flat += keep
        tokens = self.outcome_tokens.take(flat)
        attached = None if self.outcome_attached is None else self.outcome_attached.take(flat)
        return tokens, attached


def _vose(row: np.ndarray, keep: np.ndarray, alias: np.ndarray) -> None:
    """Fill one row's alias table in place (Vose's method)."""
    vocab = len(row)
    scaled = (row * vocab).tolist()
    small = [c for c in range(vocab) if scaled[c] < 1.0]
    large = [c for c in range(vocab) if scaled[c] >= 1.0]
    while small and large:
        lesser, greater = small.pop(), large[-1]
        keep[lesser] = scaled[lesser]
        alias[lesser] = greater
        scaled[greater] -= 1.0 - scaled[lesser]
        if scaled[greater] < 1.0:
            small.append(large.pop())
    # What is left has scaled ≈ 1 up to rounding: such a column keeps its own token. A leftover
    # token of probability 0 cannot occur, since the remaining mass equals the remaining columns.
    for column in small + large:
        keep[column] = 1.0 if row[column] > 0 else 0.0
        if row[column] == 0:
            alias[column] = int(np.argmax(row))


def acceptance_table(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """min(1, numerator/denominator) entrywise, with 1 where numerator >= denominator (including 0/0).

    >>> acceptance_table(np.array([0.2, 0.5, 0.0]), np.array([0.4, 0.25, 0.0]))
    array([0.5, 1. , 1. ])
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(numerator >= denominator, 1.0, numerator / denominator)


def residual_rows(target_rows: np.ndarray, draft_rows: np.ndarray) -> np.ndarray:
    """norm(max(0, pᵢ − qᵢ)) for each row, with the core's fallback to pᵢ when the mass is 0.

    >>> residual_rows(np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([[0.75, 0.25], [0.5, 0.5]]))
    array([[0. , 1. ],
           [0.5, 0.5]])
    """
    if len(target_rows) == 0:
        return np.empty_like(target_rows)
    return np.array([unchecked_residual(p, q) for p, q in zip(target_rows, draft_rows)])
