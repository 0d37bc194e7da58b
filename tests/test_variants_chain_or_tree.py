"""Chain and tree at each one's best shape under the same verify budget."""

import itertools
import math

import numpy as np
import pytest

import specdec
from specdec.variants.chain_or_tree import best_shapes
from specdec.variants.multi_candidate import acceptance_by_k
from specdec.variants.pairs import draft_with_acceptance, geometric_target
from specdec.variants.token_tree import sample_tree_tokens_per_pass, tree_draft_tokens, tree_expected_tokens

TARGET = geometric_target(8, 0.6)


def brute_force(target, draft, budget, c):
    """Every chain γ ≤ budget and every full tree with ≤ budget nodes, written out plainly."""
    alpha = float(np.minimum(target, draft).sum())
    # Speedups equal to 12 digits count as a tie, won by the fewer draft tokens.
    chains = [(round(specdec.speedup(alpha, g, c), 12), -g, g) for g in range(1, budget + 1)]
    trees = []
    for b, d in itertools.product(range(1, budget + 1), range(1, budget + 1)):
        nodes = sum(b**level for level in range(1, d + 1))
        if nodes <= budget:
            beta = float(acceptance_by_k(target, draft, b)[-1])
            tokens = sum(beta**level for level in range(d + 1))
            trees.append((round(tokens / (1 + d / c), 12), -nodes, d, b))
    return max(chains), max(trees)


@pytest.mark.parametrize("alpha", [0.3, 0.5, 0.7, 0.9])
@pytest.mark.parametrize("budget", [1, 6, 14, 30])
@pytest.mark.parametrize("c", [5.0, 20.0, math.inf])
def test_the_best_shapes_are_the_best_of_every_shape(alpha, budget, c):
    draft = draft_with_acceptance(TARGET, alpha)
    chain, tree = best_shapes(TARGET, draft, budget, c)
    (chain_speedup, _, gamma), (tree_speedup, _, depth, branching) = brute_force(TARGET, draft, budget, c)
    assert chain.branching == 1 and chain.gamma == gamma and chain.speedup == pytest.approx(chain_speedup, rel=1e-12)
    assert (tree.depth, tree.branching) == (depth, branching) and tree.speedup == pytest.approx(tree_speedup, rel=1e-12)
    assert tree.draft_tokens <= budget and chain.draft_tokens <= budget
    assert tree.speedup >= chain.speedup - 1e-12  # a tree of branching 1 is a chain
    if tree.branching > 1:
        assert tree.draft_tokens == tree_draft_tokens(tree.depth, tree.branching)
        assert tree.tokens_per_pass == pytest.approx(tree_expected_tokens(TARGET, draft, tree.depth, tree.branching))


def test_at_the_best_shapes_the_tree_wins_at_low_alpha_and_is_the_chain_at_high_alpha():
    results = {alpha: best_shapes(TARGET, draft_with_acceptance(TARGET, alpha), 14, 20.0) for alpha in (0.3, 0.5, 0.9)}
    for alpha in (0.3, 0.5):
        chain, tree = results[alpha]
        assert tree.branching > 1 and tree.speedup > 1.3 * chain.speedup
        assert chain.gamma < 14  # the chain's best length is far below the 14 of the old comparison
    chain, tree = results[0.9]
    assert tree.branching == 1 and tree.speedup == chain.speedup


def test_the_tree_tokens_per_pass_match_sampling():
    draft = draft_with_acceptance(TARGET, 0.5)
    _, tree = best_shapes(TARGET, draft, 14, 20.0)
    sampled = sample_tree_tokens_per_pass(TARGET, draft, tree.depth, tree.branching, 200_000, np.random.default_rng(4))
    assert abs(sampled.mean() - tree.tokens_per_pass) < 4 * sampled.std() / math.sqrt(sampled.size)


def test_bad_budget_and_cost_ratio_are_refused():
    draft = draft_with_acceptance(TARGET, 0.5)
    with pytest.raises(ValueError, match="budget must be an integer in 1 … 1,024, got 0"):
        best_shapes(TARGET, draft, 0, 20)
    with pytest.raises(ValueError, match="c must be > 0"):
        best_shapes(TARGET, draft, 14, 0)
    with pytest.raises(ValueError, match="same vocabulary"):
        best_shapes(TARGET, [0.5, 0.5], 14, 20)
