"""Chain or tree, each at its best shape for the same verify budget.

A verify budget B is how many draft tokens the target may score in one pass. A chain spends it on
one guess of γ ≤ B tokens; a full tree of depth D and branching b spends b + b² + … + b^D ≤ B. Which
is better depends on what the draft costs, so each is compared at the shape that maximises its own
expected speedup, on stationary rows (every context has the same p and q, as in
`specdec.variants.token_tree`):

* chain: E[N] = (1 − α^(γ+1)) / (1 − α) tokens per pass, for γ draft passes and one verify pass:
  speedup(α, γ, c) = E[N] / (1 + γ/c);
* tree: Σ_{d=0}^{D} β_b^d tokens per pass, where β_b is the chance that one of b candidates is
  accepted at a node (SpecInfer's rule, `acceptance_by_k`); the draft scores a whole level in one
  pass, so a step costs D draft passes and one verify pass: speedup = Σ β_b^d / (1 + D/c).

The verify pass over all the drafted positions is counted as one plain target pass (memory-bound) for both, as
in notebook 04, which favours wide trees: a real verify pass over many nodes costs more once it nears the
accelerator's ridge. A tree with b = 1 is a chain, so the best tree is never worse than the best chain.

>>> from specdec.variants.pairs import draft_with_acceptance, geometric_target
>>> p = geometric_target(8, 0.6)
>>> chain, tree = best_shapes(p, draft_with_acceptance(p, 0.5), budget=14, c=20)
>>> (chain.gamma, round(chain.speedup, 3)), (tree.depth, tree.branching, round(tree.speedup, 3))
((3, 1.63), (2, 3, 2.182))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import expected_tokens
from ..validation import Count, CostRatio, Distribution, checked
from .multi_candidate import acceptance_by_k

#: The largest verify budget `best_shapes` searches (a tree of b + b² + … + b^D ≤ 1,024 nodes at most).
MAX_BUDGET = 1024


@dataclass(frozen=True)
class Shape:
    """A chain (branching 1) or a full tree, and what it gives on stationary rows."""

    depth: int
    """Levels of draft tokens: γ for a chain."""
    branching: int
    """Children per node: 1 for a chain."""
    draft_tokens: int
    """b + b² + … + b^D: what the target scores on top of the prefix."""
    tokens_per_pass: float
    """Expected tokens emitted per verify pass."""
    speedup: float
    """tokens_per_pass / (1 + depth / c)."""

    @property
    def gamma(self) -> int:
        """The draft length of a chain (its depth)."""
        return self.depth


def _draft_tokens(depth: int, branching: int) -> int:
    return depth if branching == 1 else branching * (branching**depth - 1) // (branching - 1)


@checked(target=Distribution(), draft=Distribution(like="target"), budget=Count(1, MAX_BUDGET), c=CostRatio())
def best_shapes(target, draft, budget, c) -> tuple[Shape, Shape]:
    """The best chain and the best full tree that fit in `budget` draft tokens per verify pass.

    Parameters
    ----------
    target, draft : array_like of shape (V,)
        p and q, the same at every context.
    budget : int in 1 … 1024
        Draft tokens the target scores in one pass.
    c : float > 0
        Time of a target pass ÷ time of a draft pass (``math.inf``: a free draft).

    Returns
    -------
    (chain, tree) : two `Shape`
        Each the one with the largest speedup (on a tie, the fewest draft tokens).

    Examples
    --------
    >>> chain, tree = best_shapes([0.5, 0.5], [0.5, 0.5], budget=6, c=math.inf)  # α = 1
    >>> chain.gamma, chain.tokens_per_pass, tree.branching
    (6, 7.0, 1)
    """
    alpha = min(1.0, float(np.minimum(target, draft).sum()))
    chains = [_shape(depth, 1, alpha, c) for depth in range(1, budget + 1)]
    best_chain = max(chains, key=_rank)
    betas = acceptance_by_k(target, draft, budget)
    trees = []
    for branching in range(1, budget + 1):
        beta = min(1.0, float(betas[branching - 1]))
        depth = 1
        while _draft_tokens(depth, branching) <= budget:
            trees.append(_shape(depth, branching, beta, c))
            depth += 1
    return best_chain, max(trees, key=_rank)


def _shape(depth: int, branching: int, beta: float, c: float) -> Shape:
    tokens = expected_tokens(beta, depth)  # Σ_{d=0}^{D} β^d
    cost = 1.0 + depth / c if math.isfinite(c) else 1.0
    return Shape(depth, branching, _draft_tokens(depth, branching), tokens, tokens / cost)


def _rank(shape: Shape):
    return (round(shape.speedup, 12), -shape.draft_tokens)
