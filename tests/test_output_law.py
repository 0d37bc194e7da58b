"""The exact output law, against a brute-force enumeration of every path through a verify step."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specdec.output_law import position_law, position_tokens, reach_probabilities, token_count_law
from specdec.narrate import random_rows, spec_example


def enumerate_step(target, draft):
    """Every path of the rule, with its probability: returns (P(token at i, reached i), P(N = k)).

    Walks the tree: at position i the draft proposes x with probability qᵢ(x); it is accepted with
    probability min(1, pᵢ(x)/qᵢ(x)); on rejection (probability 1 − αᵢ overall) the replacement y has
    probability max(0, pᵢ(y) − qᵢ(y)) / (1 − αᵢ). Written independently of specdec's helpers.
    """
    gamma, vocab = draft.shape
    joint = np.zeros((gamma + 1, vocab))
    counts = np.zeros(gamma + 1)
    reach = 1.0
    for i in range(gamma):
        accept_mass = 0.0
        for x in range(vocab):
            if draft[i, x] > 0:
                accepted = draft[i, x] * min(1.0, target[i, x] / draft[i, x])
                joint[i, x] += reach * accepted
                accept_mass += accepted
        reject_mass = 1.0 - accept_mass
        excess = np.maximum(target[i] - draft[i], 0.0)
        if reject_mass > 1e-15:
            joint[i] += reach * reject_mass * excess / excess.sum()
        counts[i] += reach * reject_mass
        reach *= accept_mass
    joint[gamma] += reach * target[gamma]
    counts[gamma] += reach
    return joint, counts


def test_spec_example_split():
    law = position_law([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])
    assert np.allclose(law.accepted, [0.25, 0.25, 0.2, 0.0])
    assert np.allclose(law.resampled, [0.25, 0.05, 0.0, 0.0])
    assert np.allclose(law.residual, [5 / 6, 1 / 6, 0.0, 0.0])
    assert law.acceptance_rate == pytest.approx(0.7)
    assert np.allclose(law.total, [0.5, 0.3, 0.2, 0.0])


rows = st.tuples(st.integers(2, 12), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None)
@given(rows)
def test_accepted_plus_resampled_is_exactly_the_target(case):
    vocab, closeness, seed = case
    target_probs, draft_probs = random_rows(1, vocab, closeness, np.random.default_rng(seed))
    law = position_law(target_probs[0], draft_probs[0])
    p, q = target_probs[0], draft_probs[0]
    assert np.allclose(law.accepted, np.minimum(p, q), atol=1e-15)
    assert np.allclose(law.resampled, np.maximum(p - q, 0.0), atol=1e-12)
    assert np.allclose(law.total, p, atol=1e-12)
    assert law.resampled.sum() == pytest.approx(1 - law.acceptance_rate, abs=1e-12)
    assert np.all(law.accepted >= 0) and np.all(law.resampled >= 0)


def test_equal_rows_have_no_resampled_mass_and_no_nan():
    law = position_law([0.2, 0.8], [0.2, 0.8])
    assert law.acceptance_rate == 1.0
    assert np.all(law.resampled == 0) and not np.isnan(law.residual).any()


@pytest.mark.parametrize("gamma, vocab, closeness, seed", [(1, 3, 0.2, 0), (3, 5, 0.6, 1), (5, 4, 0.9, 2)])
def test_positions_and_counts_against_the_enumeration(gamma, vocab, closeness, seed):
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, np.random.default_rng(seed))
    joint, counts = enumerate_step(target_probs, draft_probs)
    reach = reach_probabilities(target_probs, draft_probs)
    assert np.allclose(joint.sum(axis=1), reach)
    # Given that a step reached position i, its token is distributed as pᵢ.
    assert np.allclose(joint / reach[:, None], target_probs)
    assert np.allclose(token_count_law(target_probs, draft_probs), counts)
    assert token_count_law(target_probs, draft_probs).sum() == pytest.approx(1.0)


def test_spec_example_counts():
    target_probs, draft_probs, _ = spec_example()
    assert np.allclose(token_count_law(target_probs, draft_probs), [0.3, 0.7 * 0.4, 0.7 * 0.6])


def test_arguments_are_checked_and_inputs_untouched():
    p = np.array([0.5, 0.5])
    q = np.array([0.9, 0.1])
    position_law(p, q).accepted[0] = 7.0  # the result owns its arrays
    assert p.tolist() == [0.5, 0.5] and q.tolist() == [0.9, 0.1]
    with pytest.raises(ValueError, match="same vocabulary"):
        position_law([0.5, 0.5], [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="target must sum to 1"):
        position_law([0.5, 0.6], [0.5, 0.5])


def test_position_tokens():
    tokens = np.array([[3, 1, -1], [2, -1, -1], [0, 0, 1]])
    counts = np.array([2, 1, 3])
    assert position_tokens(tokens, counts, 0).tolist() == [3, 2, 0]
    assert position_tokens(tokens, counts, 1).tolist() == [1, 0]
    assert position_tokens(tokens, counts, 2).tolist() == [1]
    with pytest.raises(ValueError, match="position must be in 0 … 2"):
        position_tokens(tokens, counts, 3)
    with pytest.raises(ValueError, match="counts"):
        position_tokens(tokens, counts[:2], 0)
