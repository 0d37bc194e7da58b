"""One step at a time: loop versions of the variants' rules, the references their samplers are tested against.

The package keeps the traced rules (`trace_multi_candidate`, `trace_tree`, `trace_lossy`) and the
vectorised samplers; the tests also need the rules as plain calls that return only the emitted
token(s), and two broken rules step by step. Arguments are checked as in the package: the same
declared checks, before any draw.
"""

from specdec.core import normalised_for_choice, unchecked_residual
from specdec.validation import Distribution, Generator, checked
from specdec.variants.lossy_acceptance import MEDUSA_DELTA, MEDUSA_EPSILON, trace_lossy
from specdec.variants.multi_candidate import CANDIDATE_STEP, DistinctCount, trace_multi_candidate
from specdec.variants.token_tree import trace_tree


def multi_candidate_step(target, draft, candidates, rng) -> int:
    """The token one multi-candidate step emits (`trace_multi_candidate` without the trace)."""
    return trace_multi_candidate(target, draft, candidates, rng).token


def verify_tree(parents, tokens, target_rows, draft_rows, rng) -> list[int]:
    """The tokens one token-tree step emits (`trace_tree` without the trace)."""
    return trace_tree(parents, tokens, target_rows, draft_rows, rng).tokens


def lossy_step(rule, target, draft, token, rng, *, epsilon=MEDUSA_EPSILON, delta=MEDUSA_DELTA, lenience=1.0) -> int:
    """The token one position verified by a lossy `rule` emits (`trace_lossy` without the trace)."""
    return trace_lossy(rule, target, draft, token, rng, epsilon=epsilon, delta=delta, lenience=lenience).token


@CANDIDATE_STEP
def stale_residual_step(target, draft, candidates, rng) -> int:
    """The multi-candidate rule with the residual never updated between candidates.

    Same draws as `multi_candidate_step`: one ``rng.random()`` per tried candidate, then, if all
    were rejected, one ``rng.choice(V, p=norm(max(0, p − q)))``.
    """
    for token in candidates:
        if rng.random() < min(1.0, target.item(token) / draft.item(token)):  # the mistake: p, not r_j
            return token
    residual = unchecked_residual(target, draft)
    return int(rng.choice(target.size, p=normalised_for_choice(residual)))


@checked(draft=Distribution(), k=DistinctCount(), rng=Generator())
def sample_candidates_without_replacement(draft, k, rng) -> list[int]:
    """k distinct candidates: each ``rng.choice(V, p=q restricted to the tokens not yet drawn)``.

    Fed to `multi_candidate_step`, whose rule assumes independent draws from q, they give a biased
    output: that combination is the broken rule "without replacement".
    """
    remaining = draft.copy()
    chosen: list[int] = []
    for _ in range(k):
        token = int(rng.choice(draft.size, p=remaining / remaining.sum()))
        chosen.append(token)
        remaining[token] = 0.0
    return chosen
