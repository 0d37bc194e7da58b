"""The tree verify rule on trees small enough to follow by hand: what it refuses and what it records."""

import numpy as np
import pytest

from specdec.neural import one_hot_rows, verify_token_tree
from specdec.neural.verify import tree_children

#: At the root only token 1 is possible: a drafted 0 is always rejected, a drafted 1 always accepted.
CERTAIN = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5], [0.2, 0.3, 0.5]])


def test_a_node_cannot_be_its_own_parent_or_come_after_its_child():
    with pytest.raises(ValueError, match=r"parents\[1\] = 2: the parent of node 2 must be in 0 … 1$"):
        tree_children([0, 2])
    with pytest.raises(ValueError, match=r"parents\[2\] = 3: the parent of node 3 must be in 0 … 2$"):
        tree_children([0, 1, 3])


@pytest.mark.parametrize("draft_rows, target_rows, got", [
    (one_hot_rows([0], 3), CERTAIN, "got 1 and 3"),  # one draft row short, the target rows right
    (one_hot_rows([0, 1], 3), CERTAIN[:2], "got 2 and 2"),  # the draft rows right, one target row short
])
def test_a_tree_needs_a_draft_row_per_node_and_a_target_row_more(draft_rows, target_rows, got):
    with pytest.raises(ValueError, match=f"a tree of 2 nodes needs 2 draft rows and 3 target rows, {got}$"):
        verify_token_tree([0, 0], [0, 1], draft_rows, target_rows, np.random.default_rng(0))


def test_each_token_must_be_possible_under_its_own_draft_row():
    # Token 1 of node 2 has probability 0.5 under node 1's row but 0 under its own.
    draft_rows = [[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match=r"tokens\[1\] = 1 has probability 0 under draft_rows\[1\]"):
        verify_token_tree([0, 1], [1, 1], draft_rows, CERTAIN, np.random.default_rng(0))


@pytest.mark.parametrize("rule", ["exact", "typical"])
def test_the_second_child_accepted_at_the_root_counts_two_tries(rule):
    # Children 1 (token 0) and 2 (token 1) of the root: 0 fails, 1 passes, whatever the draws.
    outcome = verify_token_tree([0, 0], [0, 1], one_hot_rows([0, 1], 3), CERTAIN, np.random.default_rng(0), rule=rule)
    assert outcome.tokens[0] == 1 and outcome.origins == ["accepted", "bonus"]
    assert outcome.path == [2] and outcome.tried == [2]


def test_typical_acceptance_needs_p_strictly_above_the_bar():
    p = np.array([[0.9, 0.1], [0.5, 0.5]])
    # bar = min(ε, δ·exp(−H(p))) = min(0.1, about 0.72) = 0.1 = p(1): not above it
    outcome = verify_token_tree([0], [1], one_hot_rows([1], 2), p, np.random.default_rng(0), rule="typical",
                                epsilon=0.1, delta=1.0)
    assert outcome.origins == ["resampled"] and outcome.tried == [1]
    outcome = verify_token_tree([0], [1], one_hot_rows([1], 2), p, np.random.default_rng(0), rule="typical",
                                epsilon=0.09, delta=1.0)
    assert outcome.origins == ["accepted", "bonus"] and outcome.tokens[0] == 1
