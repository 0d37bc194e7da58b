"""Several draft candidates at one position: SpecInfer's multi-step speculative sampling.

The draft proposes k candidates x₁ … x_k, each drawn independently from q (with replacement, so two
candidates may be the same token). The target tries them in turn against a residual that shrinks:

* start with r₁ = p;
* candidate j is accepted with probability min(1, r_j(x_j) / q(x_j)); if so, it is the output;
* if it is rejected, r_{j+1} = norm(max(0, r_j − q)) and the next candidate is tried;
* if all k are rejected, the output is drawn from r_{k+1}.

Stage j is an ordinary one-token verify step with target r_j and draft q, whose rejected branch is
the rest of the procedure. By the one-token argument of notebook 03, stage j outputs r_j:
min(r_j, q) + (1 − α_j)·r_{j+1} = min(r_j, q) + max(0, r_j − q) = r_j, with α_j = Σ min(r_j, q).
So the whole procedure outputs r₁ = p, exactly, for every k. What k buys is acceptance:
P(some candidate accepted) = 1 − (1 − α₁)(1 − α₂)…(1 − α_k).

The rule is from Miao et al. 2023, SpecInfer (https://arxiv.org/abs/2305.09781), where the
candidates are the children of one node of a token tree.

Order of random draws, fixed here: `sample_candidates` makes k ``rng.choice(V, p=q)``; then
`trace_multi_candidate` makes one ``rng.random()`` per tried candidate and, only if all are
rejected, one ``rng.choice(V, p=r_{k+1})``.

What is simplified: one position and one draft distribution q shared by the k candidates (SpecInfer
can also use several draft models, one per candidate, each with its own q); p and q are plain arrays.

>>> import numpy as np
>>> p, q = [0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25]
>>> candidates = sample_candidates(q, 3, np.random.default_rng(0))
>>> candidates, trace_multi_candidate(p, q, candidates, np.random.default_rng(1)).token
([2, 1, 0], 2)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..core import normalised_for_choice, unchecked_residual
from ..sampling import acceptance_table
from ..validation import Constraint, Count, Distribution, Generator, checked


class Candidates(Constraint):
    """A non-empty list of token ids (Python ints), each a token the draft row `draft` could have drawn.

    >>> Candidates()(np.array([0, 1]), "candidates", {"draft": np.array([0.5, 0.5, 0.0])})
    [0, 1]
    """

    def __init__(self, draft: str = "draft"):
        self.draft = draft

    def __call__(self, value, name, arguments):
        draft = arguments[self.draft]
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise TypeError(f"{name} must be a 1-D sequence of token ids (ints), got {type(value).__name__}")
        tokens = value.tolist() if isinstance(value, np.ndarray) else list(value)
        if not tokens:
            raise ValueError(f"{name} must hold at least one candidate token, got none")
        vocab = draft.size
        for index, token in enumerate(tokens):
            if isinstance(token, (bool, np.bool_)) or not isinstance(token, numbers.Integral):
                raise TypeError(f"{name}[{index}] must be an integer token id, got {token!r} of type {type(token).__name__}")
            token = tokens[index] = int(token)
            if not 0 <= token < vocab:
                raise ValueError(f"{name}[{index}] = {token} is out of range: token ids must be in 0 … {vocab - 1} (V = {vocab})")
            if not draft[token] > 0:
                raise ValueError(
                    f"{name}[{index}] = {token} has draft probability 0: the draft could not have sampled "
                    f"it (expected q(x) > 0)"
                )
        return tokens


class DistinctCount(Count):
    """How many distinct candidates to draw from `draft`: at least 1, at most the tokens with q(x) > 0."""

    def __init__(self, draft: str = "draft"):
        super().__init__(1)
        self.draft = draft

    def __call__(self, value, name, arguments):
        k, support = super().__call__(value, name, arguments), int(np.count_nonzero(arguments[self.draft]))
        if k > support:
            raise ValueError(f"{name} must be at most the number of tokens with q(x) > 0 ({support}), got {k}")
        return k


#: One position verified against k candidates: p, q over the same tokens, the candidates, a generator.
CANDIDATE_STEP = checked(target=Distribution(), draft=Distribution(like="target"), candidates=Candidates(),
                         rng=Generator())
#: The exact law of a rule with k candidates.
CANDIDATE_LAW = checked(target=Distribution(), draft=Distribution(like="target"), k=Count(1))
#: n steps of a rule with k candidates, vectorised.
CANDIDATE_SAMPLES = checked(target=Distribution(), draft=Distribution(like="target"), k=Count(1), n=Count(),
                            rng=Generator())


@checked(draft=Distribution(), k=Count(1), rng=Generator())
def sample_candidates(draft, k, rng) -> list[int]:
    """Draw k candidates independently from q: k calls of ``rng.choice(V, p=q)``, in order.

    Examples
    --------
    >>> import numpy as np
    >>> sample_candidates([0.5, 0.5, 0.0], 4, np.random.default_rng(0))
    [1, 0, 0, 0]
    """
    row = normalised_for_choice(draft)
    return [int(rng.choice(draft.size, p=row)) for _ in range(k)]


@dataclass(frozen=True)
class CandidateTrace:
    """What happened to one tried candidate."""

    index: int
    """j − 1: the candidate's place in the order of trying (0 for the first)."""
    token: int
    residual: np.ndarray
    """r_j, the distribution the candidate was tested against (p for the first)."""
    residual_prob: float
    """r_j(x_j)."""
    draft_prob: float
    """q(x_j)."""
    acceptance_probability: float
    """min(1, r_j(x_j) / q(x_j))."""
    uniform: float
    accepted: bool


@dataclass(frozen=True)
class MultiCandidateTrace:
    """Every draw of one multi-candidate step: the tried candidates, then the final residual draw."""

    target: np.ndarray
    draft: np.ndarray
    candidates: list[int]
    tried: tuple[CandidateTrace, ...]
    token: int
    """The output token."""
    final_residual: np.ndarray | None = None
    """r_{k+1}, when every candidate was rejected; None otherwise."""

    @property
    def accepted_index(self) -> int | None:
        """The index of the accepted candidate, or None if the token came from r_{k+1}."""
        last = self.tried[-1]
        return last.index if last.accepted else None


@CANDIDATE_STEP
def trace_multi_candidate(target, draft, candidates, rng) -> MultiCandidateTrace:
    """Verify k candidates at one position, record each draw, and return the trace with the emitted token.

    Parameters
    ----------
    target, draft : array_like of shape (V,)
        p and q; every candidate was drawn from q.
    candidates : sequence of k >= 1 ints
        The candidates, tried in this order; q(x) > 0 for each.
    rng : numpy.random.Generator
        One ``rng.random()`` per tried candidate, then, if all were rejected, one
        ``rng.choice(V, p=r_{k+1})``.

    The token (``trace.token``) is distributed exactly as p when the candidates are independent
    draws from q.

    Examples
    --------
    >>> import numpy as np
    >>> trace = trace_multi_candidate([0.5, 0.3, 0.2, 0.0], [0.25] * 4, [3, 1], np.random.default_rng(0))
    >>> [(t.token, round(t.acceptance_probability, 3), t.accepted) for t in trace.tried]
    [(3, 0.0, False), (1, 0.667, True)]
    >>> trace.token, trace.accepted_index
    (1, 1)
    """
    tried: list[CandidateTrace] = []
    final: list[np.ndarray] = []
    token = verify_candidates(target, draft, candidates, rng, tried, final)
    return MultiCandidateTrace(target.copy(), draft.copy(), list(candidates), tuple(tried), token,
                               final[0] if final else None)


def verify_candidates(p, q, tokens, rng, tried: list | None = None, final: list | None = None) -> int:
    """The rule, on checked arguments. `tried` and `final`, if lists, receive the trace.

    >>> import numpy as np
    >>> verify_candidates(np.array([0.0, 1.0]), np.array([0.5, 0.5]), [0, 0], np.random.default_rng(0))
    1
    """
    residual = np.array(p, dtype=np.float64)
    for index, token in enumerate(tokens):
        r_x, q_x = residual.item(token), q.item(token)
        threshold = min(1.0, r_x / q_x)
        u = rng.random()
        accepted = u < threshold  # strict, as in the core: r(x) = 0 is never accepted
        if tried is not None:
            tried.append(CandidateTrace(index, token, residual, r_x, q_x, threshold, u, accepted))
        if accepted:
            return token
        residual = unchecked_residual(residual, q)
    if final is not None:
        final.append(residual)
    return int(rng.choice(residual.size, p=normalised_for_choice(residual)))


@dataclass(frozen=True)
class MultiCandidateLaw:
    """The exact law of a multi-candidate step, split by how the token came out."""

    residuals: np.ndarray
    """(k+1, V): r₁ = p, r₂, …, r_{k+1}."""
    stage_rates: np.ndarray
    """(k,): α_j = Σ min(r_j, q), the acceptance rate of candidate j given that it is tried."""
    reach: np.ndarray
    """(k+1,): P(candidate j is tried), and last P(all k rejected)."""
    accepted: np.ndarray
    """(k, V): P(candidate j is accepted and is token x) = reach_j · min(r_j(x), q(x))."""
    resampled: np.ndarray
    """(V,): P(all rejected and the residual draw gives x) = reach_{k+1} · r_{k+1}(x)."""

    @property
    def total(self) -> np.ndarray:
        """The law of the output: equal to p up to rounding."""
        return self.accepted.sum(axis=0) + self.resampled

    @property
    def any_accepted(self) -> float:
        """P(some candidate is accepted) = 1 − Π (1 − α_j)."""
        return float(1.0 - self.reach[-1])

    @property
    def outcome_law(self) -> np.ndarray:
        """(k+1,): P(candidate j is the one accepted) for j = 1 … k, then P(none is)."""
        return np.append(self.reach[:-1] * self.stage_rates, self.reach[-1])


@CANDIDATE_LAW
def multi_candidate_law(target, draft, k) -> MultiCandidateLaw:
    """The exact law of the output of `trace_multi_candidate` with k independent candidates from q.

    Examples
    --------
    >>> law = multi_candidate_law([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 2)
    >>> law.stage_rates.round(4), round(law.any_accepted, 4)
    (array([0.7   , 0.4167]), 0.825)
    >>> law.total.round(12)
    array([0.5, 0.3, 0.2, 0. ])
    """
    residuals = np.empty((k + 1, target.size))
    residuals[0] = target
    rates = np.empty(k)
    for j in range(k):
        rates[j] = min(1.0, float(np.minimum(residuals[j], draft).sum()))
        residuals[j + 1] = unchecked_residual(residuals[j], draft)
    reach = np.concatenate(([1.0], np.cumprod(1.0 - rates)))
    accepted = reach[:-1, None] * np.minimum(residuals[:-1], draft)
    return MultiCandidateLaw(residuals, rates, reach, accepted, reach[-1] * residuals[-1])


def acceptance_by_k(target, draft, max_k) -> np.ndarray:
    """P(some candidate is accepted) for k = 1 … max_k candidates.

    Examples
    --------
    >>> acceptance_by_k([0.5, 0.5], [0.9, 0.1], 3).round(4)
    array([0.6  , 0.64 , 0.676])
    """
    law = multi_candidate_law(target, draft, max_k)
    return 1.0 - law.reach[1:]


@CANDIDATE_SAMPLES
def sample_multi_candidate(target, draft, k, n, rng) -> tuple[np.ndarray, np.ndarray]:
    """n independent multi-candidate steps, vectorised: candidates from q, then the rule.

    The law is that of `sample_candidates` followed by `trace_multi_candidate`; the random stream
    differs (all uniforms of the n steps are drawn in a few array calls, and categorical draws use
    the inverse of the cumulative distribution).

    Returns
    -------
    tokens : numpy.ndarray of int, shape (n,)
        The output tokens.
    outcomes : numpy.ndarray of int, shape (n,)
        j − 1 if candidate j was accepted, k if all were rejected.

    Examples
    --------
    >>> import numpy as np
    >>> tokens, outcomes = sample_multi_candidate([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 2, 100_000,
    ...                                           np.random.default_rng(0))
    >>> (np.bincount(tokens, minlength=4) / 100_000).round(2)
    array([0.5, 0.3, 0.2, 0. ])
    """
    law = multi_candidate_law.__wrapped__(target, draft, k)
    acceptance = acceptance_table(law.residuals[:-1], draft)
    return sample_with_acceptance(draft, acceptance, law.residuals[-1], n, rng)


def sample_with_acceptance(candidate_law, acceptance, final_law, n, rng, candidates=None):
    """Vectorised core of the multi-candidate samplers, on checked arrays.

    Candidate j of each step is accepted with probability ``acceptance[j, x_j]``; the first accepted
    candidate is the output, and a step with none accepted draws from `final_law`. The candidates
    are k independent draws from `candidate_law` unless `candidates` (n, k) is given.

    >>> import numpy as np
    >>> sample_with_acceptance(np.array([0.0, 1.0]), np.ones((1, 2)), np.array([1.0, 0.0]), 3,
    ...                        np.random.default_rng(0))
    (array([1, 1, 1]), array([0, 0, 0]))
    """
    k = acceptance.shape[0]
    if candidates is None:
        candidates = draw_categorical(candidate_law, rng.random((n, k)))
    uniforms = rng.random((n, k))
    accepted = uniforms < acceptance[np.arange(k), candidates]
    any_accepted = accepted.any(axis=1)
    outcomes = np.where(any_accepted, accepted.argmax(axis=1), k)
    tokens = np.empty(n, dtype=np.int64)
    rows = np.flatnonzero(any_accepted)
    tokens[rows] = candidates[rows, outcomes[rows]]
    rest = np.flatnonzero(~any_accepted)
    tokens[rest] = draw_categorical(final_law, rng.random(rest.size))
    return tokens, outcomes


def draw_categorical(law: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Tokens with law `law` from uniforms in [0, 1), by the inverse cumulative distribution.

    A token of probability 0 is never returned, even where rounding leaves the cumulative sum
    short of 1.

    >>> draw_categorical(np.array([0.5, 0.0, 0.5]), np.array([0.1, 0.5, 0.99]))
    array([0, 2, 2])
    """
    cumulative = np.cumsum(law)
    cumulative /= cumulative[-1]
    tokens = np.searchsorted(cumulative, uniforms, side="right")
    last = int(np.flatnonzero(law > 0)[-1])
    return np.minimum(tokens, last)


@CANDIDATE_STEP
def distinct_candidate_step(target, draft, candidates, rng) -> int:
    """The multi-candidate rule for k *distinct* candidates drawn from q without replacement.

    Candidate j was drawn from q_j: q with the candidates before it removed, renormalised. Testing it
    against that law — accept with probability min(1, r_j(x)/q_j(x)), then r_{j+1} = norm(max(0,
    r_j − q_j)) — makes each stage an ordinary one-token step with draft q_j, so the argument for
    independent candidates applies stage by stage and the output is exactly p. (Testing against q
    itself is the broken rule "without replacement" of `specdec.variants.broken_candidates`.)

    Same order of draws as `trace_multi_candidate`.

    >>> import numpy as np
    >>> distinct_candidate_step([0.6, 0.2, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7], [3, 1], np.random.default_rng(0))
    1
    """
    if len(set(candidates)) != len(candidates):
        raise ValueError(f"candidates must be distinct tokens for this rule, got {candidates}")
    residual = target.copy()
    remaining = draft.copy()
    for token in candidates:
        proposal = remaining / remaining.sum()
        if rng.random() < min(1.0, residual.item(token) / proposal.item(token)):
            return token
        residual = unchecked_residual(residual, proposal)
        remaining[token] = 0.0
    return int(rng.choice(residual.size, p=normalised_for_choice(residual)))


@checked(target=Distribution(), draft=Distribution(like="target"), k=DistinctCount())
def distinct_candidate_law(target, draft, k) -> np.ndarray:
    """The exact output law of `distinct_candidate_step` with k candidates drawn without replacement.

    Enumerates every ordered set of k distinct candidates (fine for small V); equal to p up to rounding.

    >>> distinct_candidate_law([0.6, 0.2, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7], 2).round(12)
    array([0.6, 0.2, 0.2, 0. ])
    """
    law = np.zeros(target.size)

    def visit(stage: int, remaining: np.ndarray, residual: np.ndarray, weight: float) -> None:
        if stage == k:
            law[:] += weight * residual
            return
        proposal = remaining / remaining.sum()
        following = unchecked_residual(residual, proposal)
        for token in np.flatnonzero(proposal):
            accept = min(1.0, residual[token] / proposal[token])
            law[token] += weight * proposal[token] * accept
            left = remaining.copy()
            left[token] = 0.0
            visit(stage + 1, left, following, weight * proposal[token] * (1.0 - accept))

    visit(0, draft.copy(), target.copy(), 1.0)
    return law
