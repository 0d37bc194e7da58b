"""Two ways to get the multi-candidate rule wrong, with their exact (wrong) laws and samplers.

Each broken rule makes the same random draws as `specdec.variants.multi_candidate` except where
its mistake changes them, and each has an exact law, so that a figure can show how far it is from
p and a test can state the sample size at which a chi-square check catches it.

* **stale residual**: every candidate is tested against p itself, min(1, p(x)/q(x)), instead of
  against the residual left by the rejections before it. Each extra candidate then accepts the
  overlap min(p, q) again, so the output drifts towards the overlap's law min(p, q)/α: tokens whose
  target mass lies mostly in the overlap come out too often, those with much residual mass (p ≫ q)
  too rarely.
* **without replacement**: the k candidates are drawn from q *without* replacement (k distinct
  tokens, as sampling without replacement gives; a deterministic top-k draft needs the one-hot rule of
  `specdec.deterministic_draft` instead), but verified with the rule that assumes independent
  draws from q. After the first candidate, the law of the next one is q with the tokens already
  drawn removed, not q, so the ratio r(x)/q(x) uses the wrong denominator. (SpecTr, Sun et al. 2023,
  https://arxiv.org/abs/2310.15141, casts verifying k candidates as optimal transport with a membership
  cost, which extends the maximal coupling behind the one-candidate rule; here we only show that mixing
  the two rules is biased.)

What is simplified: one position, one q shared by the candidates, as in `multi_candidate`.

>>> import numpy as np
>>> stale_residual_law([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 2).round(3)
array([0.4 , 0.34, 0.26, 0.  ])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core import unchecked_residual
from ..sampling import acceptance_table
from ..validation import Count, Distribution, Generator, checked
from .multi_candidate import CANDIDATE_LAW, CANDIDATE_SAMPLES, DistinctCount, multi_candidate_law, sample_with_acceptance


def stale_residual_law(target, draft, k) -> np.ndarray:
    """The exact output law of the multi-candidate rule with the residual never updated between
    candidates (every candidate tested against p), with k independent candidates from q.

    Candidate j is tried with probability (1 − α)^(j−1) and accepts x with probability
    min(p(x), q(x)); after k rejections the draw is from r = norm(max(0, p − q)):
    law = min(p, q)·(1 − (1 − α)^k)/α + (1 − α)^k·r, which is p for k = 1 and, for k > 1, only when
    min(p, q) = α·p (then r = p too, as when p = q).

    >>> stale_residual_law([0.5, 0.5], [0.9, 0.1], 1)
    array([0.5, 0.5])
    """
    accepted, resampled = stale_residual_parts(target, draft, k)
    return accepted + resampled


@CANDIDATE_LAW
def stale_residual_parts(target, draft, k) -> tuple[np.ndarray, np.ndarray]:
    """`stale_residual_law` split: (P(x comes out as an accepted candidate), P(x comes from r)).

    >>> [part.round(3) for part in stale_residual_parts([0.5, 0.5], [0.9, 0.1], 2)]
    [array([0.7 , 0.14]), array([0.  , 0.16])]
    """
    overlap = np.minimum(target, draft)
    miss = 1.0 - min(1.0, float(overlap.sum()))
    tries = sum(miss**j for j in range(k))
    return overlap * tries, miss**k * unchecked_residual(target, draft)


def without_replacement_law(target, draft, k) -> np.ndarray:
    """The exact output law of the with-replacement rule fed k distinct candidates.

    Enumerates every ordered set of candidates (V·(V−1)·… paths, fine for the small V of the
    notebooks). The residuals r₁ … r_{k+1} do not depend on the candidates; only the chance of
    reaching each stage does.

    >>> without_replacement_law([0.5, 0.5], [0.5, 0.5], 2)
    array([0.5, 0.5])
    """
    accepted, resampled = without_replacement_parts(target, draft, k)
    return accepted + resampled


@checked(target=Distribution(), draft=Distribution(like="target"), k=DistinctCount())
def without_replacement_parts(target, draft, k) -> tuple[np.ndarray, np.ndarray]:
    """`without_replacement_law` split: (P(x comes out as an accepted candidate), P(x comes from r_{k+1})).

    >>> [part.round(3) for part in without_replacement_parts([0.5, 0.5], [0.9, 0.1], 2)]
    [array([0.5, 0.5]), array([0., 0.])]
    """
    q = draft
    residuals = multi_candidate_law.__wrapped__(target, q, k).residuals
    acceptance = acceptance_table(residuals[:-1], q)
    law = np.zeros(target.size)
    resampled = np.zeros(target.size)

    def visit(stage: int, used: tuple, weight: float) -> None:
        if stage == k:
            resampled[:] += weight * residuals[k]
            return
        free = q.copy()
        free[list(used)] = 0.0
        free /= free.sum()
        for token in np.flatnonzero(free):
            chance = weight * free[token]
            law[token] += chance * acceptance[stage, token]
            visit(stage + 1, used + (int(token),), chance * (1.0 - acceptance[stage, token]))

    visit(0, (), 1.0)
    return law, resampled


@CANDIDATE_SAMPLES
def sample_stale_residual(target, draft, k, n, rng) -> np.ndarray:
    """n steps of the stale-residual rule with independent candidates from q, vectorised: the tokens.

    >>> import numpy as np
    >>> tokens = sample_stale_residual([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 2, 50_000, np.random.default_rng(0))
    >>> (np.bincount(tokens, minlength=4) / 50_000).round(2)
    array([0.4 , 0.34, 0.26, 0.  ])
    """
    acceptance = np.repeat(acceptance_table(target[None, :], draft), k, axis=0)
    tokens, _ = sample_with_acceptance(draft, acceptance, unchecked_residual(target, draft), n, rng)
    return tokens


@checked(target=Distribution(), draft=Distribution(like="target"), k=DistinctCount(), n=Count(), rng=Generator())
def sample_without_replacement(target, draft, k, n, rng) -> np.ndarray:
    """n steps of the with-replacement rule fed k distinct candidates, vectorised: the tokens.

    The candidates are the k smallest of E_x / q(x) with E_x exponential: an ordered draw without
    replacement from q (the exponential-race form of drawing without replacement).

    >>> import numpy as np
    >>> p, q = [0.6, 0.2, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7]
    >>> tokens = sample_without_replacement(p, q, 2, 50_000, np.random.default_rng(0))
    >>> without_replacement_law(p, q, 2).round(3)  # p is (0.6, 0.2, 0.2, 0)
    array([0.333, 0.333, 0.333, 0.   ])
    >>> bool(np.abs(np.bincount(tokens, minlength=4) / 50_000 - [1/3, 1/3, 1/3, 0]).max() < 0.01)
    True
    """
    q = draft
    law = multi_candidate_law.__wrapped__(target, q, k)
    with np.errstate(divide="ignore"):
        keys = rng.exponential(size=(n, q.size)) / q
    candidates = np.argsort(keys, axis=1, kind="stable")[:, :k]
    tokens, _ = sample_with_acceptance(q, acceptance_table(law.residuals[:-1], q), law.residuals[-1], n, rng,
                                       candidates=candidates)
    return tokens


@dataclass(frozen=True)
class BrokenCandidateRule:
    """One broken multi-candidate rule, what it gets wrong, and how it is sampled and computed."""

    name: str
    mistake: str
    law: Callable[..., np.ndarray]
    """(target, draft, k) -> the exact output law."""
    parts: Callable[..., tuple]
    """(target, draft, k) -> (accepted part, resampled part) of that law."""
    sample: Callable[..., np.ndarray]
    """(target, draft, k, n, rng) -> n output tokens."""


BROKEN_CANDIDATE_RULES = {
    "stale residual": BrokenCandidateRule(
        "stale residual",
        "Every candidate is tested against p; after a rejection the next one should be tested "
        "against the residual norm(max(0, r − q)).",
        stale_residual_law,
        stale_residual_parts,
        sample_stale_residual,
    ),
    "without replacement": BrokenCandidateRule(
        "without replacement",
        "The candidates are k distinct tokens (drawn from q without replacement), but the test "
        "divides by q(x) as if each were a fresh draw from q.",
        without_replacement_law,
        without_replacement_parts,
        sample_without_replacement,
    ),
}
