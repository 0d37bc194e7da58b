"""The verify rule for a tree of drafted tokens in which every node carries the law it was drawn from.

A chain is a tree with one child per node, so this one rule verifies every drafter of
`specdec.neural`. At a node whose target row is p, the children x₁ … x_k are tried in order
against a residual that shrinks (SpecInfer's multi-draft rule, Miao et al. 2023,
https://arxiv.org/abs/2305.09781), each with the law qⱼ it was drawn from:

* start with r = p;
* child j is accepted with probability min(1, r(xⱼ) / qⱼ(xⱼ)); the walk moves to it;
* on rejection, r ← norm(max(0, r − qⱼ)) and the next child is tried;
* if every child is rejected, a token is drawn from r and the step ends; at a leaf, the bonus token
  is drawn from the leaf's own target row.

Each stage is notebook 03's one-token rule with target r and draft qⱼ, so each node outputs exactly
its row p, provided each child was drawn from its qⱼ independently of the children tried before it.

**Deterministic drafts** (prompt lookup, the top-k candidates of Medusa heads) are drawn from a
point mass: qⱼ = δ(xⱼ), the one-hot row. The rule then reads: accept x with probability p(x); on
rejection, draw from norm(max(0, p − δₓ)), which is p with x removed and renormalised. Verifying
such a draft as if it came from the model's softmax q (accept with min(1, p(x)/q(x))) is wrong:
see `specdec.neural` tests, where that variant fails the chi-square test.

With every qⱼ of a node equal to one row q this is `specdec.variants.token_tree.trace_tree`, and
for a chain it is `specdec.core.verify`: same draws, same tokens (the tests check both).

Order of random draws: one ``rng.random()`` per tried child, walking down from the root, then one
``rng.choice(V, p=...)`` from the last residual or the leaf's row.

>>> import numpy as np
>>> p = np.array([[0.5, 0.5], [0.9, 0.1], [0.5, 0.5]])
>>> one_hot = np.array([[1.0, 0.0], [1.0, 0.0]])
>>> verify_token_tree([0, 1], [0, 0], one_hot, p, np.random.default_rng(2)).tokens
[0, 0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core import normalised_for_choice, unchecked_residual
from ..variants.lossy_acceptance import MEDUSA_DELTA, MEDUSA_EPSILON, typical_threshold

#: The rules `verify_token_tree` knows: the exact rule, and Medusa's typical acceptance (lossy).
TREE_RULES = ("exact", "typical")


@dataclass
class TreeOutcome:
    """What one verify step emitted, and how."""

    tokens: list[int]
    origins: list[str]
    """"accepted" for each accepted draft token, then "resampled" or "bonus"."""
    path: list[int]
    """The accepted nodes, top to bottom (node numbers, root = 0 excluded)."""
    tried: list[int] = field(default_factory=list)
    """Children tried at each visited depth (for acceptance by position)."""


def tree_children(parents) -> list[list[int]]:
    """children[i]: the nodes whose parent is node i, in order (node 0 is the root).

    >>> tree_children([0, 0, 1])
    [[1, 2], [3], [], []]
    """
    children: list[list[int]] = [[] for _ in range(len(parents) + 1)]
    for node, parent in enumerate(parents, start=1):
        if not 0 <= parent < node:
            raise ValueError(f"parents[{node - 1}] = {parent}: the parent of node {node} must be in 0 … {node - 1}")
        children[parent].append(node)
    return children


def verify_token_tree(parents, tokens, draft_rows, target_rows, rng, rule="exact", epsilon=MEDUSA_EPSILON,
                      delta=MEDUSA_DELTA) -> TreeOutcome:
    """Verify a drafted tree (a chain is a tree) from the root down.

    Parameters
    ----------
    parents : sequence of N ints
        parents[i − 1] is the parent of node i; node 0 is the root (the context so far).
    tokens : sequence of N ints
        The token of node i at tokens[i − 1].
    draft_rows : array_like of shape (N, V)
        Row i − 1: the law node i was drawn from (one-hot for a deterministic choice); its token
        must have probability > 0 under it.
    target_rows : array_like of shape (N + 1, V)
        Row i: the target's next-token distribution at the context that ends with node i.
    rng : numpy.random.Generator
    rule : {"exact", "typical"}
        "typical" is Medusa's typical acceptance (lossy): a child x is accepted when
        p(x) > min(ε, δ·exp(−H(p))), children in order; if none is, a token is drawn from p. (Medusa's
        code instead takes the target's argmax by default, and keeps the longest passing path among all
        candidates rather than walking the children in order.)

    Returns
    -------
    TreeOutcome
    """
    if rule not in TREE_RULES:
        raise ValueError(f"rule must be one of {TREE_RULES}, got {rule!r}")
    children = tree_children(parents)
    draft = np.asarray(draft_rows, dtype=np.float64)
    target = np.asarray(target_rows, dtype=np.float64)
    tokens = [int(t) for t in tokens]
    if draft.shape[0] != len(tokens) or target.shape[0] != len(tokens) + 1:
        raise ValueError(f"a tree of {len(tokens)} nodes needs {len(tokens)} draft rows and {len(tokens) + 1} "
                         f"target rows, got {draft.shape[0]} and {target.shape[0]}")
    for node, token in enumerate(tokens, start=1):
        if not draft[node - 1, token] > 0:
            raise ValueError(f"tokens[{node - 1}] = {token} has probability 0 under draft_rows[{node - 1}]")
    vocab = target.shape[1]
    outcome = TreeOutcome([], [], [])
    node = 0
    while True:
        kids = children[node]
        if not kids:
            outcome.tokens.append(int(rng.choice(vocab, p=normalised_for_choice(target[node]))))
            outcome.origins.append("bonus")
            return outcome
        if rule == "typical":
            chosen = _typical_child(kids, tokens, target[node], epsilon, delta)
            outcome.tried.append(len(kids) if chosen is None else kids.index(chosen) + 1)
            if chosen is None:
                outcome.tokens.append(int(rng.choice(vocab, p=normalised_for_choice(target[node]))))
                outcome.origins.append("resampled")
                return outcome
        else:
            chosen, residual = None, target[node]
            for count, kid in enumerate(kids, start=1):
                token = tokens[kid - 1]
                q_x = draft[kid - 1, token]
                if rng.random() < min(1.0, residual[token] / q_x):
                    chosen = kid
                    break
                residual = unchecked_residual(residual, draft[kid - 1])
            outcome.tried.append(count)
            if chosen is None:
                outcome.tokens.append(int(rng.choice(vocab, p=normalised_for_choice(residual))))
                outcome.origins.append("resampled")
                return outcome
        outcome.tokens.append(tokens[chosen - 1])
        outcome.origins.append("accepted")
        outcome.path.append(chosen)
        node = chosen


def _typical_child(kids, tokens, p, epsilon, delta):
    bar = typical_threshold(p, epsilon, delta)
    for kid in kids:
        if p[tokens[kid - 1]] > bar:
            return kid
    return None


def one_hot_rows(tokens, vocab: int) -> np.ndarray:
    """The point masses δ(x) of deterministic draft tokens: one row per token.

    >>> one_hot_rows([2, 0], 3)
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    rows = np.zeros((len(tokens), vocab))
    rows[np.arange(len(tokens)), np.asarray(tokens, dtype=np.int64)] = 1.0
    return rows
