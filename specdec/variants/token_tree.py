"""A tree of draft tokens, verified node by node in one target pass, against a chain of the same size.

A chain spends its γ draft tokens on one guess of the continuation; a tree spends them on several:
each node has `branching` children, each child a token drawn from the draft at that node's context.
The target scores every node in one pass (with a tree-shaped attention mask, in a real engine) and
the verify walks down from the root: at each node, its children are tried in turn with the
multi-candidate rule of `specdec.variants.multi_candidate` (SpecInfer, Miao et al. 2023,
https://arxiv.org/abs/2305.09781). If a child is accepted, the walk moves to it; if all are
rejected, a token is drawn from the last residual and the step ends; at a leaf, a bonus token is
drawn from the target at the leaf's context. Since each node's output is exactly its target row,
the emitted text has the target's law.

A tree of depth D and branching b holds b + b² + … + b^D draft tokens, but a step emits at most
D + 1 tokens. Depth 3 with branching 2 holds 14 draft tokens, like a chain of γ = 14 that can emit
up to 15.

Order of random draws in `trace_tree`: walking down from the root, one ``rng.random()`` per tried
child (in node order), then one ``rng.choice(V, p=...)`` from the residual or, at a leaf, from the
leaf's target row. `sample_stationary_tree` draws the node tokens first, one
``rng.choice(V, p=q)`` per node in node order.

What is simplified: in `sample_stationary_tree` and `tree_expected_tokens` every context has the
same p and q ("stationary"), so that a tree and a chain can be compared at exactly the same α; in
real text the rows change with the context. Sibling nodes may carry the same token: they are
independent draws, which this rule needs (merging duplicates would bias it). Engines build their
trees from distinct top-k tokens instead and verify them as drafts that do not sample
(`specdec.deterministic_draft`).

>>> import numpy as np
>>> parents = full_tree_parents(depth=2, branching=2)
>>> parents
[0, 0, 1, 1, 2, 2]
>>> p, q = [0.5, 0.5], [0.5, 0.5]
>>> trace_tree(parents, [0, 1, 1, 0, 0, 0], [p] * 7, [q] * 7, np.random.default_rng(0)).tokens
[0, 1, 0]
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .. import validation
from ..core import expected_tokens, normalised_for_choice
from ..validation import Constraint, Count, Distribution, DistributionRows, Generator, checked
from .multi_candidate import multi_candidate_law, sample_multi_candidate, verify_candidates


class TokenTree(Constraint):
    """`parents`, `tokens`, `target_rows` and `draft_rows` of one token tree, checked together.

    parents[i − 1] is the parent of node i, numbered below it; tokens[i − 1] is node i's token, with
    probability > 0 in its parent's draft row; both row arrays have one row per node plus the root's.
    Declared by position: ``@checked(TokenTree(), rng=Generator())``.
    """

    def update(self, arguments):
        parent_list = _int_list(arguments["parents"], "parents")
        token_list = _int_list(arguments["tokens"], "tokens")
        if len(token_list) != len(parent_list):
            raise ValueError(f"tokens must hold one token per node: {len(parent_list)} parents, {len(token_list)} tokens")
        target = DistributionRows()(arguments["target_rows"], "target_rows", arguments)
        draft = DistributionRows()(arguments["draft_rows"], "draft_rows", arguments)
        nodes = len(parent_list) + 1
        for name, rows in (("target_rows", target), ("draft_rows", draft)):
            if rows.shape[0] != nodes:
                raise ValueError(f"{name} must have one row per node and one for the root ({nodes}), got {rows.shape[0]}")
        validation.same_vocabulary(target, "target_rows", draft, "draft_rows")
        for node, parent in enumerate(parent_list, start=1):
            if not 0 <= parent < node:
                raise ValueError(f"parents[{node - 1}] = {parent}: the parent of node {node} must be in 0 … {node - 1}")
            token = token_list[node - 1]
            if not 0 <= token < target.shape[1]:
                raise ValueError(f"tokens[{node - 1}] = {token} is out of range 0 … {target.shape[1] - 1}")
            if not draft[parent, token] > 0:
                raise ValueError(
                    f"tokens[{node - 1}] = {token} has probability 0 under draft_rows[{parent}], the row it was "
                    f"drawn from (expected q(x) > 0)"
                )
        arguments.update(parents=parent_list, tokens=token_list, target_rows=target, draft_rows=draft)


def _int_list(value, name: str) -> list[int]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name} must be a 1-D sequence of ints, got {type(value).__name__}")
    items = value.tolist() if isinstance(value, np.ndarray) else list(value)
    for index, item in enumerate(items):
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Integral):
            raise TypeError(f"{name}[{index}] must be an int, got {item!r} of type {type(item).__name__}")
        items[index] = int(item)
    return items


@checked(depth=Count(1), branching=Count(1))
def full_tree_parents(depth, branching) -> list[int]:
    """Parent of each node 1 … N of a full tree, numbered level by level; node 0 is the root.

    >>> full_tree_parents(1, 3)
    [0, 0, 0]
    """
    parents: list[int] = []
    level = [0]
    next_node = 1
    for _ in range(depth):
        new_level = []
        for parent in level:
            for _ in range(branching):
                parents.append(parent)
                new_level.append(next_node)
                next_node += 1
        level = new_level
    return parents


@dataclass(frozen=True)
class NodeVisit:
    """The verify at one node: which children were tried, and how it ended."""

    node: int
    children: tuple[int, ...]
    tried: tuple
    """One `CandidateTrace` per tried child, in order."""
    chosen_child: int | None
    """The accepted child, or None if all were rejected (or the node is a leaf)."""


@dataclass(frozen=True)
class TreeTrace:
    """Every decision of one tree verify step."""

    visits: tuple[NodeVisit, ...]
    path: tuple[int, ...]
    """The accepted nodes, root excluded, from top to bottom."""
    tokens: list[int]
    """The emitted tokens."""
    origins: list[str]
    """"accepted" for each accepted node, then "resampled" or "bonus"."""


@checked(TokenTree(), rng=Generator())
def trace_tree(parents, tokens, target_rows, draft_rows, rng) -> TreeTrace:
    """Verify a token tree from the root down, recording every decision; ``.tokens`` is what the step emits.

    Parameters
    ----------
    parents : sequence of N ints
        parents[i − 1] is the parent of node i (node 0 is the root); each parent has a smaller
        number than its child.
    tokens : sequence of N ints
        The draft token of node i at tokens[i − 1]; q_parent(token) > 0.
    target_rows, draft_rows : array_like of shape (N + 1, V)
        Row i: p and q at the context that ends with node i (row 0: the root's context). The
        children of node i were drawn from draft row i.
    rng : numpy.random.Generator

    The step emits between 1 and depth + 1 tokens; the inputs are not modified.

    Examples
    --------
    >>> import numpy as np
    >>> rows = [[0.9, 0.1]] * 3
    >>> trace = trace_tree([0, 0], [1, 0], rows, rows, np.random.default_rng(0))
    >>> trace.path, trace.origins
    ((1,), ['accepted', 'bonus'])
    """
    children: list[list[int]] = [[] for _ in range(len(parents) + 1)]
    for node, parent in enumerate(parents, start=1):
        children[parent].append(node)
    return _walk(children, tokens, target_rows, draft_rows, rng)


def _walk(children, node_tokens, target, draft, rng) -> TreeTrace:
    node = 0
    visits, path, output, origins = [], [], [], []
    while True:
        kids = children[node]
        if not kids:  # a leaf: the bonus token from the leaf's own target row
            visits.append(NodeVisit(node, (), (), None))
            output.append(int(rng.choice(target.shape[1], p=normalised_for_choice(target[node]))))
            origins.append("bonus")
            break
        tried: list = []
        token = verify_candidates(target[node], draft[node], [node_tokens[kid - 1] for kid in kids], rng, tried)
        output.append(token)
        if tried[-1].accepted:
            child = kids[tried[-1].index]
            visits.append(NodeVisit(node, tuple(kids), tuple(tried), child))
            path.append(child)
            origins.append("accepted")
            node = child
            continue
        visits.append(NodeVisit(node, tuple(kids), tuple(tried), None))
        origins.append("resampled")
        break
    return TreeTrace(tuple(visits), tuple(path), output, origins)


@dataclass(frozen=True)
class StationaryTree:
    """A sampled token tree on stationary rows, ready for `trace_tree`."""

    parents: list[int]
    tokens: list[int]
    target_rows: np.ndarray
    draft_rows: np.ndarray


@checked(target=Distribution(), draft=Distribution(like="target"), depth=Count(1), branching=Count(1), rng=Generator())
def sample_stationary_tree(target, draft, depth, branching, rng) -> StationaryTree:
    """A full tree whose every context has the same p and q; node tokens drawn from q in node order.

    Examples
    --------
    >>> import numpy as np
    >>> tree = sample_stationary_tree([0.5, 0.5], [0.5, 0.5], 2, 2, np.random.default_rng(0))
    >>> len(tree.tokens), tree.target_rows.shape
    (6, (7, 2))
    """
    parents = full_tree_parents.__wrapped__(depth, branching)
    row = normalised_for_choice(draft)
    tokens = [int(rng.choice(draft.size, p=row)) for _ in parents]
    nodes = len(parents) + 1
    return StationaryTree(parents, tokens, np.tile(target, (nodes, 1)), np.tile(draft, (nodes, 1)))


@checked(target=Distribution(), draft=Distribution(like="target"), depth=Count(1), branching=Count(1))
def tree_expected_tokens(target, draft, depth, branching) -> float:
    """Expected tokens per target pass of a full tree on stationary rows: Σ_{d=0}^{D} β^d.

    β is the chance that one of `branching` candidates is accepted at a node
    (`acceptance_by_k`), the same at every node; the walk goes one level deeper each time.

    Examples
    --------
    >>> round(tree_expected_tokens([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 3, 2), 4)
    3.0671
    """
    beta = float(multi_candidate_law.__wrapped__(target, draft, branching).any_accepted)
    return expected_tokens.__wrapped__(min(beta, 1.0), depth)


@checked(target=Distribution(), draft=Distribution(like="target"), gamma=Count())
def chain_expected_tokens(target, draft, gamma) -> float:
    """Expected tokens per target pass of a chain of γ draft tokens on stationary rows.

    >>> round(chain_expected_tokens([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 14), 4)
    3.3175
    """
    return expected_tokens.__wrapped__(min(1.0, float(np.minimum(target, draft).sum())), gamma)


def tree_draft_tokens(depth, branching) -> int:
    """b + b² + … + b^D: how many draft tokens a full tree holds.

    >>> tree_draft_tokens(3, 2)
    14
    """
    return len(full_tree_parents(depth, branching))


@checked(target=Distribution(), draft=Distribution(like="target"), depth=Count(1), branching=Count(1), n=Count(),
         rng=Generator())
def sample_tree_tokens_per_pass(target, draft, depth, branching, n, rng) -> np.ndarray:
    """Tokens emitted by n tree steps on stationary rows, vectorised.

    On stationary rows the walk is a run of independent multi-candidate steps, one per level, that
    stops at the first level where every child is rejected; this samples those levels with
    `sample_multi_candidate` instead of calling `trace_tree` n times (same law; the tests compare
    the two).

    Examples
    --------
    >>> import numpy as np
    >>> counts = sample_tree_tokens_per_pass([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 3, 2, 100_000,
    ...                                      np.random.default_rng(0))
    >>> round(float(counts.mean()), 2)
    3.07
    """
    _, outcomes = sample_multi_candidate.__wrapped__(target, draft, branching, n * depth, rng)
    passed = (outcomes < branching).reshape(n, depth)
    levels = np.cumprod(passed, axis=1).sum(axis=1)
    return levels + 1

