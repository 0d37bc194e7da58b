"""Token trees: node-by-node verify against a plain implementation, and tokens per pass against a chain."""

import numpy as np
import pytest

from specdec.core import expected_tokens
from specdec.goodness_of_fit import compare_samples, goodness_of_fit
from specdec.sampling import sample_steps
from specdec.variants.multi_candidate import acceptance_by_k
from specdec.variants.pairs import draft_with_acceptance, geometric_target
from specdec.variants.token_tree import (
    chain_expected_tokens,
    full_tree_parents,
    sample_stationary_tree,
    sample_tree_tokens_per_pass,
    trace_tree,
    tree_draft_tokens,
    tree_expected_tokens,
)
from tests import reference_variants as reference
from tests.loop_variants import verify_tree


def random_tree(rng, vocab):
    """A random (not full, not stationary) tree with its own rows at every node."""
    nodes = int(rng.integers(1, 9))
    parents = [int(rng.integers(0, node)) for node in range(1, nodes + 1)]
    target = rng.dirichlet(np.full(vocab, 0.7), size=nodes + 1)
    draft = rng.dirichlet(np.full(vocab, 0.7), size=nodes + 1)
    tokens = [int(rng.choice(vocab, p=draft[parent])) for parent in parents]
    return parents, tokens, target, draft


def test_the_verify_matches_a_plain_implementation_draw_for_draw():
    rows = np.random.default_rng(1)
    for case in range(300):
        parents, tokens, target, draft = random_tree(rows, int(rows.integers(2, 6)))
        ours, theirs = np.random.default_rng(case), np.random.default_rng(case)
        assert verify_tree(parents, tokens, target, draft, ours) == reference.tree_verify(parents, tokens, target, draft, theirs)
        assert ours.bit_generator.state == theirs.bit_generator.state


def test_the_trace_walks_a_path_of_accepted_nodes():
    rows = np.random.default_rng(2)
    for case in range(100):
        parents, tokens, target, draft = random_tree(rows, 3)
        trace = trace_tree(parents, tokens, target, draft, np.random.default_rng(case))
        assert trace.tokens == verify_tree(parents, tokens, target, draft, np.random.default_rng(case))
        assert [tokens[node - 1] for node in trace.path] == trace.tokens[: len(trace.path)]
        for node, child in zip((0, *trace.path), trace.path):
            assert parents[child - 1] == node
        assert trace.origins[:-1] == ["accepted"] * len(trace.path)
        assert trace.origins[-1] in ("resampled", "bonus")


def test_full_trees_have_the_expected_shape():
    assert full_tree_parents(3, 2) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert tree_draft_tokens(3, 2) == 14
    assert tree_draft_tokens(2, 3) == 12


def test_the_exact_tokens_per_pass_match_the_node_by_node_verify():
    p = geometric_target(8, 0.6)
    q = draft_with_acceptance(p, 0.5)
    rng = np.random.default_rng(3)
    counts = []
    for _ in range(4_000):
        tree = sample_stationary_tree(p, q, 3, 2, rng)
        counts.append(len(verify_tree(tree.parents, tree.tokens, tree.target_rows, tree.draft_rows, rng)))
    beta = acceptance_by_k(p, q, 2)[-1]
    law = np.array([1 - beta, beta * (1 - beta), beta**2 * (1 - beta), beta**3])
    assert goodness_of_fit(np.array(counts) - 1, law, category="count").passed
    vectorised = sample_tree_tokens_per_pass(p, q, 3, 2, 4_000, np.random.default_rng(4))
    assert compare_samples(np.array(counts), vectorised).passed
    assert tree_expected_tokens(p, q, 3, 2) == pytest.approx(law @ [1, 2, 3, 4])


@pytest.mark.parametrize("alpha", [0.3, 0.5, 0.7, 0.9])
def test_tree_and_chain_at_equal_alpha_against_monte_carlo(alpha):
    p = geometric_target(8, 0.6)
    q = draft_with_acceptance(p, alpha)
    chain_exact = chain_expected_tokens(p, q, 14)
    assert chain_exact == pytest.approx(expected_tokens(alpha, 14))
    _, counts = sample_steps(np.tile(p, (15, 1)), np.tile(q, (14, 1)), 200_000, np.random.default_rng(5))
    assert counts.mean() == pytest.approx(chain_exact, abs=0.03)
    tree = sample_tree_tokens_per_pass(p, q, 3, 2, 200_000, np.random.default_rng(6))
    assert tree.mean() == pytest.approx(tree_expected_tokens(p, q, 3, 2), abs=0.01)


def test_the_tree_wins_at_low_alpha_and_the_chain_at_high_alpha():
    p = geometric_target(8, 0.6)
    low, high = draft_with_acceptance(p, 0.3), draft_with_acceptance(p, 0.9)
    assert tree_expected_tokens(p, low, 3, 2) > chain_expected_tokens(p, low, 14)
    assert tree_expected_tokens(p, high, 3, 2) < chain_expected_tokens(p, high, 14)


def test_bad_trees_are_refused_before_any_draw():
    rows = [[0.5, 0.5]] * 3
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    cases = [
        (([0, 2], [0, 0], rows, rows), ValueError, "parent of node 2"),
        (([0, 0], [0], rows, rows), ValueError, "one token per node"),
        (([0, 0], [0, 0], rows[:2], rows), ValueError, "one row per node"),
        (([0, 0], [0, 5], rows, rows), ValueError, "out of range"),
        (([0, 0], [0, 1], rows, [[1.0, 0.0]] * 3), ValueError, "probability 0"),
        (([0, 0.5], [0, 1], rows, rows), TypeError, "parents"),
        (([0, 0], [0, 1], [[0.5, np.nan]] * 3, rows), ValueError, "target_rows"),
    ]
    for arguments, error, words in cases:
        with pytest.raises(error, match=words):
            verify_tree(*arguments, rng)
    assert rng.bit_generator.state == before


def test_a_tree_of_branching_one_is_a_chain():
    p = geometric_target(8, 0.6)
    q = draft_with_acceptance(p, 0.6)
    assert full_tree_parents(3, 1) == [0, 1, 2]
    assert tree_expected_tokens(p, q, 3, 1) == pytest.approx(chain_expected_tokens(p, q, 3))
    assert tree_expected_tokens(p, q, 3, 1) == pytest.approx(1 + 0.6 + 0.6**2 + 0.6**3)
    tree = sample_stationary_tree(p, q, 1, 1, np.random.default_rng(0))
    assert tree.parents == [0] and len(tree.tokens) == 1 and tree.target_rows.shape == (2, 8)
    counts = sample_tree_tokens_per_pass(p, q, 1, 1, 20_000, np.random.default_rng(1))
    assert set(np.unique(counts)) <= {1, 2}
    assert counts.mean() == pytest.approx(1.6, abs=4 * 0.49 / np.sqrt(20_000))  # 1 + α, sd of a Bernoulli(0.6)


def test_bad_tokens_are_refused_with_the_right_index_and_range():
    rows = [[0.5, 0.5]] * 3
    with pytest.raises(ValueError, match=r"tokens\[1\] = 2 is out of range 0 … 1"):  # token = V
        verify_tree([0, 0], [0, 2], rows, rows, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"tokens\[0\] = 1 has probability 0 under draft_rows\[0\]"):
        verify_tree([0, 0], [1, 0], rows, [[1.0, 0.0]] * 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"parents\[1\] = 2: the parent of node 2 must be in 0 … 1"):
        verify_tree([0, 2], [0, 0], rows, rows, np.random.default_rng(0))
